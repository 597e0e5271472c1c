package graph_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/sqlite"
)

// describe renders a page as "direction type other-id" lines.
func describe(p *graph.NeighborPage) []string {
	var out []string
	for _, nb := range p.Neighbors {
		other := nb.Edge.Target
		if nb.Direction == graph.DirectionIn {
			other = nb.Edge.Source
		}
		if nb.Node != nil && nb.Node.ID != other {
			out = append(out, "node mismatch "+nb.Node.ID)
		}
		if (nb.Node == nil) != nb.Edge.Dangling {
			out = append(out, "node presence mismatch for "+nb.Edge.ID)
		}
		out = append(out, nb.Direction+" "+nb.Edge.Type+" "+other)
	}
	return out
}

// mentionLines describes mentions edges to or from ids, in id order.
func mentionLines(dir string, ids ...string) []string {
	ids = slices.Sorted(slices.Values(ids))
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = dir + " mentions " + id
	}
	return out
}

func TestNeighbors(t *testing.T) {
	db := fixture(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		id      string
		opts    graph.NeighborOptions
		want    []string
		total   int
		hasMore bool
	}{
		{"concept both, relations first", idGC, graph.NeighborOptions{}, []string{
			"out documented_in " + idA,
			"out part_of concept:runtime systems",
			"out related_to " + idMS,
			"in related_to " + idB,
			"in mentions " + idA,
		}, 5, false},
		{"concept out", idGC, graph.NeighborOptions{Direction: "out"}, []string{
			"out documented_in " + idA, "out part_of concept:runtime systems", "out related_to " + idMS,
		}, 3, false},
		{"concept in", idGC, graph.NeighborOptions{Direction: "in"}, []string{
			"in related_to " + idB, "in mentions " + idA,
		}, 2, false},
		{"type filter", idGC, graph.NeighborOptions{Type: "related_to"}, []string{
			"out related_to " + idMS, "in related_to " + idB,
		}, 2, false},
		{"mentions type", idMS, graph.NeighborOptions{Type: "mentions"}, []string{
			"in mentions " + idA, "in mentions " + idB,
		}, 2, false},
		{"first page", idGC, graph.NeighborOptions{Limit: 2}, []string{
			"out documented_in " + idA, "out part_of concept:runtime systems",
		}, 5, true},
		{"middle page", idGC, graph.NeighborOptions{Offset: 2, Limit: 2}, []string{
			"out related_to " + idMS, "in related_to " + idB,
		}, 5, true},
		{"last page", idGC, graph.NeighborOptions{Offset: 4, Limit: 2}, []string{"in mentions " + idA}, 5, false},
		{"past the end", idGC, graph.NeighborOptions{Offset: 9}, nil, 5, false},
		{"note both", idA, graph.NeighborOptions{}, append([]string{
			"out about " + idRust,
			"out cites " + idB,
			"in documented_in " + idGC,
			"out see_also memory://notes/missing",
		}, mentionLines("out", idGC, idMS, idRust)...), 7, false},
		{"note by URI with .md and upper-case scheme", "MEMORY://notes/b.md", graph.NeighborOptions{Direction: "in"}, []string{
			"in cites " + idA,
		}, 1, false},
		{"a concept page note has no relations of its own", idGCPage, graph.NeighborOptions{}, nil, 0, false},
		{"isolated note", idC, graph.NeighborOptions{}, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := graph.Neighbors(ctx, db.Graph(), tt.id, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(p); !slices.Equal(got, tt.want) {
				t.Errorf("neighbors =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if p.Total != tt.total || p.HasMore != tt.hasMore {
				t.Errorf("total, has_more = %d, %v; want %d, %v", p.Total, p.HasMore, tt.total, tt.hasMore)
			}
			if p.Neighbors == nil {
				t.Error("neighbors is nil, want an empty list")
			}
		})
	}
}

func TestNeighborsLimits(t *testing.T) {
	db := fixture(t)
	for _, tt := range []struct{ limit, want int }{{0, graph.DefaultNeighborLimit}, {10, 10}, {10000, graph.MaxNeighborLimit}} {
		p, err := graph.Neighbors(context.Background(), db.Graph(), idGC, graph.NeighborOptions{Limit: tt.limit})
		if err != nil {
			t.Fatal(err)
		}
		if p.Limit != tt.want {
			t.Errorf("limit %d: page limit = %d, want %d", tt.limit, p.Limit, tt.want)
		}
	}
}

func TestGetNode(t *testing.T) {
	db := fixture(t)
	tests := []struct {
		id      string
		in, out noema.GraphDegreeCount
	}{
		{idGC, noema.GraphDegreeCount{Mentions: 1, Relations: 1}, noema.GraphDegreeCount{Relations: 3}},
		{idA, noema.GraphDegreeCount{Relations: 1}, noema.GraphDegreeCount{Mentions: 3, Relations: 3}},
		{idRust, noema.GraphDegreeCount{Mentions: 2, Relations: 1}, noema.GraphDegreeCount{}},
		{idGCPage, noema.GraphDegreeCount{}, noema.GraphDegreeCount{}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			n, err := graph.GetNode(context.Background(), db.Graph(), tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if n.ID != tt.id || n.Degree == nil || n.Degree.In != tt.in || n.Degree.Out != tt.out {
				t.Errorf("node %s degree = %+v, want in %+v out %+v", n.ID, n.Degree, tt.in, tt.out)
			}
		})
	}
}

func TestUnknownAndInvalid(t *testing.T) {
	db := fixture(t)
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		code string
	}{
		{"get unknown concept", func() error { _, err := graph.GetNode(ctx, db.Graph(), "c_nope"); return err }, noema.ENOTFOUND},
		{"get unknown note", func() error { _, err := graph.GetNode(ctx, db.Graph(), "memory://notes/missing"); return err }, noema.ENOTFOUND},
		{"get dangling target", func() error { _, err := graph.GetNode(ctx, db.Graph(), "concept:runtime systems"); return err }, noema.ENOTFOUND},
		{"get empty id", func() error { _, err := graph.GetNode(ctx, db.Graph(), " "); return err }, noema.EINVALID},
		{"neighbors unknown", func() error {
			_, err := graph.Neighbors(ctx, db.Graph(), "c_nope", graph.NeighborOptions{})
			return err
		}, noema.ENOTFOUND},
		{"neighbors bad direction", func() error {
			_, err := graph.Neighbors(ctx, db.Graph(), idGC, graph.NeighborOptions{Direction: "sideways"})
			return err
		}, noema.EINVALID},
		{"neighbors negative offset", func() error {
			_, err := graph.Neighbors(ctx, db.Graph(), idGC, graph.NeighborOptions{Offset: -1})
			return err
		}, noema.EINVALID},
		{"neighbors negative limit", func() error {
			_, err := graph.Neighbors(ctx, db.Graph(), idGC, graph.NeighborOptions{Limit: -1})
			return err
		}, noema.EINVALID},
		{"subgraph unknown", func() error { _, err := graph.Subgraph(ctx, db.Graph(), []string{idGC, "c_nope"}, 1, ""); return err }, noema.ENOTFOUND},
		{"subgraph no ids", func() error { _, err := graph.Subgraph(ctx, db.Graph(), nil, 1, ""); return err }, noema.EINVALID},
		{"subgraph negative depth", func() error { _, err := graph.Subgraph(ctx, db.Graph(), []string{idGC}, -1, ""); return err }, noema.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if got := noema.ErrorCode(err); got != tt.code {
				t.Errorf("error %v: code %q, want %q", err, got, tt.code)
			}
		})
	}
}

func TestSubgraph(t *testing.T) {
	db := fixture(t)
	tests := []struct {
		name  string
		ids   []string
		depth int
		typ   string
		nodes []string
		edges int
	}{
		{"isolated node", []string{idC}, 1, "", []string{idC}, 0},
		{"depth 1 all types", []string{idB}, 0, "", []string{idGC, idMS, idRust, idA, idB}, 10},
		{"mentions depth 1", []string{idB}, 1, "mentions", []string{idMS, idRust, idB}, 2},
		{"mentions depth 2", []string{idB}, 2, "mentions", []string{idMS, idRust, idA, idB}, 4},
		{"mentions depth 3", []string{idB}, 3, "mentions", []string{idGC, idMS, idRust, idA, idB}, 5},
		{"depth clamped", []string{idB}, 99, "mentions", []string{idGC, idMS, idRust, idA, idB}, 5},
		{"relation type only", []string{idGC}, 1, "related_to", []string{idGC, idMS, idB}, 2},
		{"several seeds, duplicates", []string{idC, idGCPage, idC}, 2, "", []string{idGCPage, idC}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := graph.Subgraph(context.Background(), db.Graph(), tt.ids, tt.depth, tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range g.Nodes {
				got = append(got, n.ID)
			}
			want := slices.Clone(tt.nodes)
			// Concepts sort before notes, each by id.
			slices.SortStableFunc(want, func(a, b string) int {
				an, bn := strings.HasPrefix(a, "memory://"), strings.HasPrefix(b, "memory://")
				if an != bn {
					if an {
						return 1
					}
					return -1
				}
				return strings.Compare(a, b)
			})
			if !slices.Equal(got, want) {
				t.Errorf("nodes = %v, want %v", got, want)
			}
			if len(g.Edges) != tt.edges {
				t.Errorf("%d edges, want %d: %+v", len(g.Edges), tt.edges, g.Edges)
			}
			in := map[string]bool{}
			for _, id := range got {
				in[id] = true
			}
			for _, e := range g.Edges {
				if !in[e.Source] || !in[e.Target] || e.Dangling || (tt.typ != "" && e.Type != tt.typ) {
					t.Errorf("edge %+v does not belong", e)
				}
			}
			if g.Truncated {
				t.Error("truncated")
			}
		})
	}
}

// TestSubgraphCap: a concept linked from more notes than the cap stops the
// expansion at MaxSubgraphNodes, keeping the first notes in id order.
func TestSubgraphCap(t *testing.T) {
	db := mustOpen(t)
	n := graph.MaxSubgraphNodes + 100
	recs := make([]*sqlite.NoteRecord, n)
	for i := range recs {
		recs[i] = note(fmt.Sprintf("hub/%05d.md", i), 1, "Hub")
	}
	put(t, db, recs...)
	hub := noema.ConceptID("hub", 1)
	g, err := graph.Subgraph(context.Background(), db.Graph(), []string{hub}, 2, "")
	if err != nil {
		t.Fatal(err)
	}
	if !g.Truncated || len(g.Nodes) != graph.MaxSubgraphNodes || len(g.Edges) != graph.MaxSubgraphNodes-1 {
		t.Fatalf("truncated %v, %d nodes, %d edges", g.Truncated, len(g.Nodes), len(g.Edges))
	}
	if g.Nodes[0].ID != hub || g.Nodes[len(g.Nodes)-1].ID != fmt.Sprintf("memory://hub/%05d", graph.MaxSubgraphNodes-2) {
		t.Errorf("kept %s … %s", g.Nodes[0].ID, g.Nodes[len(g.Nodes)-1].ID)
	}
	p, err := graph.Neighbors(context.Background(), db.Graph(), hub, graph.NeighborOptions{Offset: n - 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != n || len(p.Neighbors) != 1 || p.HasMore {
		t.Errorf("last page: total %d, %d neighbours, has_more %v", p.Total, len(p.Neighbors), p.HasMore)
	}
}

package graph_test

import (
	"context"
	"slices"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/internal/testkit"
)

// fakeGraph is a small graph on the in-memory index: two notes mention
// Go, one also Rust and one GC; Go's page declares a relation to GC, a
// note one to a concept that does not exist.
//
//	notes/a.md → go (2 links), gc      go --related_to--> gc
//	notes/b.md → go, rust              notes/a.md --see_also--> concept:runtime (dangling)
func fakeGraph() *testkit.Graph {
	g := testkit.NewGraph()
	g.AddNote("notes/a.md", "A")
	g.AddNote("notes/b.md", "B")
	g.AddNote("concepts/go.md", "Go")
	g.AddConcept("c_go", "Go", "concepts/go.md", "golang")
	g.AddConcept("c_rust", "Rust", "")
	g.AddConcept("c_gc", "GC", "", "garbage collection")
	g.Mention("notes/a.md", "c_go", 2, 0)
	g.Mention("notes/a.md", "c_gc", 1, 1)
	g.Mention("notes/b.md", "c_go", 1, 0)
	g.Mention("notes/b.md", "c_rust", 1, 1)
	g.Relate("r1", noema.NoteURI("concepts/go.md"), "related_to", "concept:garbage collection", nil)
	g.Relate("r2", noema.NoteURI("notes/a.md"), "see_also", "concept:runtime", nil)
	return g
}

func TestGetNodeOnFake(t *testing.T) {
	ctx := context.Background()
	g := fakeGraph()
	tests := []struct {
		id      string
		in, out noema.GraphDegreeCount
	}{
		{"c_go", noema.GraphDegreeCount{Mentions: 2}, noema.GraphDegreeCount{Relations: 1}},
		{"c_gc", noema.GraphDegreeCount{Mentions: 1, Relations: 1}, noema.GraphDegreeCount{}},
		{noema.NoteURI("notes/a.md"), noema.GraphDegreeCount{}, noema.GraphDegreeCount{Mentions: 2, Relations: 1}},
	}
	for _, tt := range tests {
		n, err := graph.GetNode(ctx, g, tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if n.ID != tt.id || n.Degree == nil || n.Degree.In != tt.in || n.Degree.Out != tt.out {
			t.Errorf("GetNode(%s) = %s, degree %+v; want in %+v out %+v", tt.id, n.ID, n.Degree, tt.in, tt.out)
		}
	}
	for _, id := range []string{"c_nope", "concept:runtime", noema.NoteURI("notes/missing.md")} {
		if _, err := graph.GetNode(ctx, g, id); noema.ErrorCode(err) != noema.ENOTFOUND {
			t.Errorf("GetNode(%s): %v, want not_found", id, err)
		}
	}
}

func TestNeighborsOnFake(t *testing.T) {
	ctx := context.Background()
	g := fakeGraph()
	p, err := graph.Neighbors(ctx, g, "c_go", graph.NeighborOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"out related_to c_gc", "in mentions " + noema.NoteURI("notes/a.md"), "in mentions " + noema.NoteURI("notes/b.md")}
	if got := describe(p); !slices.Equal(got, want) || p.Total != 3 || p.HasMore {
		t.Errorf("neighbors of c_go = %q (total %d, more %v), want %q (total 3)", got, p.Total, p.HasMore, want)
	}
	if w := p.Neighbors[1].Edge.Weight; w == nil || *w != 2 {
		t.Errorf("a.md's mention of Go weighs %v, want its 2 links", w)
	}

	// Paging and filters.
	p, err = graph.Neighbors(ctx, g, "c_go", graph.NeighborOptions{Offset: 1, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(p); !slices.Equal(got, want[1:2]) || !p.HasMore || p.Total != 3 {
		t.Errorf("page 2 of 1 = %q (total %d, more %v), want %q with more", got, p.Total, p.HasMore, want[1:2])
	}
	p, err = graph.Neighbors(ctx, g, noema.NoteURI("notes/a.md"), graph.NeighborOptions{Type: "see_also"})
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(p); !slices.Equal(got, []string{"out see_also concept:runtime"}) || !p.Neighbors[0].Edge.Dangling {
		t.Errorf("a.md's see_also = %q, want the one dangling relation", got)
	}
}

func TestSubgraphOnFake(t *testing.T) {
	ctx := context.Background()
	g := fakeGraph()
	ids := func(x *graph.Graph) []string { // in canonical order: concepts, then notes
		var out []string
		for _, n := range x.Nodes {
			out = append(out, n.ID)
		}
		return out
	}
	one, err := graph.Subgraph(ctx, g, []string{"c_rust"}, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(one), []string{"c_rust", noema.NoteURI("notes/b.md")}; !slices.Equal(got, want) || len(one.Edges) != 1 {
		t.Errorf("depth 1 around Rust: nodes %q, %d edges; want %q and the one mention", got, len(one.Edges), want)
	}
	two, err := graph.Subgraph(ctx, g, []string{"c_rust"}, 2, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(two), []string{"c_go", "c_rust", noema.NoteURI("notes/b.md")}; !slices.Equal(got, want) || len(two.Edges) != 2 {
		t.Errorf("depth 2 around Rust: nodes %q, %d edges; want %q and two mentions", got, len(two.Edges), want)
	}
}

// TestAnalyzerOnFake checks the analyser's cache against the index's
// version: a second call on an unchanged graph reads nothing, a change is
// seen on the next call.
func TestAnalyzerOnFake(t *testing.T) {
	ctx := context.Background()
	g := fakeGraph()
	a := graph.NewAnalyzer(g)
	rank := func() *graph.AnalyzeResult {
		t.Helper()
		res, err := a.Analyze(ctx, graph.AnalyzeOptions{Op: graph.OpPageRank})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := rank()
	// Go co-occurs with GC and with Rust, and relates to GC: it ranks first.
	if res.GraphNodes != 3 || len(res.Nodes) != 3 || res.Nodes[0].ID != "c_go" {
		t.Fatalf("pagerank over %d nodes = %+v, want Go first of 3", res.GraphNodes, res.Nodes)
	}
	rank()
	if n := g.Reads(); n != 1 {
		t.Errorf("two analyses of one version read the index %d times, want 1", n)
	}
	g.AddConcept("c_zig", "Zig", "")
	g.Mention("notes/b.md", "c_zig", 1, 2)
	if res := rank(); res.GraphNodes != 4 || g.Reads() != 2 {
		t.Errorf("after a change: %d nodes after %d reads, want 4 after 2", res.GraphNodes, g.Reads())
	}
}

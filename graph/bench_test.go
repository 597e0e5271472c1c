package graph_test

import (
	"context"
	"io"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
)

// BenchmarkGraph measures the graph queries over a 10,000-note corpus:
//
//	go test -run '^$' -bench Graph -benchtime 5x ./graph/
func BenchmarkGraph(b *testing.B) {
	db := noematest.SyncedCorpus(b, corpus.Options{Seed: 42, Notes: 10000})
	ctx := context.Background()
	g, err := graph.Export(ctx, db.Graph())
	if err != nil {
		b.Fatal(err)
	}
	// The most linked concept: the worst case for neighbours and subgraphs.
	top, most := "", 0
	in := map[string]int{}
	for _, e := range g.Edges {
		if e.Kind == noema.EdgeMentions {
			in[e.Target]++
			if in[e.Target] > most || (in[e.Target] == most && e.Target < top) {
				top, most = e.Target, in[e.Target]
			}
		}
	}
	b.Logf("%d nodes, %d edges; top concept %s with %d mentioning notes", len(g.Nodes), len(g.Edges), top, most)

	noematest.Bench(b, "Export", func() error { _, err := graph.Export(ctx, db.Graph()); return err })
	noematest.Bench(b, "WriteJSON", func() error { return graph.WriteJSON(io.Discard, g) })
	noematest.Bench(b, "WriteGraphML", func() error { return graph.WriteGraphML(io.Discard, g) })
	noematest.Bench(b, "NeighborsTopConcept", func() error { _, err := graph.Neighbors(ctx, db.Graph(), top, graph.NeighborOptions{}); return err })
	note := g.Nodes[len(g.Nodes)-1].ID
	noematest.Bench(b, "NeighborsNote", func() error { _, err := graph.Neighbors(ctx, db.Graph(), note, graph.NeighborOptions{}); return err })
	noematest.Bench(b, "GetNodeTopConcept", func() error { _, err := graph.GetNode(ctx, db.Graph(), top); return err })
	noematest.Bench(b, "SubgraphNoteDepth2", func() error { _, err := graph.Subgraph(ctx, db.Graph(), []string{note}, 2, ""); return err })
}

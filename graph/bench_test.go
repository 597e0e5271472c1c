package graph_test

import (
	"context"
	"io"
	"testing"

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
	g, err := graph.Export(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	// The most linked concept: the worst case for neighbours and subgraphs.
	top, most := "", 0
	in := map[string]int{}
	for _, e := range g.Edges {
		if e.Kind == graph.KindMentions {
			in[e.Target]++
			if in[e.Target] > most || (in[e.Target] == most && e.Target < top) {
				top, most = e.Target, in[e.Target]
			}
		}
	}
	b.Logf("%d nodes, %d edges; top concept %s with %d mentioning notes", len(g.Nodes), len(g.Edges), top, most)

	b.Run("Export", func(b *testing.B) {
		for b.Loop() {
			if _, err := graph.Export(ctx, db); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("WriteJSON", func(b *testing.B) {
		for b.Loop() {
			if err := graph.WriteJSON(io.Discard, g); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("WriteGraphML", func(b *testing.B) {
		for b.Loop() {
			if err := graph.WriteGraphML(io.Discard, g); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("NeighborsTopConcept", func(b *testing.B) {
		for b.Loop() {
			if _, err := graph.Neighbors(ctx, db, top, graph.NeighborOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	note := g.Nodes[len(g.Nodes)-1].ID
	b.Run("NeighborsNote", func(b *testing.B) {
		for b.Loop() {
			if _, err := graph.Neighbors(ctx, db, note, graph.NeighborOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("GetNodeTopConcept", func(b *testing.B) {
		for b.Loop() {
			if _, err := graph.GetNode(ctx, db, top); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SubgraphNoteDepth2", func(b *testing.B) {
		for b.Loop() {
			if _, err := graph.Subgraph(ctx, db, []string{note}, 2, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

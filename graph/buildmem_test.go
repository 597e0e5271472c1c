package graph_test

import (
	"runtime"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
)

// TestConceptGraphOfHoldsItsSize checks issue 21's bound on building the
// concept graph: its edges are laid out once, in rows of their final size,
// so the build allocates little beyond the graph it returns (at a million
// concepts the graph is 1.2 GB; gathering the edges first and laying them
// out after allocated twice that again).
func TestConceptGraphOfHoldsItsSize(t *testing.T) {
	const concepts, notes, perNote = 20000, 2000, 100
	l := spreadLinks(concepts, notes, perNote)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g := graph.ConceptGraphOf(l)
	runtime.ReadMemStats(&after)
	edges := int64(len(g.Adj)) * (4 + 8) // Adj and W
	perNode := int64(concepts) * 200     // Off, Self, Kinds, the index and the build's per-node arrays
	if got, limit := int64(after.TotalAlloc-before.TotalAlloc), edges*5/4+perNode; got > limit {
		t.Errorf("building a graph of %d edge entries (%d MB) allocated %d MB, want at most %d MB",
			len(g.Adj), edges>>20, got>>20, limit>>20)
	}
	if g.Edges() == 0 {
		t.Fatal("no edges")
	}
}

// BenchmarkConceptGraphOfLabels builds the concept graph of a label
// vault's shape (100 concepts a note, each in 10 notes).
func BenchmarkConceptGraphOfLabels(b *testing.B) {
	const concepts, notes, perNote = 100000, 10000, 100
	l := spreadLinks(concepts, notes, perNote)
	b.ReportAllocs()
	for b.Loop() {
		graph.ConceptGraphOf(l)
	}
}

// spreadLinks is the concept links of notes notes of perNote concepts
// each, spread over concepts concepts by a stride.
func spreadLinks(concepts, notes, perNote int) *noema.ConceptLinks {
	l := &noema.ConceptLinks{}
	for i := range concepts {
		l.IDs = append(l.IDs, id(i))
		l.Labels = append(l.Labels, id(i))
	}
	for k := range notes {
		cs := make([]int32, perNote)
		for p := range cs {
			cs[p] = int32((k*perNote + p*7919) % concepts)
		}
		l.Notes = append(l.Notes, cs)
	}
	return l
}

package concepts_test

import (
	"context"
	"testing"

	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/benchdata"
	"github.com/noema-mem/noema/internal/noematest"
)

// BenchmarkAnalyzeDuplicatesVault is analyze_duplicates end to end on an
// indexed vault of 10,000 concepts (the fuzzy benchmark's labels, 100 links
// to a note), builtin embedder: the index reads, the vectors, every channel.
// The first call after a registry change also builds the name index and the
// vectors' signatures (reported separately as "first").
func BenchmarkAnalyzeDuplicatesVault(b *testing.B) {
	ctx := context.Background()
	labels := benchdata.Generate().Labels[:10_000]
	a := noematest.LabelVault(b, labels, 100)
	if err := a.Semantic.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			a.Concepts.ResetDuplicateIndex()
			b.StartTimer()
			if _, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, a.Semantic); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			if _, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, a.Semantic); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("concept", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{Concept: labels[i*7919%len(labels)]}, a.Semantic); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

package corpus_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/noema-mem/noema/internal/corpus"
)

func BenchmarkGenerate(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			root := b.TempDir()
			var bytes int64
			i := 0
			for b.Loop() {
				m, err := corpus.Generate(context.Background(), filepath.Join(root, fmt.Sprint(i)), corpus.Options{Seed: 42, Notes: n})
				if err != nil {
					b.Fatal(err)
				}
				bytes = m.Totals.Bytes
				i++
			}
			b.SetBytes(bytes)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/note")
		})
	}
}

package semantic_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/noema-mem/noema/internal/benchdata"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/semantic"
)

// BenchmarkFindSimilar measures find_similar_concepts end to end (service:
// resolve the concept, search the in-memory index, decay, load details)
// over 100,000 concepts with the builtin embedder. The raw scan of the same
// number of 384-dim float32 vectors, the memory-bandwidth floor, is
// BenchmarkRawScan in package vector.
//
//	go test -run '^$' -bench FindSimilar -benchtime 100x ./semantic/
func BenchmarkFindSimilar(b *testing.B) {
	const n = 100000
	data := benchdata.Generate()
	ctx := context.Background()
	a := noematest.LabelVault(b, data.Labels[:n], 100)
	t0 := time.Now()
	if err := a.Semantic.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("embedded and indexed %d concepts in %v", a.Semantic.Progress().Embedded, time.Since(t0))

	b.Run("service/N=100000", func(b *testing.B) {
		var lat []time.Duration
		i := 0
		for b.Loop() {
			t := time.Now()
			res, err := a.Semantic.FindSimilar(ctx, semantic.SimilarInput{Concept: data.Labels[(i*7919)%n], MaxResults: 10})
			if err != nil || len(res.Results) != 10 {
				b.Fatalf("%v %+v", err, res)
			}
			lat = append(lat, time.Since(t))
			i++
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	})

}

// BenchmarkBuiltinEmbed measures the builtin embedder's throughput on the
// benchmark labels (2–4 pseudo-words), in labels per second.
func BenchmarkBuiltinEmbed(b *testing.B) {
	data := benchdata.Generate()
	e := builtinAgain(b, nil)
	ctx := context.Background()
	labels := data.Labels[:10000]
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Embed(ctx, labels); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(labels)*b.N)/b.Elapsed().Seconds(), "labels/s")
}

package concepts_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/benchdata"
	"github.com/noema-mem/noema/internal/cputime"
	"github.com/noema-mem/noema/internal/testkit"
	"github.com/noema-mem/noema/vault"
)

// BenchmarkFind is find_concepts in the service — WRatio's top 20 under
// the default processor, the second channel, the mention counts — over N
// concepts named by the benchmark labels (docs/fuzzy.md) in an in-memory
// registry: a server's find_concepts apart from SQLite and MCP. It cycles
// the 50 benchmark queries (the scale benchmark's find_concepts queries)
// and reports the median latency and the process's CPU time a query.
// N=1000000 is issue 21's million concepts.
//
//	go test -run '^$' -bench 'Find$' -benchtime 100x ./concepts/
func BenchmarkFind(b *testing.B) {
	ctx := context.Background()
	queries := benchdata.Generate().Queries
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			ix := testkit.NewConcepts(vault.Key)
			for i, l := range benchdata.Labels(n) {
				ix.Put(noema.Concept{ID: fmt.Sprintf("c%07d", i), Label: l})
			}
			s := &concepts.Service{DB: ix, Now: time.Now}
			if err := s.Warm(ctx, nil); err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, b.N)
			cpu0 := cputime.Process()
			i := 0
			for b.Loop() {
				t0 := time.Now()
				if _, err := s.Find(ctx, concepts.FindInput{Query: queries[i%len(queries)], Limit: 20}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
				i++
			}
			b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/1000/float64(len(lat)), "cpu-ms/query")
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

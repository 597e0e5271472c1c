package search_test

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/search"
)

var benchLarge = flag.Bool("search.large", false, "also run the search benchmarks at 100,000 notes (slow to generate)")

// benchVault is a generated, synced and embedded vault with queries drawn
// from its concept labels and note text.
type benchVault struct {
	a       *app.App
	svc     *search.Service
	queries []string
	paste   string
}

var benchVaults = map[int]*benchVault{}

func openBench(b *testing.B, n int) *benchVault {
	b.Helper()
	if v, ok := benchVaults[n]; ok {
		return v
	}
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "vault")
	t0 := time.Now()
	m, err := corpus.Generate(ctx, dir, corpus.Options{Seed: 42, Notes: n})
	if err != nil {
		b.Fatal(err)
	}
	a, err := app.Open(ctx, dir, app.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := a.Sync(ctx, false, nil); err != nil {
		b.Fatal(err)
	}
	t1 := time.Now()
	if err := a.Semantic.RefreshChunks(ctx); err != nil {
		b.Fatal(err)
	}
	svc := search.New(a.DB, a.Semantic.Embedder, decay.DefaultConfig())
	if err := svc.Warm(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("N=%d: generated and synced in %v, chunked+embedded+loaded in %v", n, t1.Sub(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
	// Queries: one or two concept labels plus a word, as an agent asks.
	var qs []string
	for i := 0; i < 50; i++ {
		c1 := m.Concepts[(i*37)%len(m.Concepts)].Label
		c2 := m.Concepts[(i*101+7)%min(len(m.Concepts), 200)].Label
		switch i % 3 {
		case 0:
			qs = append(qs, c1)
		case 1:
			qs = append(qs, c1+" "+c2)
		default:
			qs = append(qs, "how does "+strings.ToLower(c2)+" relate to notes")
		}
	}
	// A 900-character paste of labels, for the worst case of the sanitiser.
	var paste strings.Builder
	for i := 0; paste.Len() < 900; i++ {
		paste.WriteString(m.Concepts[(i*13)%len(m.Concepts)].Label + ", ")
	}
	v := &benchVault{a: a, svc: svc, queries: qs, paste: paste.String()[:900]}
	benchVaults[n] = v
	b.Cleanup(func() {})
	return v
}

func benchSizes() []int {
	if *benchLarge {
		return []int{10000, 100000}
	}
	return []int{10000}
}

// BenchmarkSearch measures search_notes through the service (sanitise,
// FTS5 with coverage, semantic scan, fusion, decay, snippets) on a
// generated vault, reporting p50 latency; BenchmarkFTSFloor is the bare
// FTS5 query on the same text.
//
//	go test ./search -run '^$' -bench 'Search|FTSFloor' -benchtime 200x
//	go test ./search -run '^$' -bench 'Search|FTSFloor' -benchtime 100x -search.large -timeout 60m
func BenchmarkSearch(b *testing.B) {
	for _, n := range benchSizes() {
		v := openBench(b, n)
		for _, mode := range []string{"hybrid", "fulltext", "semantic"} {
			b.Run(fmt.Sprintf("%s/N=%d", mode, n), func(b *testing.B) {
				ctx := context.Background()
				var lat []time.Duration
				i := 0
				cpu0 := cpuTime()
				for b.Loop() {
					t := time.Now()
					if _, err := v.svc.Search(ctx, search.Input{Query: v.queries[i%len(v.queries)], Mode: mode}); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t))
					i++
				}
				reportP50(b, lat, cpuTime()-cpu0)
			})
		}
		b.Run(fmt.Sprintf("hybrid-900-char-paste/N=%d", n), func(b *testing.B) {
			var lat []time.Duration
			cpu0 := cpuTime()
			for b.Loop() {
				t := time.Now()
				if _, err := v.svc.Search(context.Background(), search.Input{Query: v.paste}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
			}
			reportP50(b, lat, cpuTime()-cpu0)
		})
	}
}

// BenchmarkFTSFloor is the floor under BenchmarkSearch: one bare FTS5 MATCH
// of the query's words OR-ed, BM25-ordered, top 10, on the same vault.
func BenchmarkFTSFloor(b *testing.B) {
	for _, n := range benchSizes() {
		v := openBench(b, n)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			ctx := context.Background()
			var lat []time.Duration
			i := 0
			cpu0 := cpuTime()
			for b.Loop() {
				q := v.queries[i%len(v.queries)]
				t := time.Now()
				if _, err := v.a.DB.SearchText(ctx, search.TextQuery{Match: search.PlainOR(q), Weights: [3]float64{1, 1, 1}, Limit: 10}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
				i++
			}
			reportP50(b, lat, cpuTime()-cpu0)
		})
	}
}

// reportP50 reports the latencies' p50 and p90 and, when cpu is the
// process CPU time the loop used, the CPU milliseconds per search: on a
// shared machine wall time waits for other work, CPU time much less.
func reportP50(b *testing.B, lat []time.Duration, cpu time.Duration) {
	if len(lat) == 0 {
		return
	}
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(len(lat))/1000, "cpu-ms/op")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")
}

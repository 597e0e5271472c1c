package fuzzy

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/noema-mem/noema/internal/benchdata"
	"github.com/noema-mem/noema/internal/cputime"
)

var (
	// benchData is the generated benchmark data, made once per test binary.
	benchData = sync.OnceValue(benchdata.Generate)

	benchMu      sync.Mutex
	benchChoices = map[int]*Choices{}
)

// benchSet returns the first n benchmark labels as Choices processed with
// DefaultProcess, built once per process; beyond the 100,000 labels of the
// answer key, more are drawn from the same stream (benchdata.Labels).
func benchSet(tb testing.TB, n int) *Choices {
	tb.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if c, ok := benchChoices[n]; ok {
		return c
	}
	labels := benchData().Labels
	if n > len(labels) {
		labels = benchdata.Labels(n)
	}
	c := NewChoices(labels[:n], DefaultProcess)
	benchChoices[n] = c
	return c
}

// top20Key is the answer key of the benchmark (docs/fuzzy.md): results[N][scorer][query] is the
// expected top 20.
func top20Key(t *testing.T) map[int]map[string][][]Match {
	t.Helper()
	f, err := os.Open("testdata/bench_top20_expected.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	key := map[int]map[string][][]Match{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		fs := strings.Split(line, "\t")
		if len(fs) != 6 {
			t.Fatalf("bad line %q", line)
		}
		n, err1 := strconv.Atoi(fs[0])
		qi, err2 := strconv.Atoi(fs[2])
		rank, err3 := strconv.Atoi(fs[3])
		idx, err4 := strconv.Atoi(fs[4])
		score, err5 := strconv.ParseFloat(fs[5], 64)
		if err := cmpErr(err1, err2, err3, err4, err5); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if key[n] == nil {
			key[n] = map[string][][]Match{}
		}
		if key[n][fs[1]] == nil {
			key[n][fs[1]] = make([][]Match, benchdata.QueryCount)
		}
		if len(key[n][fs[1]][qi]) != rank {
			t.Fatalf("line %q: rank out of order", line)
		}
		key[n][fs[1]][qi] = append(key[n][fs[1]][qi], Match{Index: idx, Score: score})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return key
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestBenchTop20 checks Extract against the C++ answer key for all 50
// queries, N = 10,000 and 100,000, WRatio and ratio; scores must be equal bit
// for bit.
func TestBenchTop20(t *testing.T) {
	key := top20Key(t)
	queries := benchData().Queries
	for _, n := range []int{10000, 100000} {
		c := benchSet(t, n)
		for _, name := range []string{"WRatio", "ratio"} {
			want := key[n][name]
			if len(want) != benchdata.QueryCount {
				t.Fatalf("answer key has %d queries for N=%d %s", len(want), n, name)
			}
			scorer, _ := ParseScorer(name)
			for qi, q := range queries {
				got, err := c.Extract(context.Background(), q, scorer, 20, 0)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want[qi]) {
					t.Errorf("N=%d %s query %d %q:\n got  %v\n want %v", n, name, qi, q, got, want[qi])
				}
			}
		}
	}
}

// benchExtract times one Extract per iteration, cycling through the 50
// queries, and also reports the median time per query and the process's
// CPU time per query (on a shared machine the steadier figure).
func benchExtract(b *testing.B, scorer Scorer, n, workers int) {
	c := benchSet(b, n).WithWorkers(workers)
	queries := benchData().Queries
	ctx := context.Background()
	for _, q := range queries { // warm-up
		if _, err := c.Extract(ctx, q, scorer, 20, 0); err != nil {
			b.Fatal(err)
		}
	}
	durs := make([]time.Duration, 0, b.N)
	cpu0 := cputime.Process()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := c.Extract(ctx, queries[i%len(queries)], scorer, 20, 0); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
	}
	b.StopTimer()
	b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/query")
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "median-ms/query")
}

// BenchmarkExtractWRatio is top 20 by WRatio over N labels preprocessed with
// DefaultProcess, one query per iteration, all cores (GOMAXPROCS). N=1000000
// is find_concepts at a million concepts (issue 21).
func BenchmarkExtractWRatio(b *testing.B) {
	for _, n := range []int{10000, 100000, 1000000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchExtract(b, ScorerWRatio, n, 0) })
	}
}

// BenchmarkExtractWRatioSingle is BenchmarkExtractWRatio on one goroutine,
// comparable with the single-threaded C++ figures of docs/fuzzy.md.
func BenchmarkExtractWRatioSingle(b *testing.B) {
	for _, n := range []int{10000, 100000, 1000000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchExtract(b, ScorerWRatio, n, 1) })
	}
}

// BenchmarkExtractRatio is top 20 by ratio, all cores and one goroutine.
func BenchmarkExtractRatio(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		for _, w := range []int{0, 1} {
			b.Run(fmt.Sprintf("N=%d/workers=%d", n, w), func(b *testing.B) { benchExtract(b, ScorerRatio, n, w) })
		}
	}
}

// BenchmarkNewChoices builds the Choices of N benchmark labels under
// DefaultProcess, as a server does for find_concepts when it starts
// (issue 21: at a million concepts, part of the start's CPU).
func BenchmarkNewChoices(b *testing.B) {
	for _, n := range []int{100000, 1000000} {
		labels := benchdata.Labels(n)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			cpu0 := cputime.Process()
			for b.Loop() {
				NewChoices(labels, DefaultProcess)
			}
			b.ReportMetric(float64((cputime.Process()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

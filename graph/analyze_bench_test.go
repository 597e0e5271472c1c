package graph_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/sqlite"
)

// The two vaults of the analyze_graph benchmarks: the default corpus of
// 10,000 notes (2,490 concepts), and 60,000 notes over a vocabulary large
// enough that 122,273 distinct concepts are linked.
var (
	bench10k  = corpus.Options{Seed: 42, Notes: 10000}
	bench100k = corpus.Options{Seed: 42, Notes: 60000, Concepts: 800000, TargetBytes: 500}
)

// cachedIndex returns the synced index of a generated vault. Generating
// and indexing 60,000 notes takes a minute or more, so the vault is kept
// under the temporary directory, named by its options, and reused by later
// runs (a sync of an unchanged vault only checks it).
func cachedIndex(tb testing.TB, o corpus.Options) *sqlite.DB {
	tb.Helper()
	ctx := context.Background()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("noema-analyze-bench-s%d-n%d-c%d-b%d", o.Seed, o.Notes, o.Concepts, o.TargetBytes))
	done := filepath.Join(dir, ".noema", "bench-complete")
	if _, err := os.Stat(done); err != nil {
		os.RemoveAll(dir)
		if _, err := corpus.Generate(ctx, dir, o); err != nil {
			tb.Fatal(err)
		}
	}
	db := noematest.SyncIndex(tb, dir)
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	return db
}

// BenchmarkAnalyze measures analyze_graph's parts on the concept graph of
// the 10,000-note vault and of the 100,000-concept vault:
//
//	go test -run '^$' -bench Analyze -benchtime 5x ./graph/
//	go test -run '^$' -bench 'Analyze/N=10k' -benchtime 5x ./graph/
//
// TestAnalyzeSpeed puts the same numbers beside python3-igraph's and
// networkx's.
func BenchmarkAnalyze(b *testing.B) {
	for _, c := range []struct {
		name string
		o    corpus.Options
	}{{"N=10k", bench10k}, {"C=100k", bench100k}} {
		b.Run(c.name, func(b *testing.B) {
			db := cachedIndex(b, c.o)
			ctx := context.Background()
			x, err := graph.Export(ctx, db.Graph())
			if err != nil {
				b.Fatal(err)
			}
			g := graph.ConceptGraph(x)
			b.Logf("concept graph: %d nodes, %d edges", g.N(), g.Edges())
			noematest.Bench(b, "Export", func() error { _, err := graph.Export(ctx, db.Graph()); return err })
			noematest.Bench(b, "ConceptGraph", func() error { graph.ConceptGraph(x); return nil })
			noematest.Bench(b, "ConceptLinks", func() error { _, err := db.Graph().ConceptLinks(ctx); return err })
			l, err := db.Graph().ConceptLinks(ctx)
			if err != nil {
				b.Fatal(err)
			}
			noematest.Bench(b, "ConceptGraphOf", func() error { graph.ConceptGraphOf(l); return nil })
			for _, op := range speedOps(g) {
				noematest.Bench(b, op.name, func() error { op.run(); return nil })
			}
			a := graph.NewAnalyzer(db.Graph())
			if _, err := a.Analyze(ctx, graph.AnalyzeOptions{Op: graph.OpCommunities}); err != nil {
				b.Fatal(err)
			}
			noematest.Bench(b, "CachedCommunities", func() error { _, err := a.Analyze(ctx, graph.AnalyzeOptions{Op: graph.OpCommunities}); return err })
		})
	}
}

type speedOp struct {
	name string
	run  func()
}

// speedOps are the timed analyses, named as bench_igraph.py names its
// counterparts.
func speedOps(g *graph.Weighted) []speedOp {
	pr, _ := graph.PageRank(g, graph.PageRankAlpha, nil)
	var top int32
	for i := range pr {
		if pr[i] > pr[top] {
			top = int32(i)
		}
	}
	other := int32(g.N() / 2)
	samples := graph.BetweennessSamplesFor(g)
	return []speedOp{
		{"PageRank", func() { graph.PageRank(g, graph.PageRankAlpha, nil) }},
		{"Louvain", func() { graph.Louvain(g, 1, 1) }},
		{"Betweenness", func() { graph.Betweenness(g, samples, 1) }},
		{"AdamicAdarTop20", func() { graph.AdamicAdar(g, -1, 20) }},
		{"AdamicAdarHub", func() { graph.AdamicAdar(g, top, 20) }},
		{"PathsHubDepth3", func() { graph.SimplePaths(g, top, other, 3, 20) }},
	}
}

// TestAnalyzeSpeed times the analyses side by side with python3-igraph
// (its C core is the reference) and networkx on the same concept graphs,
// and prints a table. It runs only when NOEMA_ANALYZE_SPEED names the
// vaults: "10k", "100k" or "10k,100k". The interpreter is $NOEMA_IGRAPH_PYTHON,
// else $NOEMA_PYTHON, else python3; without igraph only Go's numbers are
// printed, unless NOEMA_REQUIRE_IGRAPH=1. Example:
//
//	NOEMA_ANALYZE_SPEED=10k,100k go test -run AnalyzeSpeed -v -timeout 30m ./graph/
func TestAnalyzeSpeed(t *testing.T) {
	which := os.Getenv("NOEMA_ANALYZE_SPEED")
	if which == "" {
		t.Skip("set NOEMA_ANALYZE_SPEED=10k,100k to time the analyses beside igraph and networkx")
	}
	python := os.Getenv("NOEMA_IGRAPH_PYTHON")
	if python == "" {
		python = os.Getenv("NOEMA_PYTHON")
	}
	if python == "" {
		python = "python3"
	}
	haveIgraph := exec.Command(python, "-c", "import igraph").Run() == nil
	if !haveIgraph && os.Getenv("NOEMA_REQUIRE_IGRAPH") == "1" {
		t.Fatalf("%s cannot import igraph", python)
	}
	for _, c := range []struct {
		name string
		o    corpus.Options
	}{{"10k", bench10k}, {"100k", bench100k}} {
		if !slices.Contains(strings.Split(which, ","), c.name) {
			continue
		}
		db := cachedIndex(t, c.o)
		ctx := context.Background()
		var l *noema.ConceptLinks
		readTime := timeIt(3, func() {
			var err error
			if l, err = db.Graph().ConceptLinks(ctx); err != nil {
				t.Fatal(err)
			}
		})
		var g *graph.Weighted
		buildTime := timeIt(3, func() { g = graph.ConceptGraphOf(l) })
		cold := timeIt(3, func() {
			if _, err := graph.NewAnalyzer(db.Graph()).Analyze(ctx, graph.AnalyzeOptions{Op: graph.OpPageRank}); err != nil {
				t.Fatal(err)
			}
		})
		a := graph.NewAnalyzer(db.Graph())
		a.Analyze(ctx, graph.AnalyzeOptions{Op: graph.OpCommunities})
		cached := timeIt(3, func() {
			if _, err := a.Analyze(ctx, graph.AnalyzeOptions{Op: graph.OpCommunities}); err != nil {
				t.Fatal(err)
			}
		})
		var report bytes.Buffer
		fmt.Fprintf(&report, "\nconcept graph of the %s vault: %d nodes, %d edges\n", c.name, g.N(), g.Edges())
		fmt.Fprintf(&report, "%-34s %12s\n", "go: read concept links (sqlite)", ms(readTime))
		fmt.Fprintf(&report, "%-34s %12s\n", "go: build the concept graph", ms(buildTime))
		fmt.Fprintf(&report, "%-34s %12s\n", "go: pagerank, cold (read+build+op)", ms(cold))
		fmt.Fprintf(&report, "%-34s %12s\n", "go: communities, cached", ms(cached))
		goTimes, goCPU := map[string]time.Duration{}, map[string]time.Duration{}
		for _, op := range speedOps(g) {
			goTimes[op.name], goCPU[op.name] = timeCPU(3, op.run)
		}
		// The same graph for Python: one "a b weight" line per edge, by
		// node number, self-loops included.
		edges := filepath.Join(t.TempDir(), "edges.txt")
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "%d\n", g.N())
		for i := range g.N() {
			if g.Self[i] > 0 {
				fmt.Fprintf(&buf, "%d %d %g\n", i, i, g.Self[i])
			}
			adj, w := g.Neighbors(int32(i))
			for k, j := range adj {
				if j > int32(i) {
					fmt.Fprintf(&buf, "%d %d %g\n", i, j, w[k])
				}
			}
		}
		if err := os.WriteFile(edges, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		py := map[string]map[string]string{}
		if haveIgraph {
			args := []string{filepath.Join("testdata", "bench_igraph.py"), edges, fmt.Sprintf("--samples=%d", graph.BetweennessSamplesFor(g))}
			if c.name == "100k" {
				args = append(args, "--no-networkx") // minutes per op at this size
			}
			cmd := exec.Command(python, args...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Errorf("bench_igraph.py: %v\n%s", err, errb.Bytes()) // print what it timed before failing
			}
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				f := strings.Fields(line) // lib op wall-seconds cpu-seconds
				if len(f) >= 4 {
					if py[f[1]] == nil {
						py[f[1]] = map[string]string{}
					}
					py[f[1]][f[0]] = f[2]
					py[f[1]][f[0]+"/cpu"] = f[3]
				}
			}
		}
		fmt.Fprintf(&report, "wall time, median of 3 (networkx: 1 run); CPU time in brackets\n")
		fmt.Fprintf(&report, "%-16s %24s %24s %24s\n", "op", "noema (Go)", "igraph", "networkx")
		for _, op := range speedOps(g) {
			fmt.Fprintf(&report, "%-16s %24s %24s %24s\n", op.name, ms(goTimes[op.name])+" ["+ms(goCPU[op.name])+"]",
				pyMs(py[op.name]["igraph"], py[op.name]["igraph/cpu"]), pyMs(py[op.name]["networkx"], py[op.name]["networkx/cpu"]))
		}
		if s := graph.BetweennessSamplesFor(g); s > 0 {
			fmt.Fprintf(&report, "Betweenness: estimated from %d sampled sources\n", s)
		}
		t.Log(report.String())
	}
}

// timeIt runs fn n times and returns the median wall time.
func timeIt(n int, fn func()) time.Duration {
	wall, _ := timeCPU(n, fn)
	return wall
}

// timeCPU runs fn n times and returns the median wall time and the median
// CPU time (all threads: work spread over cores counts in full).
func timeCPU(n int, fn func()) (wall, cpu time.Duration) {
	var ws, cs []time.Duration
	for range n {
		c0 := cpuTime()
		start := time.Now()
		fn()
		ws = append(ws, time.Since(start))
		cs = append(cs, cpuTime()-c0)
	}
	slices.Sort(ws)
	slices.Sort(cs)
	return ws[len(ws)/2], cs[len(cs)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func pyMs(wall, cpu string) string {
	if wall == "" {
		return "-"
	}
	var w, c float64
	fmt.Sscan(wall, &w)
	fmt.Sscan(cpu, &c)
	return fmt.Sprintf("%.1f ms [%.1f ms]", w*1000, c*1000)
}

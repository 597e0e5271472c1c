package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/sqlite"
)

// analyzeVault generates a seeded vault of n notes, adds notes with typed
// relations (weighted, unweighted, a concept's relation to itself, to a
// note, and a dangling one), syncs it into a fresh index and returns it.
func analyzeVault(tb testing.TB, n, concepts, links int) (*sqlite.DB, string) {
	tb.Helper()
	ctx := context.Background()
	dir := filepath.Join(tb.TempDir(), "vault")
	m, err := corpus.Generate(ctx, dir, corpus.Options{Seed: 7, Notes: n, Concepts: concepts, LinksPerNote: links})
	if err != nil {
		tb.Fatal(err)
	}
	label := func(i int) string { return m.Concepts[i%len(m.Concepts)].Label }
	extra := map[string]string{
		"concepts/rel-a.md": fmt.Sprintf("---\nconcept: %s\nrelations:\n  - {type: related_to, to: \"[[%s]]\", weight: 2.5}\n"+
			"  - {type: part_of, to: \"[[%s]]\"}\n  - {type: same_as, to: \"[[%s]]\"}\n  - {type: cites, to: \"memory://rel-note\"}\n"+
			"  - {type: see_also, to: \"[[No Such Concept Anywhere]]\"}\n---\nA page.\n", label(0), label(1), label(len(m.Concepts)-1), label(0)),
		"rel-note.md":  fmt.Sprintf("---\nrelations:\n  - {type: about, to: \"[[%s]]\", weight: 3}\n---\nAbout [[%s]] and [[%s]].\n", label(2), label(2), label(3)),
		"long-list.md": longList(label, 3*graph.CooccurrenceWindow),
	}
	treetest.WriteAll(tb, dir, extra)
	db := noematest.SyncIndex(tb, dir)
	return db, dir
}

// longList is a note of n distinct concepts, each linked twice (in two
// spellings, the second far after the first), more than a co-occurrence
// window holds: the concept graph joins only the nearby ones.
func longList(label func(int) string, n int) string {
	var b strings.Builder
	b.WriteString("# A long list\n\n")
	for i := range n {
		fmt.Fprintf(&b, "- [[%s]]\n", label(5+i*7))
	}
	for i := range n {
		fmt.Fprintf(&b, "- [[%s]]\n", strings.ToUpper(label(5+i*7)))
	}
	return b.String()
}

// nxAnswers is what the Go side computed, for check_analyze.py to compare.
type nxAnswers struct {
	Graph string `json:"graph"`
	// Window and Pairs are graph.CooccurrenceWindow and
	// graph.CooccurrencePairs, for the rebuild (graph.WindowOf).
	Window      int                `json:"window"`
	Pairs       int                `json:"pairs"`
	PageRank    map[string]float64 `json:"pagerank"`
	Seeds       []string           `json:"seeds"`
	Personal    map[string]float64 `json:"personal"`
	Betweenness map[string]float64 `json:"betweenness"`
	Louvain     []nxLouvain        `json:"louvain"`
	AA          [][3]any           `json:"adamic_adar"`
	AAOne       nxAAOne            `json:"adamic_adar_one"`
	Paths       []nxPaths          `json:"paths"`
}

type nxLouvain struct {
	Seed       uint64     `json:"seed"`
	Modularity float64    `json:"modularity"`
	Partition  [][]string `json:"partition"`
}

type nxAAOne struct {
	Node  string             `json:"node"`
	Links map[string]float64 `json:"links"`
}

type nxPaths struct {
	From   string     `json:"from"`
	To     string     `json:"to"`
	Cutoff int        `json:"cutoff"`
	Paths  [][]string `json:"paths"`
}

func answers(t *testing.T, g *graph.Weighted, pairs [][2]int32) nxAnswers {
	a := nxAnswers{Graph: g.Kind, Window: graph.CooccurrenceWindow, Pairs: graph.CooccurrencePairs, PageRank: map[string]float64{}, Personal: map[string]float64{}, Betweenness: map[string]float64{}}
	pr, _ := graph.PageRank(g, graph.PageRankAlpha, nil)
	for i, v := range pr {
		a.PageRank[g.IDs[i]] = v
	}
	p := make([]float64, g.N())
	for _, i := range []int{0, g.N() / 2} {
		p[i] = 1
		a.Seeds = append(a.Seeds, g.IDs[i])
	}
	ppr, _ := graph.PageRank(g, graph.PageRankAlpha, p)
	for i, v := range ppr {
		a.Personal[g.IDs[i]] = v
	}
	bc, exact := graph.Betweenness(g, 0, 1)
	if !exact {
		t.Fatal("betweenness not exact")
	}
	for i, v := range bc {
		a.Betweenness[g.IDs[i]] = v
	}
	for _, seed := range []uint64{1, 2, 3} {
		comm, q := graph.Louvain(g, 1, seed)
		again, _ := graph.Louvain(g, 1, seed)
		if !slices.Equal(comm, again) {
			t.Fatalf("Louvain seed %d: two runs differ", seed)
		}
		parts := make([][]string, slices.Max(comm)+1)
		for i, c := range comm {
			parts[c] = append(parts[c], g.IDs[i])
		}
		a.Louvain = append(a.Louvain, nxLouvain{Seed: seed, Modularity: q, Partition: parts})
	}
	for _, l := range graph.AdamicAdar(g, -1, 200) {
		a.AA = append(a.AA, [3]any{g.IDs[l.A], g.IDs[l.B], l.Score})
	}
	one := int32(g.N() / 3)
	a.AAOne = nxAAOne{Node: g.IDs[one], Links: map[string]float64{}}
	for _, l := range graph.AdamicAdar(g, one, g.N()) {
		a.AAOne.Links[g.IDs[l.B]] = l.Score
	}
	for _, pr := range pairs {
		for _, cutoff := range []int{1, 2, 3} {
			ps, more, trunc := graph.SimplePaths(g, pr[0], pr[1], cutoff, 1_000_000)
			if more || trunc {
				t.Fatalf("paths %v cut short", pr)
			}
			np := nxPaths{From: g.IDs[pr[0]], To: g.IDs[pr[1]], Cutoff: cutoff, Paths: [][]string{}}
			for _, p := range ps {
				ids := make([]string, len(p.Nodes))
				for k, i := range p.Nodes {
					ids[k] = g.IDs[i]
				}
				np.Paths = append(np.Paths, ids)
			}
			a.Paths = append(a.Paths, np)
		}
	}
	return a
}

// TestAnalyzeNetworkx checks every analysis against networkx on the same
// graphs, rebuilt by graph/testdata/check_analyze.py from the JSON export
// alone with the documented definition (docs/graph.md): PageRank (plain and
// personalised) within 1e-6, exact betweenness, Adamic–Adar scores, the
// set of all simple paths with a cutoff, and Louvain modularity not below
// networkx's by more than 0.01, with identical partitions for identical
// seeds on both sides. The interpreter is $NOEMA_PYTHON (default python3).
// Without networkx the test is skipped, unless NOEMA_REQUIRE_NETWORKX=1.
func TestAnalyzeNetworkx(t *testing.T) {
	python := networkx(t)
	db, _ := analyzeVault(t, 300, 150, 4)
	x, err := graph.Export(context.Background(), db.Graph())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var js bytes.Buffer
	if err := graph.WriteJSON(&js, x); err != nil {
		t.Fatal(err)
	}
	exportPath := filepath.Join(dir, "export.json")
	if err := os.WriteFile(exportPath, js.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var all []nxAnswers
	for _, g := range []*graph.Weighted{graph.ConceptGraph(x), graph.FullGraph(x)} {
		if g.N() < 50 || g.Edges() < 50 {
			t.Fatalf("%s graph too small to test: %d nodes, %d edges", g.Kind, g.N(), g.Edges())
		}
		// Path ends: the two best-ranked nodes, and two nodes far apart in
		// the numbering.
		pr, _ := graph.PageRank(g, graph.PageRankAlpha, nil)
		top := make([]int32, g.N())
		for i := range top {
			top[i] = int32(i)
		}
		slices.SortFunc(top, func(a, b int32) int {
			if pr[a] > pr[b] {
				return -1
			}
			if pr[a] < pr[b] {
				return 1
			}
			return int(a - b)
		})
		pairs := [][2]int32{{top[0], top[1]}, {top[2], top[len(top)/2]}, {int32(g.N() - 1), int32(g.N() / 4)}}
		all = append(all, answers(t, g, pairs))
	}
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	answersPath := filepath.Join(dir, "answers.json")
	if err := os.WriteFile(answersPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	runCheck(t, python, "check_analyze.py", exportPath, answersPath)
}

// TestConceptLinksMatchExport checks the index's fast path (ConceptLinks)
// against the definition on the export: the same graph, edge for edge,
// relations included (a weighted one, an unweighted one, a concept's
// relation to itself; those to notes and dangling ones left out).
func TestConceptLinksMatchExport(t *testing.T) {
	db, _ := analyzeVault(t, 120, 60, 4)
	ctx := context.Background()
	x, err := graph.Export(ctx, db.Graph())
	if err != nil {
		t.Fatal(err)
	}
	want := graph.ConceptGraph(x)
	l, err := db.Graph().ConceptLinks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := graph.ConceptGraphOf(l)
	if !slices.Equal(got.IDs, want.IDs) || !slices.Equal(got.Labels, want.Labels) || !slices.Equal(got.Off, want.Off) ||
		!slices.Equal(got.Adj, want.Adj) || !slices.Equal(got.W, want.W) || !slices.Equal(got.Self, want.Self) {
		t.Fatalf("ConceptLinks graph differs from the export's: %d/%d nodes, %d/%d edges", got.N(), want.N(), got.Edges(), want.Edges())
	}
	loops := 0
	for i := range want.N() {
		if want.Self[i] > 0 {
			loops++
			if want.Self[i] != 1 {
				t.Errorf("self-loop of %s weighs %v, want 1 (an unweighted same_as)", want.Labels[i], want.Self[i])
			}
		}
	}
	if loops != 1 {
		t.Errorf("%d self-loops, want 1", loops)
	}
	frac := 0
	for _, w := range want.W {
		if w != float64(int(w)) {
			frac++
		}
	}
	if frac != 2 { // the 2.5-weighted relation, seen from both ends
		t.Errorf("%d adjacency entries with a fractional weight, want 2", frac)
	}
	// Through the Analyzer, which uses the fast path: the same PageRank.
	res, err := graph.NewAnalyzer(db.Graph()).Analyze(ctx, graph.AnalyzeOptions{Op: graph.OpPageRank, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	pr, _ := graph.PageRank(want, graph.PageRankAlpha, nil)
	if i, _ := want.Index(res.Nodes[0].ID); res.Nodes[0].Score != pr[i] || res.GraphNodes != want.N() {
		t.Errorf("analyzer pagerank %+v, want %v", res.Nodes[0], pr[i])
	}
}

// TestAnalyzerConcurrent calls one Analyzer from many goroutines at once
// (run it with -race): every op, the community lookup, and equal answers
// for equal questions.
func TestAnalyzerConcurrent(t *testing.T) {
	db, _ := analyzeVault(t, 80, 40, 4)
	ctx := context.Background()
	a := graph.NewAnalyzer(db.Graph())
	g, err := a.Graph(ctx, graph.AnalyzeConcepts)
	if err != nil {
		t.Fatal(err)
	}
	ops := []graph.AnalyzeOptions{
		{Op: graph.OpPageRank}, {Op: graph.OpCommunities}, {Op: graph.OpCentrality}, {Op: graph.OpPredictLinks},
		{Op: graph.OpPaths, From: g.IDs[0], To: g.IDs[1]}, {Op: graph.OpPageRank, Graph: graph.AnalyzeFull},
	}
	want := make([]string, len(ops))
	for i, o := range ops {
		res, err := graph.NewAnalyzer(db.Graph()).Analyze(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		want[i] = string(b)
	}
	errs := make(chan error, 64)
	done := make(chan struct{})
	for k := range 24 {
		go func() {
			defer func() { done <- struct{}{} }()
			i := k % (len(ops) + 1)
			if i == len(ops) {
				if _, err := a.ConceptCommunity(ctx, g.IDs[k%g.N()], 3); err != nil {
					errs <- err
				}
				return
			}
			res, err := a.Analyze(ctx, ops[i])
			if err != nil {
				errs <- err
				return
			}
			if b, _ := json.Marshal(res); string(b) != want[i] {
				errs <- fmt.Errorf("%s: concurrent answer differs", ops[i].Op)
			}
		}()
	}
	for range 24 {
		<-done
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

package search_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/noema-mem/noema/search"
)

var (
	evalFlag  = flag.Bool("eval", false, "run the retrieval-quality evaluation (TestEval) over the Go package docs")
	evalSweep = flag.Bool("eval.sweep", false, "with -eval, also report a sweep of the tuning weights")
)

// goDocs returns one note per standard-library package that has a package
// doc comment: title = import path, body = the doc text.
func goDocs(tb testing.TB) map[string]string {
	tb.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	docs := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		for _, e := range strings.Split(rel, "/") {
			if e == "cmd" || e == "internal" || e == "vendor" || e == "testdata" || e == "builtin" ||
				strings.HasPrefix(e, "_") || (strings.HasPrefix(e, ".") && e != ".") {
				return filepath.SkipDir
			}
		}
		fset := token.NewFileSet()
		pkgs, _ := parser.ParseDir(fset, p, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") },
			parser.ParseComments|parser.PackageClauseOnly)
		for name, pkg := range pkgs {
			if strings.HasSuffix(name, "_test") || name == "main" {
				continue
			}
			doc := ""
			for _, f := range pkg.Files {
				if f.Doc != nil && len(f.Doc.Text()) > len(doc) {
					doc = f.Doc.Text()
				}
			}
			if doc != "" {
				docs[rel] = doc
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return docs
}

type question struct {
	text string
	want []string
}

func loadQuestions(tb testing.TB, have map[string]string) (qs []question, skipped int) {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "eval.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		q, want, ok := strings.Cut(line, "\t")
		if !ok {
			tb.Fatalf("bad line %q", line)
		}
		var ws []string
		for _, w := range strings.Split(want, ",") {
			if _, ok := have[w]; ok {
				ws = append(ws, w)
			}
		}
		if len(ws) == 0 {
			skipped++
			continue
		}
		qs = append(qs, question{q, ws})
	}
	return qs, skipped
}

// metrics are recall@5 (share of a question's expected notes in the top 5,
// averaged) and MRR@10 (1/rank of the first expected note in the top 10).
type metrics struct{ recall5, mrr10 float64 }

func score(qs []question, ranked func(q string) []string) metrics {
	var m metrics
	for _, q := range qs {
		got := ranked(q.text)
		want := map[string]bool{}
		for _, w := range q.want {
			want[w] = true
		}
		found := 0
		for i, g := range got {
			if i < 5 && want[g] {
				found++
			}
		}
		m.recall5 += float64(found) / float64(len(q.want))
		for i, g := range got {
			if i >= 10 {
				break
			}
			if want[g] {
				m.mrr10 += 1 / float64(i+1)
				break
			}
		}
	}
	m.recall5 /= float64(len(qs))
	m.mrr10 /= float64(len(qs))
	return m
}

// TestEval reports retrieval quality on the Go standard library's package
// docs (text nobody on the project wrote) with the hand-written questions
// of testdata/eval.tsv:
//
//	go test ./search -run TestEval -eval -v
//
// It fails if hybrid ranks worse than full text alone.
func TestEval(t *testing.T) {
	if !*evalFlag {
		t.Skip("retrieval evaluation: run with -eval")
	}
	ctx := context.Background()
	e := newEnv(t)
	docs := goDocs(t)
	root := e.a.Vault.Root
	for ip, doc := range docs {
		name := strings.ReplaceAll(ip, "/", "-") + ".md"
		content := "---\ntitle: " + ip + "\n---\n" + doc
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.a.Sync(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	e.embed()
	qs, skipped := loadQuestions(t, docs)
	t.Logf("corpus: %d package docs from %s; %d questions (%d skipped: package missing)", len(docs), runtime.GOROOT(), len(qs), skipped)

	mode := func(svc *search.Service, m string) func(string) []string {
		return func(q string) []string {
			res, err := svc.Search(ctx, search.Input{Query: q, Mode: m, Limit: 10, Decay: off()})
			if err != nil {
				t.Fatal(err)
			}
			return titles(res)
		}
	}
	plain := func(q string) []string {
		hits, err := e.a.DB.SearchText(ctx, search.TextQuery{Match: search.PlainOR(q), Weights: [3]float64{1, 1, 1}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, h := range hits {
			ids = append(ids, h.ID)
		}
		notes, err := e.a.DB.SearchNotes(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, id := range ids {
			out = append(out, notes[id].Title)
		}
		return out
	}
	report := func(name string, m metrics) {
		t.Logf("%-34s recall@5 %.3f   MRR@10 %.3f", name, m.recall5, m.mrr10)
	}
	base := score(qs, plain)
	ft := score(qs, mode(e.svc, "fulltext"))
	sem := score(qs, mode(e.svc, "semantic"))
	hy := score(qs, mode(e.svc, "hybrid"))
	report("plain FTS5 BM25, words OR-ed", base)
	report("fulltext", ft)
	report("semantic ("+e.svc.Embedder.Name()+")", sem)
	report("hybrid", hy)
	if hy.mrr10 < ft.mrr10 || hy.recall5 < ft.recall5 {
		t.Errorf("hybrid (%+v) is worse than full text alone (%+v)", hy, ft)
	}
	if !*evalSweep {
		return
	}
	for _, tw := range []float64{1, 2, 4, 8} {
		svc := search.New(e.a.DB, e.svc.Embedder, e.svc.Decay)
		svc.Tuning.TitleWeight = tw
		report(fmt.Sprintf("fulltext title weight %g", tw), score(qs, mode(svc, "fulltext")))
	}
	for _, fl := range []float64{0, 0.5, 0.7, 0.8, 0.9} {
		for _, ws := range []float64{0.25, 0.5, 1} {
			svc := search.New(e.a.DB, e.svc.Embedder, e.svc.Decay)
			svc.Tuning.SemanticFloor, svc.Tuning.SemanticWeight = fl, ws
			report(fmt.Sprintf("hybrid floor %g weight %g", fl, ws), score(qs, mode(svc, "hybrid")))
		}
	}
}

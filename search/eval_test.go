package search_test

import (
	"bufio"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/search"
)

var (
	evalFlag   = flag.Bool("eval", false, "run the retrieval-quality evaluation (TestEval) over every eval set")
	evalSweep  = flag.Bool("eval.sweep", false, "with -eval, also report a sweep of the tuning weights")
	evalSets   = flag.String("eval.sets", "", "with -eval, only these sets (comma-separated names; default all)")
	evalModel  = flag.String("eval.minilm", "", "with -eval, embed with the minilm backend from this model folder (a meaning model) instead of the builtin")
	evalStatic = flag.Bool("eval.static", false, "with -eval, embed with the static backend (a meaning model distilled into the binary) instead of the builtin")
	evalWeight = flag.Float64("eval.weight", -1, "with -eval, measure hybrid at this Tuning.SemanticWeight instead of the default (a setting chosen on the tune sets, measured on the held-out ones)")
	evalFloor  = flag.Float64("eval.floor", -1, "with -eval, measure hybrid at this Tuning.SemanticFloor instead of the default")
	evalOpenAI = flag.String("eval.openai", "", "with -eval, embed with the openai backend at this base URL (a meaning model: e2e/meaning/server.mjs serves one) instead of the builtin")
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

// metrics are recall@5 and recall@10 (share of a question's expected notes
// in the top 5 or 10, averaged) and MRR@10 (1/rank of the first expected
// note in the top 10).
type metrics struct{ recall5, recall10, mrr10 float64 }

func score(qs []question, ranked func(q string) []string) metrics {
	var m metrics
	for _, q := range qs {
		got := ranked(q.text)
		want := map[string]bool{}
		for _, w := range q.want {
			want[w] = true
		}
		found5, found10 := 0, 0
		first := 0
		for i, g := range got {
			if i >= 10 {
				break
			}
			if want[g] {
				found10++
				if i < 5 {
					found5++
				}
				if first == 0 {
					first = i + 1
				}
			}
		}
		m.recall5 += float64(found5) / float64(len(q.want))
		m.recall10 += float64(found10) / float64(len(q.want))
		if first > 0 {
			m.mrr10 += 1 / float64(first)
		}
	}
	n := float64(len(qs))
	m.recall5, m.recall10, m.mrr10 = m.recall5/n, m.recall10/n, m.mrr10/n
	return m
}

// evalNote is a note of an eval set: its file name, title, and the body
// the plain FTS5 baseline indexes beside the title.
type evalNote struct{ file, title, content, body string }

// evalSet is a corpus and questions whose answers are note titles.
type evalSet struct {
	name      string
	notes     []evalNote
	questions []question
}

// goDocsSet is the Go standard library's package docs with the
// hand-written questions of testdata/eval.tsv (the regression set the
// first fusion was tuned on).
func goDocsSet(tb testing.TB) evalSet {
	docs := goDocs(tb)
	qs, _ := loadQuestions(tb, docs)
	set := evalSet{name: "go-docs", questions: qs}
	for ip, doc := range docs {
		set.notes = append(set.notes, evalNote{
			file: strings.ReplaceAll(ip, "/", "-") + ".md", title: ip,
			content: "---\ntitle: " + ip + "\n---\n" + doc, body: doc,
		})
	}
	return set
}

// dialogueSet is a generated multi-session conversation set (see
// corpus.Dialogues): one note per session, session-level evidence.
func dialogueSet(name string, o corpus.DialogueOptions) evalSet {
	d := corpus.Dialogues(o)
	set := evalSet{name: name}
	for _, n := range d.Notes {
		_, body, _ := strings.Cut(strings.TrimPrefix(n.Content, "---\n"), "\n---\n")
		set.notes = append(set.notes, evalNote{file: n.File, title: n.Title, content: n.Content, body: body})
	}
	for _, q := range d.Questions {
		set.questions = append(set.questions, question{q.Text, q.Evidence})
	}
	return set
}

// speakersLine is the front-matter line of a dialogue note naming its
// two speakers.
var speakersLine = regexp.MustCompile(`(?m)^speakers: \[([^,\]]+), ([^\]]+)\]$`)

// linkSpeakers is set with a last line in every note linking its two
// speakers as concepts ("With [[A]] and [[B]]."), as an agent keeping
// chats in a vault would: its questions then name a concept in passing
// ("What did Caroline make in ceramics?"), which lifts that speaker's
// sessions and, by Tuning.NamedShrink, may weaken the semantic list
// exactly where it finds paraphrases. The check on that rule.
func linkSpeakers(tb testing.TB, set evalSet) evalSet {
	tb.Helper()
	out := evalSet{name: set.name + "-linked", questions: set.questions}
	for _, n := range set.notes {
		m := speakersLine.FindStringSubmatch(n.content)
		if m == nil {
			tb.Fatalf("%s: %s names no speakers", set.name, n.file)
		}
		line := "\n\nWith [[" + m[1] + "]] and [[" + m[2] + "]].\n"
		n.content += line
		n.body += line
		out.notes = append(out.notes, n)
	}
	return out
}

// conceptSet is a vault generated by corpus.Generate (notes linking
// concepts, seeded) plus a page, with an alias, for every other concept
// asked about; its questions name a concept the way a user does who does
// not remember its spelling: by its label, by its alias (the page's
// front matter: no other note spells it), or by its label one typo away.
// The evidence is the notes that link the concept, and its page.
func conceptSet(tb testing.TB, name string, seed uint64) evalSet {
	return conceptSetSized(tb, name, seed, 600, 60)
}

// conceptSetSized is conceptSet with notes notes and questions about at
// most concepts concepts.
func conceptSetSized(tb testing.TB, name string, seed uint64, notes, concepts int) evalSet {
	tb.Helper()
	dir := tb.TempDir()
	m, err := corpus.Generate(context.Background(), dir, corpus.Options{Seed: seed, Notes: notes, TargetBytes: 900})
	if err != nil {
		tb.Fatal(err)
	}
	set := evalSet{name: name}
	taken := map[string]bool{} // keys of titles and concepts
	linking := map[string][]string{}
	for _, n := range m.Notes {
		raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n.Path)))
		if err != nil {
			tb.Fatal(err)
		}
		content := string(raw)
		body := content
		if strings.HasPrefix(content, "---\n") {
			if _, b, ok := strings.Cut(content[4:], "\n---\n"); ok {
				body = b
			}
		}
		set.notes = append(set.notes, evalNote{file: n.Path, title: n.Title, content: content, body: body})
		taken[strings.ToLower(n.Title)] = true
		seen := map[string]bool{}
		for _, l := range n.Links {
			if !seen[l.Label] {
				seen[l.Label] = true
				linking[l.Label] = append(linking[l.Label], n.Title)
			}
		}
	}
	for _, c := range m.Concepts {
		taken[strings.ToLower(c.Label)] = true
	}
	r := rand.New(rand.NewPCG(seed, 1))
	frames := []string{"%s", "notes on %s", "what do I know about %s", "what did I write about %s?"}
	asked := 0
	for _, c := range m.Concepts {
		ev := linking[c.Label]
		if len(ev) < 2 || len(ev) > 6 || !isASCIILetters(c.Label) || len(c.Label) < 6 {
			continue
		}
		frame := frames[r.IntN(len(frames))]
		words := strings.Fields(c.Label)
		if asked%2 == 0 {
			// A page with an alias: the initials of a name of several
			// words, else its first four letters and "x".
			alias := ""
			if len(words) > 1 {
				for _, w := range words {
					alias += strings.ToUpper(w[:1])
				}
			} else {
				alias = c.Label[:4] + "x"
			}
			if !taken[strings.ToLower(alias)] {
				taken[strings.ToLower(alias)] = true
				set.notes = append(set.notes, evalNote{
					file: "concepts/" + c.Label + ".md", title: c.Label,
					content: "---\naliases: [" + alias + "]\n---\nOverview.\n", body: "Overview.\n",
				})
				ev = append(slices.Clone(ev), c.Label)
				set.questions = append(set.questions, question{fmt.Sprintf(frame, alias), ev})
			}
		}
		// One typo: two adjacent letters of its longest word swapped.
		long := 0
		for i, w := range words {
			if len(w) > len(words[long]) {
				long = i
			}
		}
		if w := words[long]; len(w) >= 5 {
			i := 1 + r.IntN(len(w)-3)
			if w[i] != w[i+1] {
				typo := slices.Clone(words)
				typo[long] = w[:i] + string(w[i+1]) + string(w[i]) + w[i+2:]
				if t := strings.Join(typo, " "); !taken[strings.ToLower(t)] {
					set.questions = append(set.questions, question{fmt.Sprintf(frames[r.IntN(len(frames))], t), ev})
				}
			}
		}
		set.questions = append(set.questions, question{fmt.Sprintf(frames[r.IntN(len(frames))], c.Label), ev})
		if asked++; asked == concepts {
			break
		}
	}
	return set
}

func isASCIILetters(s string) bool {
	for _, r := range s {
		if !(r == ' ' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return true
}

// The dialogue sets: tuning weights are chosen on the "tune" sets only;
// "held-out" ones (another seed, speaker names and events) report.
var (
	dialogueTune    = corpus.DialogueOptions{Seed: 11, Split: corpus.SplitTune, Conversations: 6, Sessions: 16}
	dialogueHeldOut = corpus.DialogueOptions{Seed: 29, Split: corpus.SplitHeldOut, Conversations: 6, Sessions: 16}
	// The second style (sessions of very different lengths, longer turns,
	// dates written otherwise), per session and per exchange.
	dialogueLongTune    = corpus.DialogueOptions{Seed: 13, Split: corpus.SplitTune, Style: corpus.StyleLong, Conversations: 6, Sessions: 16}
	dialogueLongHeldOut = corpus.DialogueOptions{Seed: 31, Split: corpus.SplitHeldOut, Style: corpus.StyleLong, Conversations: 6, Sessions: 16}
	// Two more tuning seeds of the second style (issue 20, round 5): where
	// long-held-out's recall@10 trails plain FTS5 porter, the ranking's
	// changes are weighed on these and long-tune, never on long-held-out.
	dialogueLongTune2       = corpus.DialogueOptions{Seed: 53, Split: corpus.SplitTune, Style: corpus.StyleLong, Conversations: 6, Sessions: 16}
	dialogueLongTune3       = corpus.DialogueOptions{Seed: 59, Split: corpus.SplitTune, Style: corpus.StyleLong, Conversations: 6, Sessions: 16}
	dialogueExchangeTune    = corpus.DialogueOptions{Seed: 17, Split: corpus.SplitTune, Style: corpus.StyleLong, Exchanges: true, Conversations: 6, Sessions: 16}
	dialogueExchangeHeldOut = corpus.DialogueOptions{Seed: 37, Split: corpus.SplitHeldOut, Style: corpus.StyleLong, Exchanges: true, Conversations: 6, Sessions: 16}
	// The small sets of TestDialogueRecall (default go test).
	dialogueTuneSmall        = corpus.DialogueOptions{Seed: 5, Split: corpus.SplitTune, Conversations: 3, Sessions: 8}
	dialogueHeldOutSmall     = corpus.DialogueOptions{Seed: 7, Split: corpus.SplitHeldOut, Conversations: 3, Sessions: 8}
	dialogueLongHeldOutSmall = corpus.DialogueOptions{Seed: 9, Split: corpus.SplitHeldOut, Style: corpus.StyleLong, Conversations: 3, Sessions: 8}
)

// evalRun is an eval set indexed by noema (synced and embedded) and by two
// plain FTS5 tables.
type evalRun struct {
	t     testing.TB
	set   evalSet
	e     *env
	plain *sql.DB
}

// indexSet writes the set's notes into a fresh vault, syncs and embeds
// them, and fills the plain FTS5 tables: fts5 (the default tokenizer,
// unicode61) and fts5_porter, columns (title, body), default bm25.
func indexSet(t testing.TB, set evalSet) *evalRun {
	t.Helper()
	ctx := context.Background()
	var e *env
	switch {
	case *evalModel != "":
		cfg := config.Default()
		cfg.Embedder.SwitchBackend(config.BackendMiniLM)
		cfg.Embedder.ModelDir = *evalModel
		e = newEnvWith(t, app.Options{Config: &cfg})
	case *evalStatic:
		cfg := config.Default()
		cfg.Embedder.SwitchBackend(config.BackendStatic)
		e = newEnvWith(t, app.Options{Config: &cfg})
	case *evalOpenAI != "":
		cfg := config.Default()
		cfg.Embedder.SwitchBackend(config.BackendOpenAI)
		cfg.Embedder.URL = *evalOpenAI
		cfg.Embedder.Model = "use-lite-512"
		e = newEnvWith(t, app.Options{Config: &cfg})
	default:
		e = newEnv(t)
	}
	root := e.a.Vault.Root
	for _, n := range set.notes {
		name := filepath.Join(root, filepath.FromSlash(n.file))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(n.content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.a.Sync(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	e.embed()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE fts5 USING fts5(title, body)`,
		`CREATE VIRTUAL TABLE fts5_porter USING fts5(title, body, tokenize='porter unicode61')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range set.notes {
		for _, table := range []string{"fts5", "fts5_porter"} {
			if _, err := db.Exec(`INSERT INTO `+table+`(title, body) VALUES (?, ?)`, n.title, n.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	return &evalRun{t: t, set: set, e: e, plain: db}
}

// plainQuery is the baseline's MATCH expression: every word of q (a run of
// letters and digits) as an FTS5 string, OR-ed; no stop words removed.
func plainQuery(q string) string {
	var parts []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if k := strings.ToLower(w); !seen[k] {
			seen[k] = true
			parts = append(parts, `"`+w+`"`)
		}
	}
	return strings.Join(parts, " OR ")
}

// plainRanked ranks by plain FTS5 BM25 over table.
func (r *evalRun) plainRanked(table string) func(string) []string {
	return func(q string) []string {
		m := plainQuery(q)
		if m == "" {
			return nil
		}
		rows, err := r.plain.Query(`SELECT title FROM `+table+` WHERE `+table+` MATCH ? ORDER BY bm25(`+table+`), title LIMIT 10`, m)
		if err != nil {
			r.t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var title string
			if err := rows.Scan(&title); err != nil {
				r.t.Fatal(err)
			}
			out = append(out, title)
		}
		if err := rows.Err(); err != nil {
			r.t.Fatal(err)
		}
		return out
	}
}

// ranked ranks by the service in mode.
func (r *evalRun) ranked(svc *search.Service, mode string) func(string) []string {
	return func(q string) []string {
		res, err := svc.Search(context.Background(), search.Input{Query: q, Mode: mode, Limit: 10, Decay: off()})
		if err != nil {
			r.t.Fatal(err)
		}
		return titles(res)
	}
}

// evalRow is one line of the eval table.
type evalRow struct {
	set, method string
	m           metrics
}

// measure scores every method on the run: plain FTS5 (both tables) and
// the service's three modes.
func (r *evalRun) measure() map[string]metrics {
	qs := r.set.questions
	out := map[string]metrics{
		"fts5":        score(qs, r.plainRanked("fts5")),
		"fts5 porter": score(qs, r.plainRanked("fts5_porter")),
	}
	for _, mode := range []string{search.ModeFulltext, search.ModeSemantic, search.ModeHybrid} {
		out[mode] = score(qs, r.ranked(r.e.svc, mode))
	}
	return out
}

// evalMethods is the order of the table's rows within a set.
var evalMethods = []string{"fts5", "fts5 porter", search.ModeFulltext, search.ModeSemantic, search.ModeHybrid}

// logTable prints the eval table.
func logTable(t testing.TB, rows []evalRow) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-22s %-12s %9s %9s %7s\n", "set", "method", "recall@5", "recall@10", "MRR@10")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-22s %-12s %9.3f %9.3f %7.3f\n", r.set, r.method, r.m.recall5, r.m.recall10, r.m.mrr10)
	}
	t.Log(b.String())
}

// checkDefault fails unless the default mode (hybrid) is at least as good
// as each of the others on every measure, less slack.
func checkDefault(t *testing.T, set string, ms map[string]metrics, slack float64, others ...string) {
	t.Helper()
	hy := ms[search.ModeHybrid]
	for _, other := range others {
		o := ms[other]
		if hy.recall5 < o.recall5-slack || hy.recall10 < o.recall10-slack || hy.mrr10 < o.mrr10-slack {
			t.Errorf("%s: hybrid %+v ranks below %s %+v", set, hy, other, o)
		}
	}
}

// TestEval reports retrieval quality on every eval set, for plain FTS5
// BM25 and each mode, in one table:
//
//		go test ./search -run TestEval -eval -v
//
//	  - go-docs: the Go standard library's package docs (text nobody on the
//	    project wrote) with the hand-written questions of testdata/eval.tsv;
//	  - dialogue-tune, dialogue-held-out: generated multi-session
//	    conversations (corpus.Dialogues), one note per session.
//
// It fails if the default mode ranks below plain FTS5 or fulltext on any
// set.
func TestEval(t *testing.T) {
	if !*evalFlag {
		t.Skip("retrieval evaluation: run with -eval")
	}
	sets := []evalSet{
		goDocsSet(t),
		dialogueSet("dialogue-tune", dialogueTune),
		dialogueSet("dialogue-held-out", dialogueHeldOut),
		dialogueSet("long-tune", dialogueLongTune),
		dialogueSet("long-tune-2", dialogueLongTune2),
		dialogueSet("long-tune-3", dialogueLongTune3),
		dialogueSet("long-held-out", dialogueLongHeldOut),
		dialogueSet("exchange-tune", dialogueExchangeTune),
		dialogueSet("exchange-held-out", dialogueExchangeHeldOut),
		linkSpeakers(t, dialogueSet("dialogue-tune", dialogueTune)),
		linkSpeakers(t, dialogueSet("exchange-tune", dialogueExchangeTune)),
		conceptSet(t, "concepts-tune", 41),
		conceptSet(t, "concepts-held-out", 43),
	}
	var rows []evalRow
	for _, set := range sets {
		if *evalSets != "" && !strings.Contains(","+*evalSets+",", ","+set.name+",") {
			continue
		}
		r := indexSet(t, set)
		if *evalWeight >= 0 {
			r.e.svc.Tuning.SemanticWeight = *evalWeight
		}
		if *evalFloor >= 0 {
			r.e.svc.Tuning.SemanticFloor = *evalFloor
		}
		t.Logf("%s: %d notes, %d questions", set.name, len(set.notes), len(set.questions))
		ms := r.measure()
		for _, m := range evalMethods {
			rows = append(rows, evalRow{set.name, m, ms[m]})
		}
		checkDefault(t, set.name, ms, 0, "fts5", "fts5 porter", search.ModeFulltext)
		if *evalSweep {
			sweep(t, r)
		}
	}
	logTable(t, rows)
}

// TestDialogueRecall is the fast part of the evaluation, in the default go
// test: small sets of each kind (chat sessions of both styles, a tuning
// and held-out ones, and concepts named by alias or typo), on which the
// default mode must rank at least as well as fulltext on every measure;
// where it ranks below plain FTS5 it says so in the log. (TestEval, with
// -eval, runs the larger sets and fails below FTS5 too.)
func TestDialogueRecall(t *testing.T) {
	var rows []evalRow
	for _, set := range []evalSet{
		dialogueSet("dialogue-tune-small", dialogueTuneSmall),
		dialogueSet("dialogue-held-small", dialogueHeldOutSmall),
		dialogueSet("long-held-small", dialogueLongHeldOutSmall),
		conceptSetSized(t, "concepts-held-small", 47, 200, 20),
	} {
		ms := indexSet(t, set).measure()
		for _, m := range evalMethods {
			rows = append(rows, evalRow{set.name, m, ms[m]})
		}
		checkDefault(t, set.name, ms, 0, search.ModeFulltext)
		// Plain FTS5 is reported, not asserted: on dialogue-held-small
		// the default trails FTS5 porter's MRR (docs/search.md).
		for _, other := range []string{"fts5", "fts5 porter"} {
			if hy, o := ms[search.ModeHybrid], ms[other]; hy.recall5 < o.recall5 || hy.recall10 < o.recall10 || hy.mrr10 < o.mrr10 {
				t.Logf("%s: hybrid %+v below %s %+v", set.name, hy, other, o)
			}
		}
	}
	logTable(t, rows)
}

// sweep reports the fusion weights' effect on one set (-eval.sweep).
func sweep(t *testing.T, r *evalRun) {
	var rows []evalRow
	for _, tw := range []float64{1, 2, 4, 8} {
		svc := search.New(r.e.a.DB.Search(), r.e.svc.Embedder, r.e.svc.Decay)
		svc.Tuning.TitleWeight = tw
		rows = append(rows, evalRow{r.set.name, fmt.Sprintf("fulltext title weight %g", tw), score(r.set.questions, r.ranked(svc, search.ModeFulltext))})
	}
	for _, lines := range []int{1, 2, 3} {
		for _, pw := range []float64{0, 0.25, 0.5, 1, 2} {
			for _, mode := range []string{search.ModeFulltext, search.ModeHybrid} {
				svc := search.New(r.e.a.DB.Search(), r.e.svc.Embedder, r.e.svc.Decay)
				svc.Tuning.PassageWeight, svc.Tuning.PassageLines = pw, lines
				rows = append(rows, evalRow{r.set.name, fmt.Sprintf("%s passage %d lines weight %g", mode, lines, pw), score(r.set.questions, r.ranked(svc, mode))})
			}
		}
	}
	for _, wc := range []float64{0, 0.25, 0.5, 1, 2} {
		svc := search.New(r.e.a.DB.Search(), r.e.svc.Embedder, r.e.svc.Decay)
		svc.Tuning.ConceptWeight = wc
		rows = append(rows, evalRow{r.set.name, fmt.Sprintf("hybrid concept weight %g", wc), score(r.set.questions, r.ranked(svc, search.ModeHybrid))})
	}
	if *evalOpenAI != "" || *evalModel != "" || *evalStatic {
		// A meaning model's list: its weight against its floor.
		for _, floor := range []float64{0.5, 0.7, 0.8, 0.9} {
			for _, ws := range []float64{0, 0.05, 0.1, 0.2, 0.3, 0.5, 1} {
				svc := search.New(r.e.a.DB.Search(), r.e.svc.Embedder, r.e.svc.Decay)
				svc.Tuning.SemanticWeight, svc.Tuning.SemanticFloor = ws, floor
				rows = append(rows, evalRow{r.set.name, fmt.Sprintf("hybrid floor %g weight %g", floor, ws), score(r.set.questions, r.ranked(svc, search.ModeHybrid))})
			}
		}
		logTable(t, rows)
		return
	}
	for _, boost := range []float64{0, 1, 1.1, 1.5, 2} {
		for _, ws := range []float64{0, 0.1, 0.3, 0.5} {
			svc := search.New(r.e.a.DB.Search(), r.e.svc.Embedder, r.e.svc.Decay)
			svc.Tuning.SpellingWeight, svc.Tuning.SemanticWeight, svc.Tuning.AllTermsBoost = ws, ws, boost
			rows = append(rows, evalRow{r.set.name, fmt.Sprintf("hybrid boost %g weight %g", boost, ws), score(r.set.questions, r.ranked(svc, search.ModeHybrid))})
		}
	}
	logTable(t, rows)
}

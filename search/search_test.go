package search_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/search"
	"github.com/noema-mem/noema/sqlite"
)

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

type env struct {
	t   testing.TB
	a   *app.App
	svc *search.Service
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, app.Options{})
}

// newEnvWith is newEnv with the app's options.
func newEnvWith(t testing.TB, o app.Options) *env {
	t.Helper()
	a := noematest.OpenApp(t, "", o)
	clock := func() time.Time { return now }
	a.DB.Now, a.Notes.Now, a.Semantic.Now = clock, clock, clock
	svc := search.New(a.DB.Search(), a.Semantic.Embedder, decay.DefaultConfig())
	svc.Now = clock
	return &env{t: t, a: a, svc: svc}
}

// note writes a note; modified ("" for none) goes into its front matter.
func (e *env) note(folder, title, modified string, tags []string, body string) {
	e.t.Helper()
	fm := ""
	if modified != "" {
		fm = "---\nmodified: " + modified + "\n---\n"
	}
	if _, err := e.a.Notes.Write(context.Background(), notes.WriteInput{Title: title, Folder: folder, Tags: tags, Content: fm + body}); err != nil {
		e.t.Fatal(err)
	}
}

// embed cuts and embeds every note's chunks.
func (e *env) embed() {
	e.t.Helper()
	if err := e.a.Semantic.RefreshChunks(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) search(in search.Input) *search.Result {
	e.t.Helper()
	res, err := e.svc.Search(context.Background(), in)
	if err != nil {
		e.t.Fatalf("search %+v: %v", in, err)
	}
	return res
}

func titles(res *search.Result) []string {
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.Title)
	}
	return out
}

func off() *bool { f := false; return &f }

func off_() *bool { return off() }

func TestSanitiserNeverFails(t *testing.T) {
	e := newEnv(t)
	e.note("", "Compression", "", nil, "Gzip compression of files, and the NEAR operator; AND OR NOT are words here. C++ and ^caret:colon (paren).")
	e.embed()
	long := strings.Repeat(`the "quick" (brown) fox -jumps ^over: the lazy dog AND OR NOT NEAR* `, 14)[:900]
	cases := []struct {
		name, q string
		want    string // a title that must be found; "" for no requirement
	}{
		{"plain", "compression", "Compression"},
		{"unbalanced quote", `"compression`, "Compression"},
		{"quoted phrase", `"gzip compression"`, "Compression"},
		{"single quote", `'gzip'`, "Compression"},
		{"AND", "gzip AND compression", "Compression"},
		{"OR", "gzip OR nothing", "Compression"},
		{"NOT", "gzip NOT compression", "Compression"},
		{"only NOT", "NOT", ""},
		{"NEAR", "NEAR(gzip compression, 2)", "Compression"},
		{"NEAR alone", "NEAR", ""},
		{"lowercase operators", "gzip and or not near", "Compression"},
		{"star", "compress*", "Compression"},
		{"lone star", "*", ""},
		{"star first", "*gzip", "Compression"},
		{"minus", "-gzip", "Compression"},
		{"minus inside", "gzip-compression", "Compression"},
		{"caret", "^gzip", "Compression"},
		{"colon column", "title:compression", "Compression"},
		{"column braces", "{title body}: gzip", "Compression"},
		{"parentheses", "(gzip OR (compression", "Compression"},
		{"close paren", "gzip)", "Compression"},
		{"plus", "+gzip +files", "Compression"},
		{"C++", "C++", "Compression"},
		{"emoji", "🎉 gzip 🚀", "Compression"},
		{"only emoji", "🎉🚀", ""},
		{"only punctuation", `"(*^:-)"`, ""},
		{"empty", "", ""},
		{"spaces", "   ", ""},
		{"backslash", `gzip\`, "Compression"},
		{"invalid utf8", "gzip\xff\xfe", "Compression"},
		{"double quotes inside", `gz""ip compression`, "Compression"},
		{"900-char paste", long, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range []string{"hybrid", "fulltext", "semantic"} {
				res, err := e.svc.Search(context.Background(), search.Input{Query: c.q, Mode: mode})
				if err != nil {
					t.Fatalf("%s %q: %v", mode, c.q, err)
				}
				if c.want != "" && mode == "fulltext" && (len(res.Hits) == 0 || res.Hits[0].Title != c.want) {
					t.Errorf("%s %q: hits %v, want %s first", mode, c.q, titles(res), c.want)
				}
			}
		})
	}
	if _, err := e.svc.Search(context.Background(), search.Input{Query: "gz\x00ip"}); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("NUL: err = %v, want invalid_argument", err)
	}
}

func TestStemmingAndTiers(t *testing.T) {
	e := newEnv(t)
	e.note("", "Zlib", "", nil, "The zlib library compresses data streams.")
	e.note("", "Both", "", nil, "Compression and archives: tar bundles files, then compression shrinks them.")
	e.note("", "Archive only", "", nil, "An archive groups files.")
	res := e.search(search.Input{Query: "compress archive", Mode: "fulltext", Decay: off()})
	got := titles(res)
	if len(got) != 3 || got[0] != "Both" {
		t.Fatalf("hits = %v, want Both (all terms) first and the two partial matches after", got)
	}
	if res.Hits[0].Score != 1 || res.Hits[1].Score >= 1 || res.Hits[2].Score > res.Hits[1].Score {
		t.Errorf("scores = %v %v %v: the best 1, the partial matches below", res.Hits[0].Score, res.Hits[1].Score, res.Hits[2].Score)
	}
	if !strings.Contains(res.Hits[0].Snippet, "«") {
		t.Errorf("snippet %q has no mark", res.Hits[0].Snippet)
	}
	// Stemming both ways: "compression" finds "compresses".
	res = e.search(search.Input{Query: "compression", Mode: "fulltext"})
	if !contains(titles(res), "Zlib") {
		t.Errorf("compression: %v, want Zlib (compresses)", titles(res))
	}
	for _, h := range res.Hits {
		if h.Title == "Zlib" && !strings.Contains(h.Snippet, "«compresses»") {
			t.Errorf("snippet %q: the stemmed match is not marked", h.Snippet)
		}
	}
	// min_score 0.6 keeps only the all-terms note (the partial ones score
	// their BM25 relative to its, which is below 0.6 here).
	res = e.search(search.Input{Query: "compress archive", Mode: "fulltext", MinScore: 0.6, Decay: off()})
	if got := titles(res); len(got) != 1 || got[0] != "Both" || res.Total != 1 {
		t.Errorf("min_score: %v total %d", got, res.Total)
	}
}

// TestRankedFirst checks what lifts a note above another holding the same
// words: the query in its title, and the query's words as a phrase.
func TestRankedFirst(t *testing.T) {
	for _, tc := range []struct {
		name, query, first string
		notes              [2][2]string // title, body
	}{
		{"title weighs more", "goroutines", "Goroutines", [2][2]string{
			{"Goroutines", "Lightweight threads managed by the runtime."},
			{"Scheduler", "The scheduler multiplexes goroutines onto threads; goroutines are cheap."},
		}},
		{"phrase bonus", "garbage collection", "Together", [2][2]string{
			{"Apart", "Garbage trucks come on Mondays. Other words about stamps and a collection of coins."},
			{"Together", "Garbage collection frees memory. Other words about stamps and trucks and many coins."},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			for _, n := range tc.notes {
				e.note("", n[0], "", nil, n[1])
			}
			res := e.search(search.Input{Query: tc.query, Mode: "fulltext"})
			if got := titles(res); len(got) != 2 || got[0] != tc.first {
				t.Errorf("hits = %v, want %s first", got, tc.first)
			}
		})
	}
}

func TestCJKSubstrings(t *testing.T) {
	e := newEnv(t)
	e.note("", "東京", "", nil, "東京都は日本の首都です。人口が多い。")
	e.note("", "中文", "", nil, "我们使用全文搜索来查找笔记。机器学习很有趣。")
	e.note("", "Mixed", "", nil, "Go言語でプログラミングを学ぶ。")
	cases := []struct{ q, want string }{
		{"東京", "東京"},
		{"京都", "東京"}, // a substring crossing the word
		{"日本の首都", "東京"},
		{"首都", "東京"},
		{"全文搜索", "中文"},
		{"搜索", "中文"},
		{"学习", "中文"},
		{"プログラミング", "Mixed"},
		{"言語", "Mixed"},
		{"ラミ", "Mixed"},
	}
	for _, c := range cases {
		res := e.search(search.Input{Query: c.q, Mode: "fulltext"})
		if got := titles(res); len(got) == 0 || got[0] != c.want {
			t.Errorf("%q: hits %v, want %s", c.q, got, c.want)
			continue
		}
		if sn := res.Hits[0].Snippet; !strings.Contains(sn, "«") {
			t.Errorf("%q: snippet %q not marked", c.q, sn)
		}
	}
	// Not a substring: characters from two different runs.
	if res := e.search(search.Input{Query: "首都人口", Mode: "fulltext"}); len(res.Hits) != 0 {
		t.Errorf("首都人口: %v, want nothing", titles(res))
	}
	// One character is a substring too (any occurrence).
	if res := e.search(search.Input{Query: "都", Mode: "fulltext"}); len(res.Hits) != 1 {
		t.Errorf("都: %v", titles(res))
	}
}

func TestFilters(t *testing.T) {
	e := newEnv(t)
	e.note("work", "Plan A", "2026-05-30", []string{"project/alpha"}, "Widget roadmap.")
	e.note("work/sub", "Plan B", "2026-01-01", []string{"Project"}, "Widget budget.")
	e.note("home", "Plan C", "2026-05-31", []string{"garden"}, "Widget shed.")
	e.note("", "Plan D", "2025-01-01", nil, "Widget everywhere.")
	e.note("Überordner", "Plan E", "2025-01-01", []string{"Größe/klein"}, "Widget abroad.")
	e.embed()
	for _, mode := range []string{"fulltext", "semantic", "hybrid"} {
		cases := []struct {
			in   search.Input
			want string
		}{
			{search.Input{Folder: "work"}, "Plan A,Plan B"},
			{search.Input{Folder: "/work/sub/"}, "Plan B"},
			{search.Input{Folder: "wor"}, ""},
			{search.Input{Tags: []string{"project"}}, "Plan A,Plan B"},
			{search.Input{Tags: []string{"#PROJECT/alpha"}}, "Plan A"},
			{search.Input{Tags: []string{"project", "garden"}}, ""},
			{search.Input{Since: "2026-05-01"}, "Plan A,Plan C"},
			{search.Input{Since: "3d"}, "Plan A,Plan C"},
			{search.Input{Since: "72h"}, "Plan A,Plan C"},
			{search.Input{Since: "2026-05-31T00:00:00Z"}, "Plan C"},
			{search.Input{Folder: "work", Since: "7d"}, "Plan A"},
			{search.Input{Folder: "Überordner"}, "Plan E"},
			{search.Input{Tags: []string{"größe"}}, "Plan E"},
		}
		for _, c := range cases {
			in := c.in
			in.Query, in.Mode, in.Decay = "widget", mode, off()
			res := e.search(in)
			got := sorted(titles(res))
			if strings.Join(got, ",") != c.want {
				t.Errorf("%s %+v: %v, want %s", mode, c.in, got, c.want)
			}
		}
	}
	for _, bad := range []search.Input{{Query: "x", Since: "yesterday"}, {Query: "x", Folder: "../up"}, {Query: "x", Offset: -1},
		{Query: "x", Mode: "fuzzy"}, {Query: "x", MinScore: 2}} {
		if _, err := e.svc.Search(context.Background(), bad); noema.ErrorCode(err) != noema.EINVALID {
			t.Errorf("%+v: err %v, want invalid_argument", bad, err)
		}
	}
}

func TestPagingStable(t *testing.T) {
	e := newEnv(t)
	for i := range 25 {
		// Identical bodies: every score ties; the path decides.
		e.note("", fmt.Sprintf("Note %02d", i), "", nil, "Shared words about paging.")
	}
	e.embed()
	for _, mode := range []string{"fulltext", "hybrid", "semantic"} {
		whole := titles(e.search(search.Input{Query: "paging words", Mode: mode, Limit: 100}))
		var all []string
		for off := 0; ; off += 10 {
			res := e.search(search.Input{Query: "paging words", Mode: mode, Limit: 10, Offset: off})
			if res.Total != 25 {
				t.Fatalf("%s total = %d", mode, res.Total)
			}
			all = append(all, titles(res)...)
			if !res.HasMore {
				break
			}
		}
		if len(all) != 25 {
			t.Fatalf("%s: %d hits over pages", mode, len(all))
		}
		if strings.Join(all, ",") != strings.Join(whole, ",") {
			t.Fatalf("%s: pages %v, one page %v", mode, all, whole)
		}
		if mode == "fulltext" {
			// Equal scores: the path decides.
			for i := range all {
				if want := fmt.Sprintf("Note %02d", i); all[i] != want {
					t.Fatalf("%s: hit %d = %s, want %s (order %v)", mode, i, all[i], want, all)
				}
			}
		}
	}
	res := e.search(search.Input{Query: "paging", Offset: 100})
	if len(res.Hits) != 0 || res.HasMore || res.Total != 25 {
		t.Errorf("past the end: %+v", res)
	}
	res = e.search(search.Input{Query: "paging", Limit: 1000})
	if len(res.Hits) != 25 {
		t.Errorf("limit clamps to 100: %d hits", len(res.Hits))
	}
}

func TestDecayOnOff(t *testing.T) {
	e := newEnv(t)
	e.note("", "Old", "2025-01-01", nil, "Retrieval augmented generation, retrieval, retrieval.")
	e.note("", "Fresh", "2026-05-30", nil, "Retrieval once.")
	res := e.search(search.Input{Query: "retrieval", Mode: "fulltext", Decay: off()})
	if got := titles(res); got[0] != "Old" {
		t.Fatalf("decay off: %v, want the better text match first", got)
	}
	old := res.Hits[0]
	if old.Decay >= 0.01 || old.Score != 1 {
		t.Errorf("decay off: old hit %+v: decay reported, not applied", old)
	}
	res = e.search(search.Input{Query: "retrieval", Mode: "fulltext"})
	if got := titles(res); got[0] != "Fresh" {
		t.Fatalf("decay on: %v, want the fresh note first", got)
	}
	if h := res.Hits[1]; h.Score != round6(h.Decay*1) {
		t.Errorf("decay on: %+v: score should be base × decay", h)
	}
	// Searching is not an access: the old note's decay is unchanged.
	res = e.search(search.Input{Query: "retrieval", Mode: "fulltext"})
	if res.Hits[1].Decay != old.Decay {
		t.Errorf("search refreshed decay: %v -> %v", old.Decay, res.Hits[1].Decay)
	}
}

func round6(x float64) float64 { return float64(int64(x*1e6+0.5)) / 1e6 }

func TestConceptQuery(t *testing.T) {
	e := newEnv(t)
	e.note("", "Older", "2026-01-01", nil, "Intro.\n\nWe tune [[Gradient Checkpointing]] for memory.")
	e.note("", "Newer", "2026-05-20", nil, "Uses [[gradient-checkpointing|GC]] too.")
	e.note("", "Unrelated", "2026-05-31", nil, "Mentions gradient checkpointing in plain text only.")
	e.note("concepts", "Gradient Checkpointing", "", nil, "---\nmodified: 2025-06-01\naliases: [activation recomputation]\n---\nTrade compute for memory.")
	for _, q := range []string{"[[Gradient Checkpointing]]", "[[gradient_checkpointing]]", " [[Activation Recomputation]] ", "[[Gradient Checkpointing|x]]"} {
		res := e.search(search.Input{Query: q, Decay: off()})
		if got := strings.Join(titles(res), ","); got != "Newer,Older,Gradient Checkpointing" {
			t.Errorf("%s: %v, want the linking notes and the page, freshest first", q, got)
			continue
		}
		if sn := res.Hits[1].Snippet; !strings.Contains(sn, "«[[Gradient Checkpointing]]»") {
			t.Errorf("%s: snippet %q", q, sn)
		}
		if res.Hits[0].Score != 1 {
			t.Errorf("%s: score %v", q, res.Hits[0].Score)
		}
	}
	res := e.search(search.Input{Query: "[[No Such Thing]]", Mode: "fulltext"})
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "No Such Thing") {
		t.Errorf("unknown concept: warnings %v", res.Warnings)
	}
}

// down is an embedder that is unreachable.
type down struct{ noema.Embedder }

func (down) Embed(context.Context, []string) ([][]float32, error) {
	return nil, noema.Errorf(noema.EUNAVAILABLE, "connection refused")
}

func TestEmbedderDown(t *testing.T) {
	e := newEnv(t)
	e.note("", "Alpha", "", nil, "Vector databases store embeddings.")
	e.embed()
	e.svc.Embedder = down{builtin.New()}
	res := e.search(search.Input{Query: "embeddings"})
	if got := titles(res); len(got) != 1 || got[0] != "Alpha" || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "unavailable") {
		t.Errorf("hybrid with the embedder down: %v %v", got, res.Warnings)
	}
	if res.Hits[0].Score != 1 || res.Hits[0].Ranks.Fulltext != 1 || res.Hits[0].Ranks.Semantic != 0 {
		t.Errorf("hit %+v", res.Hits[0])
	}
	_, err := e.svc.Search(context.Background(), search.Input{Query: "embeddings", Mode: "semantic"})
	if noema.ErrorCode(err) != noema.EUNAVAILABLE {
		t.Errorf("semantic with the embedder down: %v, want unavailable", err)
	}
	e.svc.Embedder = nil
	if _, err := e.svc.Search(context.Background(), search.Input{Query: "embeddings", Mode: "semantic"}); noema.ErrorCode(err) != noema.EUNAVAILABLE {
		t.Errorf("no embedder: %v", err)
	}
	var ne *noema.Error
	if !errors.As(err, &ne) {
		t.Errorf("not a noema error: %v", err)
	}
}

func TestSemanticAndHybrid(t *testing.T) {
	e := newEnv(t)
	e.note("", "Cats", "", nil, "Felines purr and nap in the sun.")
	e.note("", "Databases", "", nil, "Relational databases use indexes.")
	e.embed()
	res := e.search(search.Input{Query: "database indexing", Mode: "semantic"})
	if got := titles(res); len(got) == 0 || got[0] != "Databases" {
		t.Errorf("semantic: %v", got)
	}
	if h := res.Hits[0]; h.Ranks.Semantic != 1 || h.Score <= 0 || h.Score > 1 || h.Snippet == "" {
		t.Errorf("semantic hit %+v", h)
	}
	res = e.search(search.Input{Query: "relational databases", Decay: off()})
	if h := res.Hits[0]; h.Title != "Databases" || h.Score != 1 || h.Ranks.Fulltext != 1 || h.Ranks.Semantic != 1 {
		t.Errorf("hybrid hit %+v", h)
	}
	// The chunk cache follows edits: a new note is found without a restart.
	e.note("", "Indexes", "", nil, "B-tree indexes speed up relational queries.")
	e.embed()
	res = e.search(search.Input{Query: "b-tree indexes", Mode: "semantic"})
	if got := titles(res); len(got) == 0 || got[0] != "Indexes" {
		t.Errorf("after a write: %v", got)
	}
	// Deleting a note drops its vectors.
	if _, err := e.a.Notes.Delete(context.Background(), "Indexes", true); err != nil {
		t.Fatal(err)
	}
	res = e.search(search.Input{Query: "b-tree indexes", Mode: "semantic"})
	if contains(titles(res), "Indexes") {
		t.Errorf("after a delete: %v", titles(res))
	}
}

func TestSnippetNeverEmpty(t *testing.T) {
	e := newEnv(t)
	e.note("", "Title only match", "", nil, "")
	e.note("", "Long", "", nil, strings.Repeat("filler words go here. ", 40)+"the needle is here. "+strings.Repeat("more filler. ", 40))
	e.embed()
	res := e.search(search.Input{Query: "title only match"})
	if len(res.Hits) == 0 || res.Hits[0].Snippet == "" {
		t.Fatalf("%+v", res.Hits)
	}
	res = e.search(search.Input{Query: "needle", Mode: "fulltext"})
	sn := res.Hits[0].Snippet
	if !strings.Contains(sn, "«needle»") || len([]rune(sn)) > 260 || !strings.HasPrefix(sn, "…") {
		t.Errorf("snippet %q (%d chars)", sn, len([]rune(sn)))
	}
}

// TestSnippetStaleChunk checks the snippet of a semantic hit whose best
// chunk was cut from a longer text of the note than it has now (edited,
// its chunks not cut again yet): the chunk starts past the body, whose
// start is the snippet (window read the byte past the body: a panic).
func TestSnippetStaleChunk(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("Plain filler words about nothing in particular here. ", 60) + "\n\n## Later\n\n" + strings.Repeat("Kiktrum pensho zorbly vantage quasar. ", 40)
	e.note("", "Shrunk", "", nil, long)
	e.note("", "Other", "", nil, "Another note entirely.")
	e.embed()
	if _, err := e.a.Notes.Write(context.Background(), notes.WriteInput{Title: "Shrunk", Content: "Short now.", Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"semantic", "hybrid"} {
		res := e.search(search.Input{Query: "kiktrum pensho zorbly vantage quasar", Mode: mode})
		i := slices.Index(titles(res), "Shrunk")
		if i < 0 || res.Hits[i].Ranks.Semantic == 0 || res.Hits[i].Snippet != "Short now." {
			t.Errorf("%s: %+v", mode, res.Hits)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestConcurrentSearchesAndWrites runs searches in parallel with writes
// and chunk refreshes (the chunk cache reloads under them); -race checks
// the locking.
func TestConcurrentSearchesAndWrites(t *testing.T) {
	e := newEnv(t)
	for i := range 10 {
		e.note("", fmt.Sprintf("Seed %d", i), "", nil, fmt.Sprintf("Seed note %d about concurrency and caches.", i))
	}
	e.embed()
	ctx := context.Background()
	done := make(chan error, 4)
	for w := range 3 {
		go func() {
			for i := range 15 {
				mode := []string{"hybrid", "semantic", "fulltext"}[(w+i)%3]
				if _, err := e.svc.Search(ctx, search.Input{Query: "concurrency caches", Mode: mode}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	go func() {
		for i := range 5 {
			if _, err := e.a.Notes.Write(ctx, notes.WriteInput{Title: fmt.Sprintf("Late %d", i), Content: "Late note about caches."}); err != nil {
				done <- err
				return
			}
			if err := e.a.Semantic.RefreshChunks(ctx); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	res := e.search(search.Input{Query: "late note caches", Mode: "semantic", Limit: 20})
	late := 0
	for _, h := range res.Hits {
		if strings.HasPrefix(h.Title, "Late ") {
			late++
		}
	}
	if late != 5 {
		t.Errorf("semantic sees %d of 5 late notes: %v", late, titles(res))
	}
}

// TestCommonTermPruningIsNeutral checks that leaving terms found in more
// than half of the notes out of the partial-match expression changes
// nothing when the rarer terms fill the candidate depth.
func TestCommonTermPruningIsNeutral(t *testing.T) {
	e := newEnv(t)
	root := e.a.Vault.Root
	for i := range 4*search.Depth + 100 {
		body := "common words everywhere. " + strings.Repeat("filler ", i%7)
		if i%4 == 0 {
			body += "rare topic "
		}
		if i%5 == 0 {
			body += "second "
		}
		if i%2 == 0 {
			body += "half "
		}
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("n%03d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.a.Sync(context.Background(), false, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"common rare", "everywhere topic second", "common words rare topic", "half rare"} {
		if !search.Pruned(e.svc, q) {
			t.Errorf("%q: not pruned; the test needs a rare term in Depth notes", q)
		}
		var pages [2][]string
		var totals [2]int
		for k, on := range []bool{false, true} {
			old := search.SetSkipCommonTerms(on)
			for off := 0; off < 300; off += 100 {
				res := e.search(search.Input{Query: q, Mode: "fulltext", Limit: 100, Offset: off, Decay: off_()})
				for _, h := range res.Hits {
					pages[k] = append(pages[k], fmt.Sprintf("%s %.6f", h.Title, h.Score))
				}
				totals[k] = res.Total
			}
			search.SetSkipCommonTerms(old)
		}
		if strings.Join(pages[0], ",") != strings.Join(pages[1], ",") || totals[0] != totals[1] {
			t.Errorf("%q: pruning changed the answer (totals %v)", q, totals)
			for i := range min(len(pages[0]), len(pages[1])) {
				if pages[0][i] != pages[1][i] {
					t.Logf("%d: %s | %s", i, pages[0][i], pages[1][i])
				}
			}
		}
	}
}

// TestBonusSearchedApartIsExact checks that SearchText, which queries the
// phrase and NEAR bonus apart from the terms (TextQuery.Bonus) and finds
// the every-term tier apart from the ranking, ranks and scores exactly as
// one FTS5 query of "terms OR bonus" ordered by tier and BM25 does, on a
// generated vault: BM25 is a sum over the expression's phrases.
func TestBonusSearchedApartIsExact(t *testing.T) {
	db := noematest.SyncedCorpus(t, corpus.Options{Seed: 7, Notes: 800})
	ctx := context.Background()
	var labels []string
	noematest.EachRow(t, db.Read(), `SELECT label FROM concepts ORDER BY id LIMIT 40`, func(r *sql.Rows) error {
		var l string
		labels = append(labels, l)
		return r.Scan(&labels[len(labels)-1])
	})
	var queries []string
	for i, l := range labels {
		next := labels[(i*7+3)%len(labels)]
		queries = append(queries, l, l+" "+next, "how does "+strings.ToLower(next)+" relate to notes", `"`+l+`" design`)
	}
	queries = strided(queries)
	compared := 0
	for _, q := range queries {
		for _, variant := range []struct {
			limit int
			// other replaces Match by a word the bonus does not hold, so
			// that notes with the bonus and no term of Match exist (as
			// when pruning leaves terms out, or a phrase of stop words
			// comes with Chinese terms).
			other bool
		}{{5, false}, {search.Depth, false}, {search.Depth, true}} {
			limit := variant.limit
			split := search.TextQueryOf(q, limit)
			if split.Bonus == "" {
				continue
			}
			if variant.other {
				split.Match = `{title body} : "review"`
				split.BonusHoldsAll = false // the bonus no longer holds Match's term
			}
			got, err := db.Search().SearchText(ctx, split)
			if err != nil {
				t.Fatal(err)
			}
			want := referenceText(t, db, "("+split.Match+") OR "+split.Bonus, split.All, limit)
			// Apart (got) and together (want) agree hit by hit, ties aside.
			sameText(t, fmt.Sprintf("%q limit %d", q, limit), got, want)
			compared++
		}
	}
	if compared < 100/raceStride {
		t.Errorf("only %d queries had a bonus to compare", compared)
	}
}

// TestTermCountsFollowWrites checks that the cached per-term note counts
// behind the common-term pruning are read again once the text changes: a
// term that grows past half of the notes starts to be pruned.
func TestTermCountsFollowWrites(t *testing.T) {
	e := newEnv(t)
	root := e.a.Vault.Root
	write := func(i int, body string) {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("n%03d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const n = 900
	for i := range n {
		body := "filler text "
		if i%4 == 0 {
			body += "alpha " // 225 notes: rare, and enough to fill the depth
		}
		if i%9 < 4 {
			body += "beta " // 400 notes: under half
		}
		write(i, body)
	}
	noematest.Sync(t, e.a)
	if search.Pruned(e.svc, "alpha beta") {
		t.Fatal("beta, in 400 of 900 notes, is pruned")
	}
	for i := range n {
		if i%9 == 4 || i%9 == 5 { // 200 more: 600 of 900
			body := "filler text beta "
			if i%4 == 0 {
				body += "alpha "
			}
			write(i, body)
		}
	}
	noematest.Sync(t, e.a)
	if !search.Pruned(e.svc, "alpha beta") {
		t.Error("beta, now in 600 of 900 notes, is not pruned: stale term counts")
	}
}

// referenceText is the full-text ranking in one plain SQL query, as the
// index first ran it: the notes matching match, those matching all (every
// term; "" for one term) first, then by BM25 (weights 4, 1, 1), then by
// path.
func referenceText(t *testing.T, db *sqlite.DB, match, all string, limit int) []noema.TextHit {
	t.Helper()
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	every := "1"
	if all != "" {
		every = "(rowid IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH " + quote(all) + "))"
	}
	var out []noema.TextHit
	noematest.EachRow(t, db.Read(), fmt.Sprintf(`SELECT f.rowid, f.every, f.score, n.path FROM
		(SELECT rowid, bm25(notes_fts, 4, 1, 1) AS score, %s AS every FROM notes_fts WHERE notes_fts MATCH %s
		 ORDER BY every DESC, score, rowid LIMIT %d) f JOIN notes n ON n.id = f.rowid
		ORDER BY f.every DESC, f.score, n.path`, every, quote(match), limit), func(r *sql.Rows) error {
		var h noema.TextHit
		if err := r.Scan(&h.ID, &h.All, &h.BM25, &h.Note.Path); err != nil {
			return err
		}
		out = append(out, h)
		return nil
	})
	return out
}

// TestSpellingListKeepsTextOrder: the builtin embedder sees spelling, not
// meaning, so its list must not pull the only note holding "memory limit"
// below notes that merely spell "limit" and "container" alike (a
// newcomer's report); it may add what full text missed.
func TestSpellingListKeepsTextOrder(t *testing.T) {
	e := newEnv(t)
	e.note("", "Cgroups", "", nil, "Set the memory limit so that the process is killed before the host starts to swap.")
	e.note("", "Rate limiting", "", nil, "Limits and limiters for containerized services: container limits per namespace, limited containers.")
	e.note("", "Container images", "", nil, "Containers, container registries, containerd, and the limits of layered containers.")
	e.note("", "Limit orders", "", nil, "A limit order in a containerized trading engine; containers of limit orders.")
	e.note("", "Shipping", "", nil, "Shipping containers and their limitations at the port.")
	e.embed()
	if !noema.IsSpellingModel(e.svc.Embedder) {
		t.Fatalf("embedder %s: want a spelling model", e.svc.Embedder.Name())
	}
	q := "memory limit in containers"
	ft := titles(e.search(search.Input{Query: q, Mode: search.ModeFulltext, Decay: off()}))
	hy := e.search(search.Input{Query: q, Decay: off()})
	if len(ft) == 0 || ft[0] != "Cgroups" {
		t.Fatalf("fulltext = %v, want Cgroups first", ft)
	}
	got := titles(hy)
	if len(got) < len(ft) || !slices.Equal(got[:len(ft)], ft) {
		t.Errorf("hybrid = %v, want full text's order %v first", got, ft)
	}
}

package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/cjk"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/sqlite"
)

func textNote(path, body string, tags ...string) *sqlite.NoteRecord {
	r := note(path, 10)
	r.Body, r.Tags = body, tags
	return r
}

func searchIDs(t *testing.T, db *sqlite.DB, q noema.TextQuery) []string {
	t.Helper()
	hits, err := db.Search().SearchText(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	notes, err := db.Search().SearchNotes(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, h := range hits {
		s := notes[h.ID].Path
		if h.All {
			s += "*"
		}
		out = append(out, s)
	}
	return out
}

func TestSearchTextTiersStemsAndFilters(t *testing.T) {
	db := MustOpen(t)
	put(t, db,
		textNote("a/one.md", "compression of archives", "Proj/x"),
		textNote("a/two.md", "compressed data and more compressed data, compressing, compresses", "other"),
		textNote("b/three.md", "archives only"),
		textNote("b/日本.md", "東京都に住んでいます"))
	q := noema.TextQuery{
		Match: `{title body} : "compress" OR {title body} : "archive"`, All: `{title body} : "compress" AND {title body} : "archive"`,
		Weights: [3]float64{4, 1, 1}, Limit: 10,
	}
	got := searchIDs(t, db, q)
	if len(got) != 3 || got[0] != "a/one.md*" || got[1] != "a/two.md" {
		t.Errorf("tiers: %v, want a/one.md (every term) first despite two.md's higher term frequency", got)
	}
	q.Filter = noema.SearchFilter{Folder: "a", Tags: []string{"proj"}}
	if got := searchIDs(t, db, q); len(got) != 1 || got[0] != "a/one.md*" {
		t.Errorf("folder+nested tag: %v", got)
	}
	q.Filter = noema.SearchFilter{Since: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
	if got := searchIDs(t, db, q); len(got) != 0 {
		t.Errorf("since: %v", got)
	}
	// The cjk column holds bigrams: a substring is a phrase of them.
	cq := noema.TextQuery{Match: `cjk : "京都 都に"`, Weights: [3]float64{4, 1, 1}, Limit: 10}
	if got := searchIDs(t, db, cq); len(got) != 1 || got[0] != "b/日本.md*" {
		t.Errorf("cjk: %v", got)
	}
}

func TestSearchChunksVersionMoves(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	put(t, db, textNote("n.md", "text"))
	version := counter(t, db.Search().SearchChunksVersion)
	v0 := version()
	if err := db.Semantic().PutChunks(ctx, "m", []noema.ChunkedNote{{ID: 1, Hash: "hn.md", Chunks: []noema.StoredChunk{{Start: 0, End: 4, TextHash: "t"}}}}); err != nil {
		t.Fatal(err)
	}
	v1 := version()
	if v1 == v0 {
		t.Fatal("version did not move on PutChunks")
	}
	if err := db.Semantic().PutEmbeddings(ctx, "m", 2, []string{"t"}, [][]float32{{0.6, 0.8}}); err != nil {
		t.Fatal(err)
	}
	states, err := db.Search().SearchChunkStates(ctx, "m")
	if err != nil || states[1] != "hn.md" {
		t.Fatalf("states %v %v", states, err)
	}
	var got []noema.ChunkVector
	if err := db.Search().SearchChunkVectors(ctx, "m", []int64{1}, func(c noema.ChunkVector) { got = append(got, c) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].End != 4 || len(got[0].Vec) != 2 {
		t.Fatalf("vectors %+v", got)
	}
	if err := db.Write(ctx, func(tx *sqlite.Tx) error { return sqlite.DeleteNote(tx, "n.md") }); err != nil {
		t.Fatal(err)
	}
	if version() == v1 {
		t.Error("version did not move when the note (and its chunks) went")
	}
}

func TestSearchConcept(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	page := note("concepts/Go.md", 1)
	page.Page.Explicit, page.Page.Aliases = true, []string{"golang"}
	put(t, db, page, note("a.md", 2, "golang"), note("b.md", 3, "Go"), note("c.md", 4, "Rust"))
	c, ok, err := db.Search().SearchConcept(ctx, "golang")
	if err != nil || !ok || c.Label != "Go" || len(c.Keys) != 2 {
		t.Fatalf("%+v %v %v", c, ok, err)
	}
	// The page, a.md, b.md and d.md, each once (d.md links the concept
	// by two keys), with the rows joined and with the rows kept alike.
	put(t, db, note("d.md", 5, "Go", "golang"))
	rust, _, err := db.Search().SearchConcept(ctx, "rust")
	if err != nil {
		t.Fatal(err)
	}
	for _, kept := range []bool{false, true} {
		if kept {
			if err := db.Search().KeepNoteRows(ctx); err != nil {
				t.Fatal(err)
			}
		}
		notes, err := db.Search().SearchConceptNotes(ctx, c.ID, noema.SearchFilter{})
		var paths []string
		for _, n := range notes {
			paths = append(paths, n.Path)
		}
		slices.Sort(paths)
		if err != nil || !slices.Equal(paths, []string{"a.md", "b.md", "concepts/Go.md", "d.md"}) {
			t.Fatalf("kept %v: %v %v", kept, paths, err)
		}
		if notes, err := db.Search().SearchConceptNotes(ctx, rust.ID, noema.SearchFilter{}); err != nil || len(notes) != 1 || notes[0].Path != "c.md" {
			t.Fatalf("kept %v: Rust %+v %v", kept, notes, err)
		}
	}
	if _, ok, _ := db.Search().SearchConcept(ctx, "nothing"); ok {
		t.Error("unknown key resolved")
	}
}

// TestMigration0008KeepsRows checks that the migration that rebuilds the
// FTS table copies the rows indexed before it, bigrams included.
func TestMigration0008KeepsRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// Put the index back in its 0007 shape, with one indexed note.
	err = db.Write(ctx, func(tx *sqlite.Tx) error {
		for _, q := range []string{
			`DROP TRIGGER search_chunks_ins`, `DROP TRIGGER search_chunks_upd`, `DROP TRIGGER search_chunks_del`,
			`DROP TABLE notes_fts`, `DROP TABLE search_state`,
			`CREATE VIRTUAL TABLE notes_fts USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2')`,
			`INSERT INTO notes (id, path, title, size, mtime_ns, hash, created_ns, modified_ns) VALUES (7, 'x.md', 'X', 1, 1, 'h', 1, 1)`,
			`INSERT INTO notes_fts (rowid, title, body) VALUES (7, 'X', 'Compressing 日本語 text')`,
			`DELETE FROM migrations WHERE name = 'migration/0008_search.sql'`,
		} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = sqlite.Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, m := range []string{`{title body} : "compression"`, `cjk : "本語"`} {
		if got := searchIDs(t, db, noema.TextQuery{Match: m, Weights: [3]float64{1, 1, 1}, Limit: 5}); len(got) != 1 || got[0] != "x.md*" {
			t.Errorf("%s after migration: %v", m, got)
		}
	}
}

// BenchmarkCJKTrigramVsBigram is the measurement behind the cjk column
// (docs/search.md): the same Chinese/Japanese notes in an FTS5 trigram
// table and in a unicode61 table of bigrams (cjk.Bigrams), queried
// with 2- and 4-character substrings. Trigram cannot MATCH a 2-character
// string (FTS5 needs 3), so it falls back to LIKE, which scans every row.
//
//	go test ./sqlite -run '^$' -bench CJK -benchtime 200x
func BenchmarkCJKTrigramVsBigram(b *testing.B) {
	ctx := context.Background()
	db := MustOpen(b)
	words := []string{"東京", "大阪", "首都", "人口", "経済", "機械学習", "全文検索", "データベース", "プログラミング", "言語",
		"我们", "使用", "搜索", "笔记", "知识", "图谱", "概念", "学习", "研究", "系统", "的", "は", "が", "を", "に", "で"}
	const notes = 5000
	err := db.Write(ctx, func(tx *sqlite.Tx) error {
		for _, q := range []string{
			`CREATE VIRTUAL TABLE bench_tri USING fts5(body, tokenize = 'trigram')`,
			`CREATE VIRTUAL TABLE bench_bi USING fts5(body, tokenize = 'unicode61')`,
		} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		seed := uint64(1)
		for i := range notes {
			var text string
			for range 120 {
				seed = seed*6364136223846793005 + 1442695040888963407
				text += words[(seed>>33)%uint64(len(words))]
			}
			if _, err := tx.Exec(`INSERT INTO bench_tri (rowid, body) VALUES (?, ?)`, i+1, text); err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO bench_bi (rowid, body) VALUES (?, ?)`, i+1, cjk.Bigrams(text)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	count := func(b *testing.B, q string, args ...any) int {
		var n int
		if err := db.Read().QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	}
	for _, sub := range []string{"学習", "全文検索"} {
		grams := cjk.Bigrams(sub)
		grams = grams[:len(grams)-len(string([]rune(sub)[len([]rune(sub))-1:]))-1] // drop the trailing unigram
		b.Run("bigram-phrase/"+sub, func(b *testing.B) {
			var n int
			for b.Loop() {
				n = count(b, `SELECT COUNT(*) FROM bench_bi WHERE bench_bi MATCH ?`, `"`+grams+`"`)
			}
			b.ReportMetric(float64(n), "hits")
		})
		b.Run("trigram-match/"+sub, func(b *testing.B) {
			var n int
			for b.Loop() {
				n = count(b, `SELECT COUNT(*) FROM bench_tri WHERE bench_tri MATCH ?`, `"`+sub+`"`)
			}
			b.ReportMetric(float64(n), "hits")
		})
		b.Run("trigram-like/"+sub, func(b *testing.B) {
			var n int
			for b.Loop() {
				n = count(b, `SELECT COUNT(*) FROM bench_tri WHERE body LIKE ?`, "%"+sub+"%")
			}
			b.ReportMetric(float64(n), "hits")
		})
	}
	var tri, bi int
	tri = count(b, `SELECT SUM(length(block)) FROM bench_tri_data`)
	bi = count(b, `SELECT SUM(length(block)) FROM bench_bi_data`)
	b.Logf("index bytes for %d notes: trigram %d, bigram %d", notes, tri, bi)
}

// TestSearchTermDocs checks the per-term note counts: exact below half of
// the notes, stopped at half (rounded up) above.
func TestSearchTermDocs(t *testing.T) {
	db := MustOpen(t)
	put(t, db,
		textNote("1.md", "alpha beta"), textNote("2.md", "alpha"), textNote("3.md", "alpha"),
		textNote("4.md", "alpha gamma"), textNote("5.md", "delta"))
	docs, total, err := db.Search().SearchTermDocs(context.Background(), []string{`"alpha"`, `"beta"`, `"gamma" OR "beta"`, `"zeta"`})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{3, 1, 2, 0}; total != 5 || !slices.Equal(docs, want) {
		t.Errorf("SearchTermDocs = %v of %d, want %v of 5", docs, total, want)
	}
}

// TestSearchTextVersionMoves checks that every write of a note's text
// moves the text version (the term-count cache of package search depends
// on it), and that a write of no text does not.
func TestSearchTextVersionMoves(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	version := counter(t, db.Search().SearchTextVersion)
	v0 := version()
	put(t, db, textNote("a.md", "one"), textNote("b.md", "two"))
	v1 := version()
	if v1 == v0 {
		t.Fatal("writing notes did not move the text version")
	}
	put(t, db, textNote("a.md", "one, again"))
	v2 := version()
	if v2 == v1 {
		t.Fatal("rewriting a note did not move the text version")
	}
	remove(t, db, "b.md")
	v3 := version()
	if v3 == v2 {
		t.Fatal("deleting a note did not move the text version")
	}
	if err := db.Write(ctx, func(tx *sqlite.Tx) error { _, err := tx.Exec(`UPDATE meta SET value = value WHERE 0`); return err }); err != nil {
		t.Fatal(err)
	}
	if version() != v3 {
		t.Error("a write that changes no text moved the text version")
	}
	if err := db.Write(ctx, sqlite.ClearDerivedAll); err != nil {
		t.Fatal(err)
	}
	if version() == v3 {
		t.Error("clearing the index did not move the text version")
	}
}

// counter returns a reader of the version read reads, failing the test on
// error.
func counter(t *testing.T, read func(context.Context) (int64, error)) func() int64 {
	return func() int64 {
		t.Helper()
		v, err := read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestKeptNoteRowsFollowWrites checks the note rows a DB keeps in memory
// for the searches (SearchIndex.KeepNoteRows): a ranking that reads the
// versions (and so takes the rows from memory) answers hit for hit, score
// and row alike, as the same ranking joined in SQL, after every kind of
// write a row follows — a note added, retitled, renamed, re-dated, read,
// deleted — each made between two searches.
func TestKeptNoteRowsFollowWrites(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	put(t, db, textNote("a.md", "quorum lattice"), textNote("b.md", "quorum"), textNote("c.md", "lattice and more"))
	if err := db.Search().KeepNoteRows(ctx); err != nil {
		t.Fatal(err)
	}
	check := func(step string) {
		t.Helper()
		q := noema.TextQuery{Match: `"quorum" OR "lattice"`, Weights: [3]float64{4, 1, 1}, Limit: 10}
		kept, joined, vs := searchBothWays(t, db, q)
		if !vs.Read || len(kept) == 0 {
			t.Fatalf("%s: versions read %v, %d hits", step, vs.Read, len(kept))
		}
		if !reflect.DeepEqual(kept, joined) {
			t.Errorf("%s: rows kept in memory\n%+v\njoined\n%+v", step, kept, joined)
		}
	}
	check("first")
	put(t, db, textNote("d.md", "quorum again"))
	check("added")
	a := textNote("a.md", "quorum lattice")
	a.Title = "Retitled"
	put(t, db, a)
	check("retitled")
	write := func(fn func(tx *sqlite.Tx) error) {
		t.Helper()
		if err := db.Write(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	write(func(tx *sqlite.Tx) error { return sqlite.RenameNote(tx, "b.md", "z.md") })
	check("renamed")
	write(func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`UPDATE notes SET modified_ns = modified_ns + 1000 WHERE path = 'c.md'`)
		return err
	})
	check("re-dated")
	db.Notes().LogAccess(ctx, "c.md")
	check("read")
	write(func(tx *sqlite.Tx) error { return sqlite.RenameNote(tx, "c.md", "y.md") })
	check("read, then renamed")
	remove(t, db, "d.md")
	check("deleted")
}

// TestVersionedRankingAsJoined checks the ranking statement that reads the
// versions in a row of its own (TextQuery.Versions): every plan that ranks
// in one statement — one term, Together with its every-term flag, each term
// on its own (Terms), bodies for every hit and for the best few — answers hit for hit, score, tier, row and body alike, as
// the same query without the versions, with the note rows joined in SQL
// and kept in memory; the versions it reads are the index's; and they are
// read when nothing is found.
func TestVersionedRankingAsJoined(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	put(t, db, textNote("a.md", "quorum lattice\nquorum"), textNote("b.md", "quorum"), textNote("c.md", "lattice and more"),
		textNote("d.md", "nothing of either"), textNote("e.md", "lattice, lattice"))
	text, err := db.Search().SearchTextVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	concepts, err := db.Search().SearchConceptsVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const both = `"quorum" OR "lattice"`
	queries := map[string]noema.TextQuery{
		"one term":          {Match: `"lattice"`, Limit: 10, Bodies: 10},
		"one term, no body": {Match: `"lattice"`, Limit: 10},
		"together":          {Match: both, All: `"quorum" AND "lattice"`, Together: true, Limit: 10, Bodies: 2},
		"together, bodies":  {Match: both, All: `"quorum" AND "lattice"`, Together: true, Limit: 3, Bodies: 50},
		"together, bonus apart": {Match: both, All: `"quorum" AND "lattice"`, Bonus: `"quorum lattice" OR NEAR("quorum" "lattice")`,
			BonusHoldsAll: true, Together: true, Limit: 10, Bodies: 2},
		"per term": {Match: both, All: `"quorum" AND "lattice"`, Terms: []string{`"quorum"`, `"lattice"`}, Limit: 10},
		"per term, bonus": {Match: both, All: `"quorum" AND "lattice"`, Terms: []string{`"quorum"`, `"lattice"`}, Bonus: `"quorum lattice" OR NEAR("quorum" "lattice")`,
			BonusHoldsAll: true, Limit: 10},
		"per term, cut": {Match: `"quorum" OR "more"`, All: `"quorum" AND "more"`, Terms: []string{`"quorum"`, `"more"`}, Limit: 2},
		"nothing found": {Match: `"zebra"`, Limit: 10, Bodies: 10},
	}
	for _, keep := range []bool{false, true} {
		if keep {
			if err := db.Search().KeepNoteRows(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for name, q := range queries {
			q.Weights = [3]float64{4, 1, 1}
			versioned, joined, vs := searchBothWays(t, db, q)
			if !reflect.DeepEqual(versioned, joined) {
				t.Errorf("%s (rows kept %v): with the versions\n%+v\nwithout\n%+v", name, keep, versioned, joined)
			}
			if !vs.Read || vs.Text != text || vs.Concepts != concepts {
				t.Errorf("%s (rows kept %v): versions %+v, want text %d, concepts %q, read", name, keep, vs, text, concepts)
			}
		}
	}
}

// searchBothWays runs q without the versions and with them
// (TextQuery.Versions), returning both answers and the versions read.
func searchBothWays(t *testing.T, db *sqlite.DB, q noema.TextQuery) (versioned, joined []noema.TextHit, vs noema.IndexVersions) {
	t.Helper()
	ctx := context.Background()
	joined, err := db.Search().SearchText(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	q.Versions = &vs
	if versioned, err = db.Search().SearchText(ctx, q); err != nil {
		t.Fatal(err)
	}
	return versioned, joined, vs
}

// TestFewAsSorted checks TextQuery.Few: a ranking read unsorted and
// sorted in Go (with the note rows kept in memory) answers as SQLite's
// ORDER BY and LIMIT do — when the notes found are more than the Limit
// (a stale count), with notes tied on score at the cut (the rowid
// decides, as in SQL), with and without bodies, one term and two.
func TestFewAsSorted(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	var ns []*sqlite.NoteRecord
	for i := range 40 {
		ns = append(ns, textNote(fmt.Sprintf("same/%02d.md", 39-i), "quorum"))
	}
	for i := range 20 {
		ns = append(ns, textNote(fmt.Sprintf("more/%02d.md", i), "quorum "+strings.Repeat("and more words ", i)))
	}
	for i := range 10 {
		ns = append(ns, textNote(fmt.Sprintf("lattice/%02d.md", i), "lattice quorum "+strings.Repeat("lattice ", i)))
	}
	put(t, db, ns...)
	if err := db.Search().KeepNoteRows(ctx); err != nil {
		t.Fatal(err)
	}
	const both = `"quorum" OR "lattice"`
	queries := map[string]noema.TextQuery{
		"one term, cut among ties": {Match: `"quorum"`, Limit: 10},
		"one term, cut":            {Match: `"quorum"`, Limit: 55},
		"one term, all":            {Match: `"quorum"`, Limit: 200},
		"one term, bodies":         {Match: `"quorum"`, Limit: 30, Bodies: 30},
		"one term, few bodies":     {Match: `"quorum"`, Limit: 30, Bodies: 5},
		"two terms":                {Match: both, All: `"quorum" AND "lattice"`, Together: true, Limit: 15, Bodies: 15},
		"two terms, all":           {Match: both, All: `"quorum" AND "lattice"`, Together: true, Limit: 100},
		"nothing found":            {Match: `"zebra"`, Limit: 10},
	}
	for name, q := range queries {
		q.Weights = [3]float64{4, 1, 1}
		q.Few = true
		few, sorted, vs := searchBothWays(t, db, q)
		if !vs.Read {
			t.Errorf("%s: versions not read", name)
		}
		if len(few) != min(q.Limit, len(sorted)) || !reflect.DeepEqual(few, sorted) {
			t.Errorf("%s: read unsorted (%d)\n%+v\nsorted by SQLite (%d)\n%+v", name, len(few), few, len(sorted), sorted)
		}
	}
}

// TestPerTermAsTogether checks TextQuery.Terms: each term ranked on its own
// and the scores added up in Go answer as the OR of the terms ranked in one
// expression does (Together, and the default plan) — the same notes, tier,
// order and bm25 to the last bit — with a bonus, a filter, a cut, a prefix
// and a CJK term, the note rows kept in memory or joined; and each hit's
// BodyTerms are the terms the index finds in its body and cjk columns (a
// term in the title only is not the body's).
func TestPerTermAsTogether(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	var ns []*sqlite.NoteRecord
	add := func(path, body string, tags ...string) {
		ns = append(ns, textNote(path, body, tags...))
	}
	for i := range 30 {
		add(fmt.Sprintf("lattice/%02d.md", i), "a lattice "+strings.Repeat("lattice and words ", i%5), "l")
	}
	for i := range 30 {
		add(fmt.Sprintf("quorum/%02d.md", i), strings.Repeat("quorum of ", 1+i%4)+"more words here", "q")
	}
	for i := range 12 {
		add(fmt.Sprintf("both/%02d.md", i), "the lattice quorum "+strings.Repeat("lattice ", i%3)+"and 東京 tower", "l")
	}
	for i := range 6 {
		add(fmt.Sprintf("far/%02d.md", i), "quorum first\n"+strings.Repeat("filler ", 20+i)+"\nlatticed last")
	}
	for i := range 200 {
		add(fmt.Sprintf("filler/%03d.md", i), "words of the harbour and the pier")
	}
	add("titles/Quorum.md", "only the lattice here") // quorum in the title, lattice in the body
	add("titles/Lattice.md", "nothing of either")    // lattice in the title only
	add("tokyo/a.md", "東京 quorum visit")             // cjk and quorum
	add("same/a.md", "quorum lattice")
	add("same/b.md", "quorum lattice") // tied
	put(t, db, ns...)

	const (
		lat  = `{title body} : "lattice"`
		quo  = `{title body} : "quorum"`
		pre  = `{title body} : "latt" *`
		tok  = `cjk : "東京"`
		both = `{title body} : "lattice quorum"`
	)
	queries := map[string]noema.TextQuery{
		"two terms":                 {Terms: []string{lat, quo}, Limit: 200},
		"two terms, cut":            {Terms: []string{lat, quo}, Limit: 7},
		"two terms, other order":    {Terms: []string{quo, lat}, Limit: 200},
		"bonus":                     {Terms: []string{lat, quo}, Bonus: both, BonusHoldsAll: true, Limit: 200},
		"bonus, cut":                {Terms: []string{lat, quo}, Bonus: both, BonusHoldsAll: true, Limit: 5},
		"bonus, cut below the tier": {Terms: []string{lat, quo}, Bonus: both, BonusHoldsAll: true, Limit: 40},
		"prefix and cjk":            {Terms: []string{pre, quo, tok}, Limit: 200},
		"filter":                    {Terms: []string{lat, quo}, Filter: noema.SearchFilter{Tags: []string{"l"}}, Limit: 200},
		"one term found":            {Terms: []string{lat, `{title body} : "zebra"`}, Limit: 200},
		"nothing found":             {Terms: []string{`{title body} : "zebra"`, `{title body} : "okapi"`}, Limit: 200},
	}
	check := func(kept bool) {
		for name, q := range queries {
			q.Weights = [3]float64{4, 1, 1}
			q.Match = strings.Join(q.Terms, " OR ")
			q.All = strings.Join(q.Terms, " AND ")
			var vs noema.IndexVersions
			q.Versions = &vs
			got, err := db.Search().SearchText(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !vs.Read {
				t.Errorf("%s: versions not read", name)
			}
			for _, plan := range []string{"together", "default"} {
				w := q
				w.Terms, w.Versions, w.Together = nil, nil, plan == "together"
				want, err := db.Search().SearchText(ctx, w)
				if err != nil {
					t.Fatalf("%s, %s: %v", name, plan, err)
				}
				// Bit for bit as Together, whose expression sums the bonus's
				// phrases after the terms' as scoreTier does; the default
				// plan sums them first ("(Bonus) AND (Match)"), which can
				// move the last bit.
				strip := func(hs []noema.TextHit) []noema.TextHit {
					out := make([]noema.TextHit, len(hs))
					for i, h := range hs {
						out[i] = noema.TextHit{ID: h.ID, All: h.All, BM25: h.BM25, Note: h.Note}
						if plan == "default" && q.Bonus != "" {
							out[i].BM25 = math.Round(h.BM25 * 1e9)
						}
					}
					return out
				}
				if g, w := strip(got), strip(want); !reflect.DeepEqual(g, w) {
					i := 0
					for i < min(len(g), len(w)) && g[i] == w[i] {
						i++
					}
					t.Errorf("kept %v, %s: per term %d hits, %s %d; first difference at %d: %s", kept, name, len(g), plan, len(w), i, firstOf(g[i:], w[i:]))
				}
			}
			// SearchBodyTerms says of any notes what the per-term ranking
			// says of its hits.
			ids := make([]int64, len(got))
			for i, h := range got {
				ids[i] = h.ID
			}
			held, err := db.Search().SearchBodyTerms(ctx, q.Terms, ids)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range got {
				if held[h.ID] != h.BodyTerms {
					t.Errorf("kept %v, %s: %s: SearchBodyTerms %b, the ranking's body terms %b", kept, name, h.Note.Path, held[h.ID], h.BodyTerms)
				}
			}
			// The body's terms, as the index finds them in the body and
			// cjk columns.
			for i, term := range q.Terms {
				inBody := map[int64]bool{}
				rows, err := db.Read().QueryContext(ctx, `SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?`, `{body cjk} : (`+term+`)`)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var id int64
					if err := rows.Scan(&id); err != nil {
						t.Fatal(err)
					}
					inBody[id] = true
				}
				if err := rows.Close(); err != nil {
					t.Fatal(err)
				}
				for _, h := range got {
					if !h.TermsRead || (h.BodyTerms&(1<<i) != 0) != inBody[h.ID] {
						t.Errorf("kept %v, %s: %s: body terms %b (read %v); the body holds term %d: %v", kept, name, h.Note.Path, h.BodyTerms, h.TermsRead, i, inBody[h.ID])
					}
				}
			}
		}
	}
	check(false)
	if err := db.Search().KeepNoteRows(ctx); err != nil {
		t.Fatal(err)
	}
	check(true)
	// The title's term is not the body's: Quorum.md holds both terms, its
	// body lattice alone; Lattice.md's body neither.
	hits, err := db.Search().SearchText(ctx, noema.TextQuery{Terms: []string{lat, quo}, Match: lat + " OR " + quo, Weights: [3]float64{4, 1, 1}, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, h := range hits {
		switch h.Note.Path {
		case "titles/Quorum.md":
			seen++
			if !h.All || h.BodyTerms != 1 {
				t.Errorf("%s: every term %v, body terms %b; want true and 01", h.Note.Path, h.All, h.BodyTerms)
			}
		case "titles/Lattice.md":
			seen++
			if h.All || h.BodyTerms != 0 {
				t.Errorf("%s: every term %v, body terms %b; want false and 0", h.Note.Path, h.All, h.BodyTerms)
			}
		}
	}
	if seen != 2 {
		t.Errorf("found %d of the two title notes", seen)
	}
}

// firstOf prints the first hit of each list (or that it has none).
func firstOf(a, b []noema.TextHit) string {
	show := func(hs []noema.TextHit) string {
		if len(hs) == 0 {
			return "none"
		}
		h := hs[0]
		return fmt.Sprintf("%s (every term %v, bm25 %v)", h.Note.Path, h.All, h.BM25)
	}
	return show(a) + " against " + show(b)
}

// TestSearchBodiesByCount reads the bodies of every number of notes
// around the statement's switch (a UNION ALL of point queries below 16
// ids, json_each from 16), the ids drawn with repeats, missing ids, 0 and
// negative ones among them, against the content table read whole.
func TestSearchBodiesByCount(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	for i := range 24 {
		body := fmt.Sprintf("body of note %d: %s", i, strings.Repeat("words ", i))
		if i%7 == 3 {
			body = ""
		}
		put(t, db, textNote(fmt.Sprintf("n%02d.md", i), body))
	}
	all := map[int64]string{}
	var hi int64
	noematest.EachRow(t, db.Read(), `SELECT id, c1 FROM notes_fts_content`, func(r *sql.Rows) error {
		var id int64
		var body string
		err := r.Scan(&id, &body)
		all[id], hi = body, max(hi, id)
		return err
	})
	rng := rand.New(rand.NewPCG(21, 22))
	for n := range 34 {
		for range 6 {
			ids := make([]int64, n)
			want := map[int64]string{}
			for i := range ids {
				ids[i] = rng.Int64N(hi+6) - 3
				if i > 0 && rng.IntN(4) == 0 {
					ids[i] = ids[rng.IntN(i)]
				}
				if b, ok := all[ids[i]]; ok {
					want[ids[i]] = b
				}
			}
			got, err := db.Search().SearchBodies(ctx, ids)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%d ids %v: %v %v, want %v", n, ids, got, err, want)
			}
		}
	}
}

// TestSearchConceptNotesKeptAsJoined checks the concept lift's notes read
// from the rows kept (the linking ids joined in one row, sorted and made
// unique in Go) against the statement that joins the notes, for every
// concept of a generated vault and for a page that links no one, a page
// that links its own concept, a concept without a page and an unknown id.
func TestSearchConceptNotesKeptAsJoined(t *testing.T) {
	ctx := context.Background()
	small := MustOpen(t)
	solo, self := note("concepts/Solo.md", 1), note("concepts/Self.md", 2, "Self", "self", "Rust")
	solo.Page.Explicit, self.Page.Explicit = true, true
	put(t, small, solo, self, note("a.md", 3, "self"), note("b.md", 4, "Rust", "rust", "Self"))
	for _, db := range []*sqlite.DB{small, noematest.SyncedCorpus(t, corpus.Options{Seed: 3, Notes: 400})} {
		var ids []string
		noematest.EachRow(t, db.Read(), `SELECT id FROM concepts ORDER BY id`, func(r *sql.Rows) error {
			var id string
			ids = append(ids, id)
			return r.Scan(&ids[len(ids)-1])
		})
		ids = append(ids, "no-such-concept")
		paths := func(id string) []string {
			notes, err := db.Search().SearchConceptNotes(ctx, id, noema.SearchFilter{})
			if err != nil {
				t.Fatal(err)
			}
			out := []string{}
			for _, n := range notes {
				out = append(out, n.Path)
			}
			slices.Sort(out)
			if len(slices.Compact(slices.Clone(out))) != len(out) {
				t.Fatalf("concept %s: a note twice: %v", id, out)
			}
			return out
		}
		joined := map[string][]string{}
		for _, id := range ids {
			joined[id] = paths(id)
		}
		if err := db.Search().KeepNoteRows(ctx); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if got := paths(id); !slices.Equal(got, joined[id]) {
				t.Errorf("concept %s: kept rows %v, joined %v", id, got, joined[id])
			}
		}
		if db == small {
			want := map[string][]string{"solo": {"concepts/Solo.md"}, "self": {"a.md", "b.md", "concepts/Self.md"}, "rust": {"b.md", "concepts/Self.md"}}
			for k, w := range want {
				c, ok, err := db.Search().SearchConcept(ctx, k)
				if err != nil || !ok || !slices.Equal(joined[c.ID], w) {
					t.Errorf("concept %s: %v %v %v, want %v", k, joined[c.ID], ok, err, w)
				}
			}
		}
		if len(joined["no-such-concept"]) != 0 {
			t.Errorf("unknown concept: %v", joined["no-such-concept"])
		}
	}
}

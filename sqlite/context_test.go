package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/sqlite"
)

// dumpGraph renders a mention graph as sorted lines: each note with its
// access time and concepts (by label), each concept with its notes.
func dumpGraph(g noema.MentionGraph) string {
	var lines []string
	for i := range g.NumNotes() {
		n := g.NoteAt(int32(i))
		if n.Deleted {
			continue
		}
		var cs []string
		for _, c := range n.Concepts {
			cs = append(cs, g.ConceptAt(c).Label)
		}
		sort.Strings(cs)
		acc := "-"
		if !n.Accessed.IsZero() {
			acc = n.Accessed.UTC().Format(time.RFC3339)
		}
		lines = append(lines, fmt.Sprintf("note %s %q %s %s: %s", n.Path, n.Title, n.Modified.UTC().Format("2006-01-02"), acc, strings.Join(cs, ",")))
	}
	for j := range g.NumConcepts() {
		c := g.ConceptAt(int32(j))
		if c.Deleted {
			continue
		}
		var ns []string
		for _, n := range c.Notes {
			ns = append(ns, g.NoteAt(n).Path)
		}
		sort.Strings(ns)
		lines = append(lines, fmt.Sprintf("concept %s: %s", c.Label, strings.Join(ns, ",")))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// canonGraph renders everything a mention graph holds, by row id and
// concept id rather than by number, so that graphs numbered differently
// (one refreshed, one read in full) compare equal when they hold the same:
// each live note with its path, title, times and concepts in link order,
// each live concept with its label and its notes in note order with its
// place in each.
func canonGraph(g noema.MentionGraph) string {
	var b strings.Builder
	for i := range g.NumNotes() {
		n := g.NoteAt(int32(i))
		if n.Deleted {
			continue
		}
		var order []string
		for _, c := range n.Order {
			order = append(order, g.ConceptAt(c).ID)
		}
		fmt.Fprintf(&b, "note %d %q %q %d %d %v\n", n.ID, n.Path, n.Title, n.Modified.UnixNano(), n.Accessed.UnixNano(), order)
	}
	var ids []string
	for j := range g.NumConcepts() {
		if c := g.ConceptAt(int32(j)); !c.Deleted {
			ids = append(ids, c.ID)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		j, _ := g.Concept(id)
		c := g.ConceptAt(j)
		fmt.Fprintf(&b, "concept %s %q:", c.ID, c.Label)
		for x, n := range c.Notes {
			fmt.Fprintf(&b, " %d@%d", g.NoteAt(n).ID, c.At[x])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// checkGraph asserts the graph's structure is consistent: numbers round
// trip, lists ascending, each note–concept edge in both lists at the
// same place, and holes empty.
func checkGraph(t *testing.T, g noema.MentionGraph) {
	t.Helper()
	var lastID int64
	for i := range g.NumNotes() {
		n := g.NoteAt(int32(i))
		if i > 0 && n.ID <= lastID {
			t.Errorf("note %d: row id %d after %d", i, n.ID, lastID)
		}
		lastID = n.ID
		if n.Deleted {
			if _, ok := g.Note(n.ID); ok || len(n.Concepts)+len(n.Order) > 0 {
				t.Errorf("deleted note %d: found %v, concepts %v", n.ID, ok, n.Order)
			}
			continue
		}
		if j, ok := g.Note(n.ID); !ok || int(j) != i {
			t.Errorf("Note(%d) = %d, %v; want %d", n.ID, j, ok, i)
		}
		if !slices.IsSorted(n.Concepts) {
			t.Errorf("%s: concepts not ascending: %v", n.Path, n.Concepts)
		}
		if len(n.Concepts) != len(n.Order) {
			t.Errorf("%s: concepts %v, order %v", n.Path, n.Concepts, n.Order)
		}
		for p, c := range n.Order {
			cc := g.ConceptAt(c)
			x, found := slices.BinarySearch(cc.Notes, int32(i))
			if !found || cc.At[x] != int32(p) {
				t.Errorf("%s links %s at %d, which does not list it there", n.Path, cc.Label, p)
			}
			if cc.Deleted {
				t.Errorf("%s links the deleted concept %s", n.Path, cc.ID)
			}
		}
	}
	for j := range g.NumConcepts() {
		c := g.ConceptAt(int32(j))
		if c.Deleted {
			if k, ok := g.Concept(c.ID); (ok && int(k) == j) || len(c.Notes) > 0 {
				t.Errorf("deleted concept %s: found %v, notes %v", c.ID, ok, c.Notes)
			}
			continue
		}
		if k, ok := g.Concept(c.ID); !ok || int(k) != j {
			t.Errorf("Concept(%s) = %d, %v; want %d", c.ID, k, ok, j)
		}
		if !slices.IsSorted(c.Notes) || len(c.Notes) != len(c.At) {
			t.Errorf("%s: notes not ascending, or not one place each", c.Label)
		}
		for x, i := range c.Notes {
			if n := g.NoteAt(i); n.Deleted || int(c.At[x]) >= len(n.Order) || n.Order[c.At[x]] != int32(j) {
				t.Errorf("%s lists note %d, which does not link it there", c.Label, n.ID)
			}
		}
	}
}

func graphOf(t *testing.T, db *sqlite.DB, prev noema.MentionGraph) noema.MentionGraph {
	t.Helper()
	g, err := db.Mentions().MentionGraph(context.Background(), prev)
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, g)
	return g
}

func TestMentionGraphRefresh(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	empty := graphOf(t, db, nil)
	if empty.NumNotes() != 0 || empty.NumConcepts() != 0 {
		t.Fatalf("empty index: %s", dumpGraph(empty))
	}

	// Two spellings of one key are one concept, listed once.
	put(t, db, note("a.md", 1, "Apple", "apple", "Banana"), note("b.md", 2, "Banana", "Cherry"))
	g1 := graphOf(t, db, empty)
	want1 := `concept Apple: a.md
concept Banana: a.md,b.md
concept Cherry: b.md
note a.md "a" 2026-01-01 -: Apple,Banana
note b.md "b" 2026-01-02 -: Banana,Cherry`
	if got := dumpGraph(g1); got != want1 {
		t.Fatalf("graph:\n%s\nwant:\n%s", got, want1)
	}

	// Nothing committed: the same graph, on every read connection.
	for range 8 {
		if g := graphOf(t, db, g1); g != g1 {
			t.Fatal("unchanged index gave a new graph")
		}
	}
	// Concurrent callers on several connections agree.
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if g, err := db.Mentions().MentionGraph(ctx, g1); err != nil || g != g1 {
				t.Errorf("concurrent: %v, same graph %v", err, g == g1)
			}
		})
	}
	wg.Wait()

	// A new note: its links are read, the others' reused.
	put(t, db, note("c.md", 3, "Cherry", "Date"))
	g2 := graphOf(t, db, g1)
	if g2 == g1 {
		t.Fatal("a new note left the graph unchanged")
	}
	if got := dumpGraph(g2); !strings.Contains(got, `note c.md "c" 2026-01-03 -: Cherry,Date`) ||
		!strings.Contains(got, "concept Cherry: b.md,c.md") {
		t.Fatalf("after a new note:\n%s", got)
	}
	if dumpGraph(g1) != want1 {
		t.Fatal("refreshing changed the previous graph")
	}

	// A note linking only known concepts: the registry's version moves
	// (updated times) but not its numbering; the other notes' concepts are
	// reused as they are.
	put(t, db, note("d.md", 5, "Apple", "Date"))
	g2 = graphOf(t, db, g2)
	if got := dumpGraph(g2); !strings.Contains(got, `note d.md "d" 2026-01-05 -: Apple,Date`) ||
		!strings.Contains(got, "concept Apple: a.md,d.md") || !strings.Contains(got, "concept Date: c.md,d.md") ||
		!strings.Contains(got, `note b.md "b" 2026-01-02 -: Banana,Cherry`) {
		t.Fatalf("after a note linking known concepts:\n%s", got)
	}
	if err := db.Write(ctx, func(tx *sqlite.Tx) error { return sqlite.DeleteNote(tx, "d.md") }); err != nil {
		t.Fatal(err)
	}
	g2 = graphOf(t, db, g2)

	// An access changes the note's reference time.
	db.Now = func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	db.Notes().LogAccess(ctx, "a.md")
	if err := db.FlushAccesses(ctx); err != nil {
		t.Fatal(err)
	}
	g3 := graphOf(t, db, g2)
	if got := dumpGraph(g3); !strings.Contains(got, `note a.md "a" 2026-01-01 2026-02-01T00:00:00Z: Apple,Banana`) {
		t.Fatalf("after an access:\n%s", got)
	}

	// A renamed note keeps its id, links and access; only its path moves.
	if err := db.Write(ctx, func(tx *sqlite.Tx) error { return sqlite.RenameNote(tx, "a.md", "z.md") }); err != nil {
		t.Fatal(err)
	}
	g3 = graphOf(t, db, g3)
	if got := dumpGraph(g3); !strings.Contains(got, `note z.md "a" 2026-01-01 2026-02-01T00:00:00Z: Apple,Banana`) ||
		!strings.Contains(got, "concept Apple: z.md") {
		t.Fatalf("after a rename:\n%s", got)
	}
	if err := db.Write(ctx, func(tx *sqlite.Tx) error { return sqlite.RenameNote(tx, "z.md", "a.md") }); err != nil {
		t.Fatal(err)
	}
	g3 = graphOf(t, db, g3)

	// A changed note (new hash) loses a link and gains one.
	changed := note("b.md", 4, "Banana", "Elder")
	changed.Hash = "h2"
	put(t, db, changed)
	g4 := graphOf(t, db, g3)
	if got := dumpGraph(g4); !strings.Contains(got, `note b.md "b" 2026-01-04 -: Banana,Elder`) ||
		!strings.Contains(got, "concept Cherry: c.md") {
		t.Fatalf("after an edit:\n%s", got)
	}

	// A deleted note disappears, and with it a concept nothing links.
	remove(t, db, "c.md")
	g5 := graphOf(t, db, g4)
	// Cherry is a concept no longer: nothing links it.
	want5 := `concept Apple: a.md
concept Banana: a.md,b.md
concept Elder: b.md
note a.md "a" 2026-01-01 2026-02-01T00:00:00Z: Apple,Banana
note b.md "b" 2026-01-04 -: Banana,Elder`
	if got := dumpGraph(g5); got != want5 {
		t.Fatalf("after a delete:\n%s\nwant:\n%s", got, want5)
	}
	var cherry string
	for j := range g1.NumConcepts() {
		if c := g1.ConceptAt(int32(j)); c.Label == "Cherry" {
			cherry = c.ID
		}
	}
	if _, ok := g5.Concept(cherry); ok {
		t.Error("the dropped concept is still indexed")
	}
	// From scratch, the same graph.
	if got := dumpGraph(graphOf(t, db, nil)); got != want5 {
		t.Fatalf("rebuilt graph:\n%s\nwant:\n%s", got, want5)
	}
}

func TestNoteBodiesAndRelations(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	put(t, db, note("a.md", 1, "Apple"))
	g := graphOf(t, db, nil)
	id := g.NoteAt(0).ID
	bodies, err := db.Mentions().NoteBodies(ctx, []int64{id, id + 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(bodies) != 1 || bodies[id] != "Apple" {
		t.Fatalf("bodies = %v", bodies)
	}
	if none, err := db.Mentions().NoteBodies(ctx, nil); err != nil || len(none) != 0 {
		t.Fatalf("no ids: %v %v", none, err)
	}
	rels, err := db.Mentions().ConceptRelations(ctx, g.ConceptAt(0).ID)
	if err != nil || len(rels) != 0 {
		t.Fatalf("relations = %v, %v", rels, err)
	}
}

// BenchmarkMentionGraph measures the mention graph of a synced
// 10,000-note vault: built from nothing (the first build_context), checked
// when nothing changed (every call), refreshed after an access, and
// refreshed after a write of a note linking the hub concept (as write_note
// writes it: the registry updated incrementally).
//
//	go test -run '^$' -bench MentionGraph -benchtime 50x ./sqlite/
func BenchmarkMentionGraph(b *testing.B) {
	ctx := context.Background()
	db := noematest.SyncedCorpus(b, corpus.Options{Seed: 42, Notes: 10000})
	g, err := db.Mentions().MentionGraph(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	noematest.Bench(b, "build", func() error { _, err := db.Mentions().MentionGraph(ctx, nil); return err })
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if g2, err := db.Mentions().MentionGraph(ctx, g); err != nil || g2 != g {
				b.Fatal(err, g2 == g)
			}
		}
	})
	b.Run("after-access", func(b *testing.B) {
		path := g.NoteAt(0).Path
		for b.Loop() {
			b.StopTimer()
			db.Notes().LogAccess(ctx, path)
			if err := db.FlushAccesses(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if g, err = db.Mentions().MentionGraph(ctx, g); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("after-write", func(b *testing.B) {
		hub, n := "", 0
		for j := range g.NumConcepts() {
			if c := g.ConceptAt(int32(j)); len(c.Notes) > n {
				hub, n = c.Label, len(c.Notes)
			}
		}
		i := 0
		for b.Loop() {
			b.StopTimer()
			i++
			rec := note(fmt.Sprintf("bench/w%d.md", i%50), 1+i%28, hub, "Benchmark topic", fmt.Sprintf("Topic %d", i%7))
			rec.Hash = fmt.Sprint("h", i)
			rec.NameKeys = []string{key(rec.Title)}
			noematest.Rewrite(b, db, []*sqlite.NoteRecord{rec}, nil, true)
			b.StartTimer()
			if g, err = db.Mentions().MentionGraph(ctx, g); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestMentionGraphIncrementalMatchesFull applies a seeded random sequence
// of changes — notes written, edited (links added, dropped, reordered),
// renamed, deleted; explicit pages that take other concepts' names as
// aliases (a merge) and give them back, some with front matter times;
// accesses — through the incremental registry update and the full
// recompute alike, refreshing one graph after each step, and checks after
// every step that the refreshed graph holds exactly what a graph read from
// scratch holds (and the concept links what a scan of the tables finds),
// and after every incremental write that the registry is what a full
// recompute derives.
func TestMentionGraphIncrementalMatchesFull(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			db := MustOpen(t)
			ctx := context.Background()
			r := rand.New(rand.NewPCG(seed, 99))
			var pool []string
			for i := range 40 {
				pool = append(pool, fmt.Sprintf("Topic %d", i), fmt.Sprintf("topic-%d", i))
			}
			paths := func() string { return fmt.Sprintf("n%02d.md", r.IntN(30)) }
			g := graphOf(t, db, nil)
			day := 1
			for step := range 150 {
				day++
				var what string
				switch op := r.IntN(10); {
				case op < 4: // write or edit notes
					var recs []*sqlite.NoteRecord
					for range 1 + r.IntN(3) {
						var links []string
						for range r.IntN(12) {
							links = append(links, pool[r.IntN(len(pool))])
						}
						rec := note(paths(), 1+day%28, links...)
						rec.Hash = fmt.Sprintf("h%d-%d", step, r.IntN(1000))
						rec.NameKeys = []string{key(rec.Title)}
						recs = append(recs, rec)
					}
					what = "write"
					incremental := r.IntN(2) == 0
					noematest.Rewrite(t, db, recs, nil, incremental)
					if kept := noematest.ConceptTables(t, db); incremental {
						if full := noematest.Recomputed(t, db, key); full != kept {
							t.Fatalf("step %d: the registry kept by the writes differs from a full recompute:\nkept:\n%.3000s\nfull:\n%.3000s", step, kept, full)
						}
					}
				case op < 5: // delete notes
					what = "delete"
					noematest.Rewrite(t, db, nil, []string{paths(), paths()}, r.IntN(2) == 0)
				case op < 6: // rename a note (its id, links and access move with it)
					from, to := paths(), paths()
					what = "rename " + from + " " + to
					err := db.Write(ctx, func(tx *sqlite.Tx) error {
						var n int
						if err := tx.QueryRow(`SELECT COUNT(*) FROM notes WHERE path = ?`, to).Scan(&n); err != nil || n > 0 {
							return err
						}
						if err := sqlite.RenameNote(tx, from, to); err != nil {
							return err
						}
						_, err := sqlite.RecomputeConcepts(tx, key)
						return err
					})
					if err != nil {
						t.Fatal(err)
					}
				case op < 8: // a page taking other names as aliases (a merge), or dropping them
					p := note(fmt.Sprintf("concepts/page%d.md", r.IntN(4)), 1+day%28, pool[r.IntN(len(pool))])
					p.Page.Explicit = true
					p.Page.Label = pool[r.IntN(len(pool))]
					for range r.IntN(4) {
						p.Page.Aliases = append(p.Page.Aliases, pool[r.IntN(len(pool))])
					}
					p.Hash = fmt.Sprintf("p%d", step)
					if r.IntN(3) == 0 { // front matter times, which override the links'
						p.Page.Created = time.Date(2025, 1, 1+r.IntN(28), 0, 0, 0, 0, time.UTC)
					}
					if r.IntN(3) == 0 {
						p.Page.Updated = time.Date(2026, 6, 1+r.IntN(28), 0, 0, 0, 0, time.UTC)
					}
					p.NameKeys = []string{key(p.Title)}
					what = "page " + p.Path
					if r.IntN(4) == 0 {
						noematest.Rewrite(t, db, nil, []string{p.Path}, false)
					} else {
						noematest.Rewrite(t, db, []*sqlite.NoteRecord{p}, nil, r.IntN(2) == 0)
					}
				default: // read notes
					what = "access"
					db.Now = func() time.Time { return time.Date(2026, 3, 1, 0, 0, step, 0, time.UTC) }
					for range 1 + r.IntN(3) {
						db.Notes().LogAccess(ctx, paths())
					}
					if err := db.FlushAccesses(ctx); err != nil {
						t.Fatal(err)
					}
				}
				g = graphOf(t, db, g)
				full := graphOf(t, db, nil)
				if got, want := canonGraph(g), canonGraph(full); got != want {
					t.Fatalf("step %d (%s): the refreshed graph differs from one read in full:\nrefreshed:\n%s\nfull:\n%s", step, what, got, want)
				}
				if step%3 == 0 {
					g = graphOf(t, db, g) // not every step: ConceptLinks refreshes the DB's graph on its own too
				}
				links, err := db.Graph().ConceptLinks(ctx)
				if err != nil {
					t.Fatal(err)
				}
				scan, err := db.ConceptLinksScan(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprintf("%+v", links) != fmt.Sprintf("%+v", scan) { // nil and empty lists alike
					t.Fatalf("step %d (%s): concept links from the graph differ from a scan of the tables:\ngraph: %+v\nscan:  %+v", step, what, links, scan)
				}
			}
		})
	}
}

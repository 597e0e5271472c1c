package sqlite_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/sqlite"
)

// dumpGraph renders a mention graph as sorted lines: each note with its
// access time and concepts (by label), each concept with its notes.
func dumpGraph(g *sqlite.MentionGraph) string {
	var lines []string
	for _, n := range g.Notes {
		var cs []string
		for _, c := range n.Concepts {
			cs = append(cs, g.Concepts[c].Label)
		}
		sort.Strings(cs)
		acc := "-"
		if !n.Accessed.IsZero() {
			acc = n.Accessed.UTC().Format(time.RFC3339)
		}
		lines = append(lines, fmt.Sprintf("note %s %q %s %s: %s", n.Path, n.Title, n.Modified.UTC().Format("2006-01-02"), acc, strings.Join(cs, ",")))
	}
	for _, c := range g.Concepts {
		var ns []string
		for _, n := range c.Notes {
			ns = append(ns, g.Notes[n].Path)
		}
		sort.Strings(ns)
		lines = append(lines, fmt.Sprintf("concept %s: %s", c.Label, strings.Join(ns, ",")))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// checkGraph asserts the graph's structure is consistent: indexes round
// trip, lists ascending, and each note–concept edge is in both lists.
func checkGraph(t *testing.T, g *sqlite.MentionGraph) {
	t.Helper()
	for i, n := range g.Notes {
		if j, ok := g.Note(n.ID); !ok || int(j) != i {
			t.Errorf("Note(%d) = %d, %v; want %d", n.ID, j, ok, i)
		}
		if !slices.IsSorted(n.Concepts) {
			t.Errorf("%s: concepts not ascending: %v", n.Path, n.Concepts)
		}
		for _, c := range n.Concepts {
			if _, found := slices.BinarySearch(g.Concepts[c].Notes, int32(i)); !found {
				t.Errorf("%s links %s, which does not list it", n.Path, g.Concepts[c].Label)
			}
		}
	}
	for j, c := range g.Concepts {
		if k, ok := g.Concept(c.ID); !ok || int(k) != j {
			t.Errorf("Concept(%s) = %d, %v; want %d", c.ID, k, ok, j)
		}
		if !slices.IsSorted(c.Notes) {
			t.Errorf("%s: notes not ascending", c.Label)
		}
	}
}

func graphOf(t *testing.T, db *sqlite.DB, prev *sqlite.MentionGraph) *sqlite.MentionGraph {
	t.Helper()
	g, err := db.MentionGraph(context.Background(), prev)
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
	if len(empty.Notes) != 0 || len(empty.Concepts) != 0 {
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
			if g, err := db.MentionGraph(ctx, g1); err != nil || g != g1 {
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
	db.LogAccess(ctx, "a.md")
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
	cherry := slices.IndexFunc(g1.Concepts, func(c sqlite.MentionConcept) bool { return c.Label == "Cherry" })
	if _, ok := g5.Concept(g1.Concepts[cherry].ID); ok {
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
	id := g.Notes[0].ID
	bodies, err := db.NoteBodies(ctx, []int64{id, id + 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(bodies) != 1 || bodies[id] != "Apple" {
		t.Fatalf("bodies = %v", bodies)
	}
	if none, err := db.NoteBodies(ctx, nil); err != nil || len(none) != 0 {
		t.Fatalf("no ids: %v %v", none, err)
	}
	rels, err := db.ConceptRelations(ctx, g.Concepts[0].ID)
	if err != nil || len(rels) != 0 {
		t.Fatalf("relations = %v, %v", rels, err)
	}
}

// BenchmarkMentionGraph measures the mention graph of a synced
// 10,000-note vault: built from nothing (the first build_context), checked
// when nothing changed (every call), and refreshed after a commit that
// touched no note (an access: every note row is still compared).
//
//	go test -run '^$' -bench MentionGraph -benchtime 50x ./sqlite/
func BenchmarkMentionGraph(b *testing.B) {
	ctx := context.Background()
	db := noematest.SyncedCorpus(b, corpus.Options{Seed: 42, Notes: 10000})
	g, err := db.MentionGraph(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	noematest.Bench(b, "build", func() error { _, err := db.MentionGraph(ctx, nil); return err })
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if g2, err := db.MentionGraph(ctx, g); err != nil || g2 != g {
				b.Fatal(err, g2 == g)
			}
		}
	})
	b.Run("after-access", func(b *testing.B) {
		path := g.Notes[0].Path
		for b.Loop() {
			b.StopTimer()
			db.LogAccess(ctx, path)
			if err := db.FlushAccesses(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if g, err = db.MentionGraph(ctx, g); err != nil {
				b.Fatal(err)
			}
		}
	})
}

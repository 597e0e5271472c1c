package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/sqlite"
)

// MustOpen opens an index in a temporary folder, closed at cleanup.
func MustOpen(tb testing.TB) *sqlite.DB { return noematest.OpenIndex(tb) }

// key is a simple stand-in for vault.Key.
func key(s string) string { return noematest.Key(s) }

// put writes recs into db and recomputes the concepts.
func put(t *testing.T, db *sqlite.DB, recs ...*sqlite.NoteRecord) {
	t.Helper()
	noematest.PutNotes(t, db, recs...)
}

// remove deletes the notes at paths and recomputes the concepts, in one
// transaction.
func remove(t *testing.T, db *sqlite.DB, paths ...string) {
	t.Helper()
	noematest.Rewrite(t, db, nil, paths, false)
}

func note(path string, day int, links ...string) *sqlite.NoteRecord {
	ts := time.Date(2026, 1, day, 0, 0, 0, 0, time.UTC)
	return noematest.NoteRecord(path, "h"+path, ts, ts, links...)
}

type conceptRow struct {
	id, label string
	mentions  int
}

func concepts(t *testing.T, db *sqlite.DB) map[string]conceptRow {
	t.Helper()
	out := map[string]conceptRow{}
	noematest.EachRow(t, db.Read(), `SELECT c.key, c.id, c.label, COALESCE((SELECT SUM(count) FROM mentions m WHERE m.concept_id = c.id), 0) FROM concepts c`, func(rows *sql.Rows) error {
		var k string
		var c conceptRow
		err := rows.Scan(&k, &c.id, &c.label, &c.mentions)
		out[k] = c
		return err
	})
	return out
}

func TestImplicitConceptsAndLabels(t *testing.T) {
	db := MustOpen(t)
	put(t, db,
		note("a.md", 1, "Gradient_Checkpointing", "gradient checkpointing", "Zeta"),
		note("b.md", 2, "gradient checkpointing", "zeta"),
	)
	got := concepts(t, db)
	if len(got) != 2 {
		t.Fatalf("concepts = %v, want 2", got)
	}
	gc := got["gradient checkpointing"]
	if gc.label != "gradient checkpointing" || gc.mentions != 3 {
		t.Errorf("gc = %+v, want most frequent spelling and 3 mentions", gc)
	}
	// Ties: lexicographically smallest spelling ("Zeta" < "zeta").
	if z := got["zeta"]; z.label != "Zeta" || z.id != noema.ConceptID("zeta", 1) {
		t.Errorf("zeta = %+v", z)
	}
	// Removing the only linking note removes the concept.
	remove(t, db, "b.md", "a.md")
	if got := concepts(t, db); len(got) != 0 {
		t.Errorf("after delete: %v", got)
	}
}

func TestPageAliasesResolveLinks(t *testing.T) {
	db := MustOpen(t)
	page := note("concepts/garbage-collection.md", 1)
	page.Page = sqlite.PageRecord{Explicit: true, ConceptID: "c_fixed", Label: "Garbage Collection", Aliases: []string{"GC"}}
	put(t, db, page, note("n.md", 3, "GC", "gc", "Garbage collection"))
	got := concepts(t, db)
	if len(got) != 1 {
		t.Fatalf("concepts = %v", got)
	}
	c := got["garbage collection"]
	if c.id != "c_fixed" || c.label != "Garbage Collection" || c.mentions != 3 {
		t.Errorf("page concept = %+v", c)
	}
}

func TestTitleMatchPage(t *testing.T) {
	db := MustOpen(t)
	foo := note("Foo Bar.md", 1)
	foo.Page.Aliases = []string{"FB"}
	put(t, db, foo, note("x.md", 2, "FB"), note("unlinked.md", 2))
	got := concepts(t, db)
	if len(got) != 1 || got["foo bar"].mentions != 1 {
		t.Fatalf("concepts = %v, want the title-matched page concept with 1 mention", got)
	}
}

func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	var dbs []*sqlite.DB
	for range 3 {
		db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs = append(dbs, db)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 300)
	for i, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 40 {
				r := note(filepath.Join("w", string(rune('a'+i)), string(rune('a'+j%26))+strings.Repeat("x", j)+".md"), 1, "Shared", "Own")
				errs <- db.Write(context.Background(), func(tx *sqlite.Tx) error {
					if _, err := sqlite.PutNote(tx, r); err != nil {
						return err
					}
					_, err := sqlite.RecomputeConcepts(tx, key)
					return err
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := dbs[0].Read().QueryRow(`SELECT COUNT(*) FROM notes`).Scan(&n); err != nil || n != 120 {
		t.Fatalf("notes = %d, %v; want 120", n, err)
	}
	if got := concepts(t, dbs[0]); got["shared"].mentions != 120 {
		t.Errorf("shared = %+v", got["shared"])
	}
}

// TestNoteConceptsCountsToTwo: the notes linking each of a note's concepts
// are counted up to 2 (a write only asks whether another note links it).
func TestNoteConceptsCountsToTwo(t *testing.T) {
	db := MustOpen(t)
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		noematest.Rewrite(t, db, []*sqlite.NoteRecord{noematest.NoteRecord(fmt.Sprintf("n%d.md", i), "h", day, day, "Hub")}, nil, true)
	}
	noematest.Rewrite(t, db, []*sqlite.NoteRecord{noematest.NoteRecord("solo.md", "s", day, day, "Hub", "Solo")}, nil, true)
	got, err := db.Concepts().NoteConcepts(context.Background(), "solo.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []noema.NoteConcept{{ID: got[0].ID, Label: "Hub", Notes: 2}, {ID: got[1].ID, Label: "Solo", Notes: 1}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("NoteConcepts = %+v, want %+v", got, want)
	}
}

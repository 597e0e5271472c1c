package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/sqlite"
)

// registry dumps the concept tables in a stable order.
func registry(t *testing.T, db *sqlite.DB) string {
	t.Helper()
	return noematest.ConceptTables(t, db)
}

// writeIncremental writes recs and deletes paths in one transaction the way
// a note operation does: capture, write, apply the change.
func writeIncremental(t *testing.T, db *sqlite.DB, recs []*sqlite.NoteRecord, deleted []string) {
	t.Helper()
	noematest.Rewrite(t, db, recs, deleted, true)
}

// TestIncrementalManyKeysMatchesFull writes batches of notes that link
// up to 80 keys each (odd spellings, NUL and quotes included, creation
// times of zero) through the set-based incremental update, and checks after
// each batch that a full recompute would change nothing.
func TestIncrementalManyKeysMatchesFull(t *testing.T) {
	db := MustOpen(t)
	r := rand.New(rand.NewPCG(3, 5))
	var pool []string
	for i := range 150 {
		pool = append(pool, fmt.Sprintf("Key %d", i), fmt.Sprintf("key-%d", i))
	}
	pool = append(pool, "a\x00b", `quote "x"`, `back\slash`, "Café", "café", "日本語")
	for step := range 40 {
		var recs []*sqlite.NoteRecord
		var deleted []string
		for n := range 1 + r.IntN(3) {
			path := fmt.Sprintf("note %d.md", (step+n*7)%9)
			if r.IntN(8) == 0 {
				deleted = append(deleted, path)
				continue
			}
			var links []string
			for range r.IntN(80) {
				links = append(links, pool[r.IntN(len(pool))])
			}
			if r.IntN(3) == 0 { // link a note's title: it becomes a page
				links = append(links, fmt.Sprintf("Note %d", r.IntN(9)))
			}
			day := 1 + r.IntN(28)
			if r.IntN(6) == 0 { // link its own title: the note becomes a page
				links = append(links, strings.TrimSuffix(path, ".md"))
			}
			rec := note(path, day, links...)
			if r.IntN(5) == 0 {
				rec.Created = time.Time{} // zero creation time
			}
			rec.NameKeys = []string{key(rec.Title)}
			recs = append(recs, rec)
		}
		writeIncremental(t, db, recs, deleted)
		incremental := registry(t, db)
		if full := noematest.Recomputed(t, db, key); full != incremental {
			t.Fatalf("step %d: incremental registry differs from a full recompute:\nincremental:\n%.2000s\nfull:\n%.2000s", step, incremental, full)
		}
	}
}

// TestIncrementalTakenID: a new implicit concept whose derived id is taken
// (the concept first seen under that key has since been renamed) gets the
// next suffixed id.
func TestIncrementalTakenID(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	if err := db.Write(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`INSERT INTO concepts (id, key, label) VALUES (?, 'renamed', 'Renamed')`, noema.ConceptID("gamma", 1))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	rec := note("n.md", 1, "Gamma")
	rec.NameKeys = []string{"n"}
	writeIncremental(t, db, []*sqlite.NoteRecord{rec}, nil)
	var id string
	if err := db.Read().QueryRow(`SELECT concept_id FROM concept_keys WHERE key = 'gamma'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if want := noema.ConceptID("gamma", 2); id != want {
		t.Errorf("id = %s, want %s", id, want)
	}
}

// TestIncrementalLinkingATitle: linking a note's title makes the note a
// page and unlinking it makes it an ordinary note again, in a write that
// touches only the linking note; the registry equals a full recompute each
// time.
func TestIncrementalLinkingATitle(t *testing.T) {
	db := MustOpen(t)
	target := note("target.md", 1, "Other")
	target.NameKeys = []string{"target"}
	writeIncremental(t, db, []*sqlite.NoteRecord{target}, nil)
	for i, links := range [][]string{{"Target", "x"}, {"x"}, {"TARGET"}, nil} {
		linker := note("linker.md", 2+i, links...)
		linker.NameKeys = []string{"linker"}
		writeIncremental(t, db, []*sqlite.NoteRecord{linker}, nil)
		incremental := registry(t, db)
		if full := noematest.Recomputed(t, db, key); full != incremental {
			t.Fatalf("links %q: incremental registry differs from a full recompute:\nincremental:\n%s\nfull:\n%s", links, incremental, full)
		}
	}
}

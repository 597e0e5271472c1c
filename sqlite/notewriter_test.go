package sqlite_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/sqlite"
)

// writeBatch writes recs in one transaction with a NoteWriter, deferring
// the full-text rows when deferText is set, and returns how many rows the
// full-text index's data table holds afterwards.
func writeBatch(t *testing.T, db *sqlite.DB, deferText bool, recs []*sqlite.NoteRecord, fresh bool) int {
	t.Helper()
	err := db.Write(context.Background(), func(tx *sqlite.Tx) error {
		w, err := sqlite.NewNoteWriter(tx)
		if err != nil {
			return err
		}
		defer w.Close()
		if deferText {
			w.DeferText()
		}
		for _, r := range recs {
			if _, err := w.Put(r, fresh); err != nil {
				return err
			}
		}
		if deferText {
			return w.Flush()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Read().QueryRow(`SELECT COUNT(*) FROM notes_fts_data`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNoteWriterDeferText: deferred full-text rows index exactly what
// immediate ones do — a note written twice in a batch by its last version,
// a note rewritten over an older one without the old words — and a batch
// of them leaves the index under a third of the data rows that rows
// written between the notes' other rows leave (each was flushed as a
// segment of its own, and merged: 21 rows against 6 for 300 notes).
func TestNoteWriterDeferText(t *testing.T) {
	var recs []*sqlite.NoteRecord
	for i := range 300 {
		recs = append(recs, textNote(fmt.Sprintf("n/%03d.md", i), fmt.Sprintf("common words and a marker m%03d", i)))
	}
	immediate, deferred := MustOpen(t), MustOpen(t)
	rowsImmediate := writeBatch(t, immediate, false, recs, true)
	rowsDeferred := writeBatch(t, deferred, true, recs, true)
	if rowsDeferred*3 > rowsImmediate {
		t.Errorf("full-text data rows after one batch of %d notes: %d deferred, %d immediate; want under a third", len(recs), rowsDeferred, rowsImmediate)
	}

	// Rewrites: n/000 twice in one batch, n/001 once over its old text.
	again := []*sqlite.NoteRecord{
		textNote("n/000.md", "first rewrite says alpha"),
		textNote("n/001.md", "rewritten to say gamma"),
		textNote("n/000.md", "second rewrite says beta"),
	}
	for _, db := range []*sqlite.DB{immediate, deferred} {
		writeBatch(t, db, db == deferred, again, false)
		q := func(word string) []string {
			got := searchIDs(t, db, noema.TextQuery{Match: `{title body} : "` + word + `"`, Weights: [3]float64{1, 1, 1}, Limit: 10})
			for i := range got {
				got[i] = strings.TrimSuffix(got[i], "*")
			}
			return got
		}
		for word, want := range map[string][]string{
			"alpha": {}, "beta": {"n/000.md"}, "gamma": {"n/001.md"},
			"m000": {}, "m001": {}, "m002": {"n/002.md"},
		} {
			if got := q(word); !slices.Equal(got, want) {
				t.Errorf("deferred %v: %q finds %v, want %v", db == deferred, word, got, want)
			}
		}
		if err := db.Write(context.Background(), func(tx *sqlite.Tx) error {
			_, err := tx.Exec(`INSERT INTO notes_fts (notes_fts) VALUES ('integrity-check')`)
			return err
		}); err != nil {
			t.Errorf("deferred %v: integrity: %v", db == deferred, err)
		}
	}
}

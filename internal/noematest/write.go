package noematest

import (
	"context"
	"testing"

	"github.com/noema-mem/noema/sqlite"
)

// Rewrite deletes the notes at deleted from the index db and writes recs,
// in one transaction, then brings the concepts up to date (keys by Key):
// incrementally, as a note operation does (sqlite.BeginChange), or by
// recomputing them all.
func Rewrite(tb testing.TB, db *sqlite.DB, recs []*sqlite.NoteRecord, deleted []string, incremental bool) {
	tb.Helper()
	err := db.Write(context.Background(), func(tx *sqlite.Tx) error {
		var change *sqlite.Change
		if incremental {
			paths := append([]string(nil), deleted...)
			for _, r := range recs {
				paths = append(paths, r.Path)
			}
			var err error
			if change, err = sqlite.BeginChange(tx, paths, recs); err != nil {
				return err
			}
		}
		for _, p := range deleted {
			if err := sqlite.DeleteNote(tx, p); err != nil {
				return err
			}
		}
		w, err := sqlite.NewNoteWriter(tx)
		if err != nil {
			return err
		}
		defer w.Close()
		for _, r := range recs {
			if _, err := w.Put(r, false); err != nil {
				return err
			}
		}
		if change != nil {
			_, err = change.Apply(tx, Key)
		} else {
			_, err = sqlite.RecomputeConcepts(tx, Key)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// PutNotes writes recs into the index db and recomputes the concepts (see
// Rewrite).
func PutNotes(tb testing.TB, db *sqlite.DB, recs ...*sqlite.NoteRecord) {
	tb.Helper()
	Rewrite(tb, db, recs, nil, false)
}

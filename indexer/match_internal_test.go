package indexer

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"github.com/noema-mem/noema/sqlite"
)

// TestMatchMergesInTheWalksOrder: a sync finds each walked file's state
// by merging the walk with the states, both in notepath.Compare's order —
// paths whose byte order is not the walk's among them ("n b.md" after the
// folder "n/") — and, for entries out of that order, by path; both give
// every entry the state of its own path, and none to a new file.
func TestMatchMergesInTheWalksOrder(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	indexed := []string{"a.md", "n/x.md", "n/z/y.md", "n b.md", "n.md", "é.md"}
	if err := db.Write(ctx, func(tx *sqlite.Tx) error {
		for _, p := range indexed {
			if _, err := sqlite.PutNote(tx, &sqlite.NoteRecord{Path: p, Hash: "h " + p}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var set sqlite.NoteStateSet
	if err := db.ReadTx(ctx, func(tx *sql.Tx) error {
		n, err := sqlite.CountNotes(tx)
		if err != nil {
			return err
		}
		set, err = db.NoteStates(tx, n)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// The walk's order; "n.md" deleted, "m.md" and "n/y.md" new.
	walk := []string{"a.md", "m.md", "n/x.md", "n/y.md", "n/z/y.md", "n b.md", "é.md"}
	for _, inOrder := range []bool{true, false} {
		paths := slices.Clone(walk)
		if !inOrder {
			slices.Reverse(paths)
		}
		entries := make([]fileEntry, len(paths))
		for k, p := range paths {
			entries[k] = fileEntry{rel: p, state: -1}
		}
		s := newNoteStates(&set)
		s.match(entries, inOrder)
		for _, e := range entries {
			want := slices.Contains(indexed, e.rel)
			if got := e.state >= 0; got != want {
				t.Errorf("in order %v: %s matched %v, want %v", inOrder, e.rel, got, want)
				continue
			}
			if e.state >= 0 {
				if st := set.State(int(e.state)); st.Path != e.rel || st.Hash != "h "+e.rel {
					t.Errorf("in order %v: %s matched the state of %s (%s)", inOrder, e.rel, st.Path, st.Hash)
				}
			}
		}
	}
}

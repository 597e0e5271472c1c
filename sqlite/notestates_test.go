package sqlite_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema/internal/notepath"
	"github.com/noema-mem/noema/sqlite"
)

// readStates reads the note states as a sync does, in one snapshot.
func readStates(t *testing.T, db *sqlite.DB) sqlite.NoteStateSet {
	t.Helper()
	var set sqlite.NoteStateSet
	if err := db.ReadTx(context.Background(), func(tx *sql.Tx) error {
		n, err := sqlite.CountNotes(tx)
		if err != nil {
			return err
		}
		set, err = db.NoteStates(tx, n)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return set
}

// saveStates runs SaveNoteStates with set, as a sync's last transaction.
func saveStates(t *testing.T, db *sqlite.DB, set sqlite.NoteStateSet) {
	t.Helper()
	if err := db.Write(context.Background(), func(tx *sqlite.Tx) error { return sqlite.SaveNoteStates(tx, &set) }); err != nil {
		t.Fatal(err)
	}
}

// snapshotPos is the change log position of the saved snapshot, -1 when
// none is saved.
func snapshotPos(t *testing.T, db *sqlite.DB) int64 {
	t.Helper()
	pos := int64(-1)
	if err := db.Read().QueryRow(`SELECT pos FROM note_state_snapshot`).Scan(&pos); err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	return pos
}

// sortedStates renders states in path order.
func sortedStates(list []sqlite.NoteState) string {
	var lines []string
	for _, s := range list {
		lines = append(lines, fmt.Sprintf("%q %d %d %d %+v %q", s.Path, s.ID, s.Size, s.MtimeNS, s.File, s.Hash))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// stateNote is a note record with a file state, and a sha256 hash when
// sha is set (the snapshot keeps those as 32 bytes, others as text).
func stateNote(path string, i int, sha bool) *sqlite.NoteRecord {
	r := note(path, 1+i%28, "Alpha", fmt.Sprintf("Topic %d", i%5))
	if sha {
		r.Hash = fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(path)))
	}
	r.Size, r.MtimeNS = int64(100+i), int64(1_700_000_000_000_000_000+i)
	r.File = sqlite.FileState{CtimeNS: r.MtimeNS + 7, Inode: int64(5000 + i), VerifiedNS: r.MtimeNS + 9e9}
	return r
}

// TestNoteStatesSnapshotFollowsEveryChange: the states a sync reads from
// the saved snapshot, with the notes changed since read again, are the
// note rows' — after a file's size, mtime, ctime, inode or read time
// changed, a note added, deleted, renamed or re-derived, a reindex
// marked — and they are read from every row instead when the snapshot
// cannot be followed: none saved, the schema changed, the change log
// pruned past it, too many changes, an unreadable record.
func TestNoteStatesSnapshotFollowsEveryChange(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	var recs []*sqlite.NoteRecord
	for i := range 40 {
		recs = append(recs, stateNote(fmt.Sprintf("n/%02d é.md", i), i, i%3 != 0))
	}
	put(t, db, recs...)
	check := func(name string, fromSnapshot bool) sqlite.NoteStateSet {
		t.Helper()
		set := readStates(t, db)
		want, err := db.AllNoteStates(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sortedStates(set.All()), sortedStates(want); got != want {
			t.Fatalf("%s: states differ from the rows:\n got %s\nwant %s", name, got, want)
		}
		// In the walk's order, which a sync merges its walk with.
		for i := 1; i < set.Len(); i++ {
			if notepath.Compare(set.Path(i-1), set.Path(i)) >= 0 {
				t.Fatalf("%s: %q before %q, out of the walk's order", name, set.Path(i-1), set.Path(i))
			}
		}
		if set.FromSnapshot() != fromSnapshot {
			t.Errorf("%s: read from the snapshot = %v, want %v", name, set.FromSnapshot(), fromSnapshot)
		}
		return set
	}
	saveStates(t, db, check("no snapshot", false))
	check("saved", true)

	write := func(fn func(tx *sqlite.Tx) error) {
		t.Helper()
		if err := db.Write(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	touch := func(path string, size, mtime int64, f sqlite.FileState) func(tx *sqlite.Tx) error {
		return func(tx *sqlite.Tx) error {
			var rec *sqlite.NoteRecord
			for _, r := range recs {
				if r.Path == path {
					c := *r
					rec = &c
				}
			}
			rec.Size, rec.MtimeNS, rec.File = size, mtime, f
			if ok, err := sqlite.TouchNote(tx, rec); err != nil || !ok {
				return fmt.Errorf("touch %s: %v, %w", path, ok, err)
			}
			return nil
		}
	}
	base := recs[1]
	for _, c := range []struct {
		name  string
		write func(tx *sqlite.Tx) error
	}{
		{"size", touch(recs[1].Path, 999, base.MtimeNS, base.File)},
		{"mtime", touch(recs[2].Path, recs[2].Size, base.MtimeNS+1, recs[2].File)},
		{"ctime", touch(recs[3].Path, recs[3].Size, recs[3].MtimeNS, sqlite.FileState{CtimeNS: 1, Inode: recs[3].File.Inode, VerifiedNS: recs[3].File.VerifiedNS})},
		{"inode", touch(recs[4].Path, recs[4].Size, recs[4].MtimeNS, sqlite.FileState{CtimeNS: recs[4].File.CtimeNS, Inode: 1, VerifiedNS: recs[4].File.VerifiedNS})},
		{"read time", touch(recs[5].Path, recs[5].Size, recs[5].MtimeNS, sqlite.FileState{CtimeNS: recs[5].File.CtimeNS, Inode: recs[5].File.Inode, VerifiedNS: 3})},
		{"added", func(tx *sqlite.Tx) error { _, err := sqlite.PutNote(tx, stateNote("new.md", 77, true)); return err }},
		// Before the folder n/ in byte order, after it in the walk's.
		{"added beside a folder", func(tx *sqlite.Tx) error { _, err := sqlite.PutNote(tx, stateNote("n b.md", 78, true)); return err }},
		{"deleted", func(tx *sqlite.Tx) error { return sqlite.DeleteNote(tx, recs[6].Path) }},
		{"renamed", func(tx *sqlite.Tx) error { return sqlite.RenameNote(tx, recs[7].Path, "moved/x.md") }},
		{"re-derived", func(tx *sqlite.Tx) error {
			r := stateNote(recs[8].Path, 8, true)
			r.Hash = "sha256:" + strings.Repeat("ab", 32)
			_, err := sqlite.PutNote(tx, r)
			return err
		}},
		{"an upper-case hash", func(tx *sqlite.Tx) error {
			r := stateNote(recs[9].Path, 9, false)
			r.Hash = "sha256:" + strings.Repeat("AB", 32)
			_, err := sqlite.PutNote(tx, r)
			return err
		}},
		{"deleted and added again", func(tx *sqlite.Tx) error {
			if err := sqlite.DeleteNote(tx, recs[10].Path); err != nil {
				return err
			}
			_, err := sqlite.PutNote(tx, stateNote(recs[10].Path, 10, true))
			return err
		}},
		{"marked for a reindex", func(tx *sqlite.Tx) error { return sqlite.MarkAllRederive(tx) }},
	} {
		write(c.write)
		check(c.name, true)
	}
	// Saved again only once snapshotLag notes changed.
	pos := snapshotPos(t, db)
	saveStates(t, db, check("before saving again", true))
	if got := snapshotPos(t, db); got != pos {
		t.Errorf("the snapshot was saved again after %d changes", 40)
	}

	var many []*sqlite.NoteRecord
	for i := range 4200 {
		many = append(many, stateNote(fmt.Sprintf("many/%04d.md", i), i, i%2 == 0))
	}
	put(t, db, many...)
	saveStates(t, db, check("too many changes", false))
	if got := snapshotPos(t, db); got == pos {
		t.Error("the snapshot was not saved again after 4,200 changes")
	}
	check("saved after many changes", true)

	write(func(tx *sqlite.Tx) error { _, err := tx.Exec(`CREATE TABLE unrelated (x INTEGER) STRICT`); return err })
	saveStates(t, db, check("schema changed", false))
	check("saved under the new schema", true)

	write(touch(recs[1].Path, 5, 5, recs[1].File))
	write(func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`DELETE FROM graph_log WHERE seq <= (SELECT pos + 1 FROM note_state_snapshot)`)
		return err
	})
	saveStates(t, db, check("change log pruned past the snapshot", false))
	check("saved after the prune", true)

	write(func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`UPDATE note_state_snapshot SET data = x'00'`)
		return err
	})
	check("unreadable record", false)
}

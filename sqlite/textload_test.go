package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/sqlite"
)

// textRec is a note record with a title and a body.
func textRec(path, body string) *sqlite.NoteRecord {
	title := strings.TrimSuffix(path, ".md")
	return &sqlite.NoteRecord{Path: path, Title: title, Body: body, Hash: "h-" + body, FileKey: title}
}

// loadBatch writes recs as a cold load's batch whose text tl indexes.
func loadBatch(t *testing.T, db *sqlite.DB, tl *sqlite.TextLoad, recs ...*sqlite.NoteRecord) {
	t.Helper()
	var texts []sqlite.TextRow
	if err := db.Write(context.Background(), func(tx *sqlite.Tx) error {
		w, err := sqlite.NewNoteWriter(tx)
		if err != nil {
			return err
		}
		defer w.Close()
		w.SideText()
		if err := sqlite.MarkTextLoad(tx); err != nil {
			return err
		}
		for _, r := range recs {
			if _, err := w.Put(r, true); err != nil {
				return err
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
		texts = w.Texts()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	tl.Add(texts)
}

// deferredIndexes counts the indexes a cold load creates at its end that
// the index has.
func deferredIndexes(t *testing.T, db *sqlite.DB) string {
	t.Helper()
	return noematest.Rows(t, db.Read(), `SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index'
		AND name IN ('links_key_target', 'notes_hash', 'notes_file_key', 'note_names_key')`)
}

// textLoadFiles lists the scratch files of text loads beside the index.
func textLoadFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.textload-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTextLoadCopiesTheText: the text a TextLoad indexed beside the writer
// is in the index after Finish, searchable, with FTS5's integrity-check
// passing — copied as it is when no other writer wrote meanwhile, and
// inserted note by note for the notes that lack it when one did (a note
// written, one rewritten and one deleted between two batches).
func TestTextLoadCopiesTheText(t *testing.T) {
	for _, other := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "with another writer"}[other], func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			db, err := sqlite.Open(ctx, filepath.Join(dir, "index.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			tl, err := db.StartTextLoad(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tl.Close()
			loadBatch(t, db, tl, textRec("a1.md", "alpha zebra"), textRec("a2.md", "alpha yak"), textRec("a3.md", "alpha 图论"))
			want := "a1.md|alpha zebra\na2.md|alpha yak\na3.md|alpha 图论\nb1.md|beta walrus\n"
			if other {
				noematest.PutNotes(t, db, textRec("o1.md", "other otter"), textRec("a2.md", "rewritten yak"))
				if err := db.Write(ctx, func(tx *sqlite.Tx) error { return sqlite.DeleteNote(tx, "a3.md") }); err != nil {
					t.Fatal(err)
				}
				want = "a1.md|alpha zebra\na2.md|rewritten yak\nb1.md|beta walrus\no1.md|other otter\n"
			}
			loadBatch(t, db, tl, textRec("b1.md", "beta walrus"))
			if err := tl.Finish(ctx); err != nil {
				t.Fatal(err)
			}
			if err := db.Write(ctx, func(tx *sqlite.Tx) error {
				_, err := tx.Exec(`INSERT INTO notes_fts (notes_fts) VALUES ('integrity-check')`)
				return err
			}); err != nil {
				t.Fatalf("full-text index: %v", err)
			}
			var b strings.Builder
			noematest.EachRow(t, db.Read(), `SELECT n.path, f.body FROM notes n LEFT JOIN notes_fts f ON f.rowid = n.id ORDER BY n.path`,
				func(rows *sql.Rows) error {
					var p string
					var body sql.NullString
					err := rows.Scan(&p, &body)
					b.WriteString(p + "|" + body.String + "\n")
					return err
				})
			if b.String() != want {
				t.Fatalf("text by note:\n%s\nwant:\n%s", b.String(), want)
			}
			hits := noematest.Rows(t, db.Read(), `SELECT n.path FROM notes_fts f JOIN notes n ON n.id = f.rowid
				WHERE notes_fts MATCH 'walrus OR zebra OR yak OR 图论' ORDER BY n.path`)
			wantHits := noematest.Rows(t, db.Read(), `SELECT path FROM notes WHERE path IN ('a1.md', 'a2.md', 'a3.md', 'b1.md') ORDER BY path`)
			if hits != wantHits {
				t.Fatalf("search hits:\n%s\nwant:\n%s", hits, wantHits)
			}
			if v, err := db.GetMeta(ctx, "text_load"); err != nil || v != "" {
				t.Fatalf("mark after the load: %q, %v", v, err)
			}
			if f := textLoadFiles(t, dir); len(f) != 0 {
				t.Fatalf("scratch files left: %v", f)
			}
			if n := deferredIndexes(t, db); n != "[]interface {}{4}\n" {
				t.Fatalf("deferred indexes after the load: %s", n)
			}
		})
	}
}

// TestOpenRecoversAnInterruptedTextLoad: a load stopped before its text
// was copied (its process killed) leaves notes without text and the
// index's mark, and the indexes it defers missing. Opening the index
// while the loader lives leaves all that (it may still finish); once it is
// gone, opening marks exactly the notes without text for re-derivation,
// creates the indexes, clears the mark and removes the dead loader's
// scratch files.
func TestOpenRecoversAnInterruptedTextLoad(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	noematest.PutNotes(t, db, textRec("before.md", "kept text"))
	tl, err := db.StartTextLoad(ctx)
	if err != nil {
		t.Fatal(err)
	}
	loadBatch(t, db, tl, textRec("a1.md", "alpha"), textRec("a2.md", "beta"))
	states := func(db *sqlite.DB) string {
		t.Helper()
		mark, err := db.GetMeta(ctx, "text_load")
		if err != nil {
			t.Fatal(err)
		}
		return "mark=" + mark + " " + noematest.Rows(t, db.Read(), `SELECT path, verified_ns FROM notes ORDER BY path`)
	}
	alive := states(db)
	if !strings.HasPrefix(alive, "mark=1 ") {
		t.Fatalf("no mark during the load: %s", alive)
	}
	if n := deferredIndexes(t, db); n != "[]interface {}{0}\n" {
		t.Fatalf("deferred indexes during the load: %s", n)
	}

	again, err := sqlite.Open(ctx, path) // another process, the loader alive
	if err != nil {
		t.Fatal(err)
	}
	if got := states(again); got != alive {
		t.Fatalf("opened during a live load:\n%s\nwant it untouched:\n%s", got, alive)
	}
	if n := deferredIndexes(t, again); n != "[]interface {}{0}\n" {
		t.Fatalf("deferred indexes created during a live load: %s", n)
	}
	again.Close()

	tl.Close() // the loader gone, its text never copied
	dead := filepath.Join(dir, "index.db.textload-0123456789abcdef")
	for _, p := range []string{dead, dead + ".lock"} { // what a killed one leaves
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	after, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	want := "mark= " + noematest.Rows(t, db.Read(), `SELECT path, CASE WHEN path = 'before.md' THEN verified_ns ELSE -1 END FROM notes ORDER BY path`)
	if got := states(after); got != want {
		t.Fatalf("opened after the loader died:\n%s\nwant:\n%s", got, want)
	}
	if f := textLoadFiles(t, dir); len(f) != 0 {
		t.Fatalf("scratch files left: %v", f)
	}
	if n := deferredIndexes(t, after); n != "[]interface {}{4}\n" {
		t.Fatalf("deferred indexes after the recovery: %s", n)
	}
}

package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/noema-mem/noema/internal/cjk"
	"github.com/noema-mem/noema/internal/lock"
)

// A cold load's full-text rows are indexed beside the writer (TextLoad):
// FTS5 tokenizes and merges its segments in the connection that inserts
// the rows, a third of a cold sync's writing, and the index has one
// writer. So a load into an empty index sends each committed batch's rows
// to a scratch database of its own (next to the index, no journal, its
// own goroutine and connection), and when every note is written copies
// that database's finished full-text tables into the index in one
// transaction (TextLoad.Finish) — rows, not tokens: the copy is not
// tokenized again.
//
// Until that transaction the loaded notes have no text in the index: a
// search during a cold load finds them only at its end. metaTextLoad is
// set in the transaction that writes the first of them and cleared by
// the copy, both under the write lock; a loader holds the lock file of
// its scratch database (internal/lock: the kernel drops it when the
// process dies). Opening an index that has the mark and no live loader
// (a load was killed before its copy) marks every note without a text
// row for re-derivation (Rederive) and clears the mark, so the next sync
// reads those notes again: the kill loses the load's text, never leaves
// notes believed indexed without it (recoverTextLoad).
//
// The same mark covers the indexes a cold load creates only at its end
// (deferredIndexes): the first mark drops them, Finish's transaction
// creates them again, and so does the recovery.

// metaTextLoad is the meta key that marks notes written by a cold load
// whose text is not yet in the index (see TextLoad).
const metaTextLoad = "text_load"

// textLoadInfix names a loader's scratch database: the index's file name,
// the infix and a random suffix; its lock file adds ".lock".
const textLoadInfix = ".textload-"

// TextRow is the full-text row of one note. A TextLoad derives CJK
// (the bigrams of Title and Body) itself.
type TextRow struct {
	ID               int64
	Title, Body, CJK string
}

// TextLoad indexes the text of a cold load beside the index's writer.
type TextLoad struct {
	db   *DB
	path string // the scratch database
	lock *lock.Lock
	side *sql.DB
	rows chan []TextRow
	done chan struct{}
	err  error // the goroutine's, read after done
	once sync.Once
}

// textLoadHashBytes is the scratch table's FTS5 hashsize: the terms it
// holds in memory before writing a segment (1 MB by default). Fewer,
// larger segments leave less merging.
const textLoadHashBytes = 32 << 20

// StartTextLoad starts indexing text beside the writer, for a load into
// an index that has no note yet. The caller sends each committed batch's
// rows with Add, marks the index with MarkTextLoad in the batch that
// writes its first note, and ends with Finish, or Close on failure.
func (db *DB) StartTextLoad(ctx context.Context) (*TextLoad, error) {
	var create string
	if err := db.rd().QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE name = 'notes_fts'`).Scan(&create); err != nil {
		return nil, fmt.Errorf("read the full-text table: %w", err)
	}
	var suffix [8]byte
	_, _ = rand.Read(suffix[:])
	t := &TextLoad{db: db, path: db.path + textLoadInfix + hex.EncodeToString(suffix[:]),
		rows: make(chan []TextRow, 2), done: make(chan struct{})}
	l, err := lock.TryAcquire(t.path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("lock the text load: %w", err)
	}
	t.lock = l
	fail := func(err error) (*TextLoad, error) {
		t.close()
		return nil, err
	}
	dsn := "file:" + t.path + "?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=cache_size(-16000)"
	if t.side, err = sql.Open("sqlite", dsn); err != nil {
		return fail(fmt.Errorf("open the text load: %w", err))
	}
	t.side.SetMaxOpenConns(1)
	for _, q := range []string{create,
		fmt.Sprintf(`INSERT INTO notes_fts (notes_fts, rank) VALUES ('hashsize', %d)`, textLoadHashBytes)} {
		if _, err := t.side.ExecContext(ctx, q); err != nil {
			return fail(fmt.Errorf("create the text load: %w", err))
		}
	}
	go t.run(context.WithoutCancel(ctx))
	return t, nil
}

// run inserts the rows Add sends into the scratch table, in one
// transaction, until the channel closes.
func (t *TextLoad) run(ctx context.Context) {
	defer close(t.done)
	drain := func() {
		for range t.rows {
		}
	}
	tx, err := t.side.BeginTx(ctx, nil)
	if err != nil {
		t.err = fmt.Errorf("begin the text load: %w", err)
		drain()
		return
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO notes_fts (rowid, title, body, cjk) VALUES (?, ?, ?, ?)`)
	if err != nil {
		t.err = fmt.Errorf("prepare the text load: %w", err)
		drain()
		return
	}
	defer st.Close()
	for rows := range t.rows {
		if t.err != nil {
			continue
		}
		for _, r := range rows {
			if _, err := st.ExecContext(ctx, r.ID, r.Title, r.Body, cjk.Bigrams(r.Title, r.Body)); err != nil {
				t.err = fmt.Errorf("index the text of note %d: %w", r.ID, err)
				break
			}
		}
	}
	if t.err == nil {
		if err := tx.Commit(); err != nil {
			t.err = fmt.Errorf("commit the text load: %w", err)
		}
	}
}

// Add queues the text rows of a committed batch.
func (t *TextLoad) Add(rows []TextRow) {
	if len(rows) > 0 {
		t.rows <- rows
	}
}

// MarkTextLoad records in tx that notes are written whose text a
// TextLoad holds (see metaTextLoad). The first mark also drops the
// indexes of deferredIndexes, keeping their definitions in
// metaDeferredIndexes: Finish, or the recovery of a killed load, creates
// them again.
func MarkTextLoad(tx *Tx) error {
	if marked, err := MetaIn(tx, metaTextLoad); err != nil || marked != "" {
		return err
	}
	if err := SetMeta(tx, metaTextLoad, "1"); err != nil {
		return err
	}
	var defs []string
	for _, name := range deferredIndexes {
		var def string
		err := tx.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?`, name).Scan(&def)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read index %s: %w", name, err)
		}
		if _, err := tx.Exec(`DROP INDEX "` + name + `"`); err != nil {
			return fmt.Errorf("defer index %s: %w", name, err)
		}
		defs = append(defs, def)
	}
	if len(defs) == 0 {
		return nil
	}
	b, err := json.Marshal(defs)
	if err != nil {
		return err
	}
	return SetMeta(tx, metaDeferredIndexes, string(b))
}

// deferredIndexes are the indexes a cold load drops while it writes and
// creates at its end: keyed by link key, hash, file name key and name
// key, each note's rows land on random pages of them, and maintaining
// them row by row cost more than building them once from sorted rows.
// While they are missing a reader's query that would use one scans its
// table: slower, the same answer.
var deferredIndexes = []string{"links_key_target", "notes_hash", "notes_file_key", "note_names_key"}

// metaDeferredIndexes holds, while a cold load runs, the definitions of
// the indexes it dropped (a JSON array of CREATE INDEX statements).
const metaDeferredIndexes = "text_load_indexes"

// restoreIndexes creates the indexes a cold load dropped (see
// MarkTextLoad) that are missing, with their definitions as they were.
func restoreIndexes(tx *Tx) error {
	v, err := MetaIn(tx, metaDeferredIndexes)
	if err != nil || v == "" {
		return err
	}
	var defs []string
	if err := json.Unmarshal([]byte(v), &defs); err != nil {
		return fmt.Errorf("read the deferred indexes: %w", err)
	}
	for _, def := range defs {
		// Another loader's end may have created it already.
		var exists bool
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE sql = ?)`, def).Scan(&exists); err != nil {
			return fmt.Errorf("check a deferred index: %w", err)
		}
		if exists {
			continue
		}
		if _, err := tx.Exec(def); err != nil {
			return fmt.Errorf("create a deferred index: %w", err)
		}
	}
	return DeleteMeta(tx, metaDeferredIndexes)
}

// Finish waits for the queued rows to be indexed and copies them into the
// index in one transaction, which also clears the index's mark. When the
// index's full-text table is empty and holds the same notes as the
// scratch one (no other writer wrote a note meanwhile), the copy is of
// FTS5's tables as they are — segments, content, sizes. Otherwise the
// text of every note that has none is inserted, tokenized again. Finish
// closes the load.
func (t *TextLoad) Finish(ctx context.Context) error {
	defer t.close()
	t.stop()
	if t.err != nil {
		return t.err
	}
	if err := t.side.Close(); err != nil {
		return fmt.Errorf("close the text load: %w", err)
	}
	// Its own connection: FTS5 caches the structure of its segments per
	// connection and notices another connection's commit (the data
	// version), not writes to its tables made by its own connection.
	conn, err := sql.Open("sqlite", t.db.pools.Load().dsn+"&_txlock=immediate")
	if err != nil {
		return fmt.Errorf("open the index for the text load: %w", err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS textload`, "file:"+t.path+"?mode=ro"); err != nil {
		return fmt.Errorf("attach the text load: %w", err)
	}
	err = t.db.writeOn(ctx, conn, func(tx *Tx) error {
		var whole bool
		if err := tx.QueryRow(`SELECT NOT EXISTS (SELECT 1 FROM main.notes_fts_docsize)
			AND (SELECT COUNT(*) FROM main.notes) = (SELECT COUNT(*) FROM textload.notes_fts_docsize)
			AND NOT EXISTS (SELECT 1 FROM textload.notes_fts_docsize d WHERE NOT EXISTS (SELECT 1 FROM main.notes n WHERE n.id = d.id))`).Scan(&whole); err != nil {
			return fmt.Errorf("compare the text load: %w", err)
		}
		qs := []string{`INSERT INTO main.notes_fts (rowid, title, body, cjk)
			SELECT c.id, c.c0, c.c1, c.c2 FROM textload.notes_fts_content c
			WHERE EXISTS (SELECT 1 FROM main.notes n WHERE n.id = c.id)
			AND NOT EXISTS (SELECT 1 FROM main.notes_fts_docsize d WHERE d.id = c.id)`}
		if whole {
			qs = []string{
				`DELETE FROM main.notes_fts_data`,
				`INSERT INTO main.notes_fts_data SELECT * FROM textload.notes_fts_data`,
				`DELETE FROM main.notes_fts_idx`,
				`INSERT INTO main.notes_fts_idx SELECT * FROM textload.notes_fts_idx`,
				`INSERT INTO main.notes_fts_content SELECT * FROM textload.notes_fts_content`,
				`INSERT INTO main.notes_fts_docsize SELECT * FROM textload.notes_fts_docsize`,
			}
		}
		for _, q := range qs {
			if _, err := tx.Exec(q); err != nil {
				return fmt.Errorf("copy the text load: %w", err)
			}
		}
		tx.textChanged = true
		if err := restoreIndexes(tx); err != nil {
			return err
		}
		return clearTextLoad(tx)
	})
	_, _ = conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE textload`)
	return err
}

// clearTextLoad clears the index's mark when every note has its text
// (another loader may still be writing notes whose text it holds).
func clearTextLoad(tx *Tx) error {
	var missing bool
	if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM main.notes n
		WHERE NOT EXISTS (SELECT 1 FROM main.notes_fts_docsize d WHERE d.id = n.id))`).Scan(&missing); err != nil {
		return fmt.Errorf("check the notes' text: %w", err)
	}
	if missing {
		return nil
	}
	return DeleteMeta(tx, metaTextLoad)
}

// stop ends the goroutine and waits for it.
func (t *TextLoad) stop() {
	t.once.Do(func() { close(t.rows) })
	<-t.done
}

// Close abandons the load: its rows are never copied (the index's mark,
// if set, makes the next opening re-derive the notes; see
// recoverTextLoad). Safe after Finish.
func (t *TextLoad) Close() {
	t.stop()
	t.close()
}

// close removes the scratch database and releases its lock.
func (t *TextLoad) close() {
	if t.side != nil {
		t.side.Close()
	}
	os.Remove(t.path)
	if t.lock != nil {
		t.lock.Release()
		os.Remove(t.path + ".lock") // a lock file of one loader, never taken again
		t.lock = nil
	}
}

// recoverTextLoad finishes what killed loaders left (see TextLoad): their
// scratch files, and their notes without text when no loader is alive.
// Opening the index calls it; it reads the mark without a lock and writes
// only when it finds one.
func (db *DB) recoverTextLoad(ctx context.Context, w *sql.DB) error {
	live, err := db.sweepTextLoads()
	if err != nil || live {
		return err
	}
	var marked bool
	if err := w.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM meta WHERE key = ?)`, metaTextLoad).Scan(&marked); err != nil {
		return fmt.Errorf("read the text load mark: %w", err)
	}
	if !marked {
		return nil
	}
	return db.writeOn(ctx, w, func(tx *Tx) error {
		// Again under the write lock: a loader marks the index only while
		// it holds both its own lock and the write lock.
		if live, err := db.sweepTextLoads(); err != nil || live {
			return err
		}
		if _, err := tx.Exec(`UPDATE notes SET verified_ns = ? WHERE NOT EXISTS
			(SELECT 1 FROM notes_fts_docsize d WHERE d.id = notes.id)`, Rederive); err != nil {
			return fmt.Errorf("mark the notes of an interrupted load: %w", err)
		}
		if err := restoreIndexes(tx); err != nil {
			return err
		}
		return DeleteMeta(tx, metaTextLoad)
	})
}

// sweepTextLoads removes the scratch files of loaders that are gone and
// reports whether a loader is alive.
func (db *DB) sweepTextLoads() (live bool, err error) {
	dir, base := filepath.Split(db.path)
	entries, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return false, fmt.Errorf("list the index folder: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base+textLoadInfix) || !strings.HasSuffix(name, ".lock") {
			continue
		}
		p := filepath.Join(dir, name)
		l, err := lock.TryAcquire(p)
		if errors.Is(err, lock.ErrHeld) {
			live = true
			continue
		}
		if err != nil {
			return false, fmt.Errorf("check a text load: %w", err)
		}
		os.Remove(strings.TrimSuffix(p, ".lock"))
		l.Release()
		os.Remove(p)
	}
	return live, nil
}

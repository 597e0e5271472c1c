package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"

	"github.com/noema-mem/noema"
)

// A search joins every note its full-text ranking finds (every candidate,
// not only the page: decay and the answer's total need them) to the note's
// row — path, title, modified and accessed times — and at 10,000 notes
// that join was a fifth of a rare word's search. Once a process asks for
// it ([SearchIndex.KeepNoteRows], a server as it starts), the DB keeps
// those rows in memory, as of a graph_log position (migration
// 0016_graph_log.sql: triggers log every note inserted, updated or
// deleted and every access recorded, moved or dropped). The ranking
// statement reads the log's position beside the text version; when the
// rows kept are of that position they are exactly what the join would
// read, and the statement joins nothing; else they are brought up to date
// from the log first (the changed notes only) — a write between two
// searches is always seen.

// noteRows is an immutable copy of every note's search row at graph_log
// position seq, indexed by row id in pages of pageSize rows: a refresh
// copies the pages it changes and shares the rest. About 50 bytes a row
// plus the path and title (≈ 15 MB at 100,000 notes).
type noteRows struct {
	pools *pools // the files read: another after Reopen
	seq   int64
	pages [][]noteRow // page k holds ids k·pageSize …; nil: none
	count int         // live rows
}

// noteRow is one note's search row; path "" is no note.
type noteRow struct {
	path, title string
	mod, acc    int64
}

// get returns the note with the row id, if there is one.
func (r *noteRows) get(id int64) (noema.SearchNote, bool) {
	k := id >> pageBits
	if id < 0 || k >= int64(len(r.pages)) || r.pages[k] == nil {
		return noema.SearchNote{}, false
	}
	row := &r.pages[k][id&(pageSize-1)]
	if row.path == "" {
		return noema.SearchNote{}, false
	}
	n := noema.SearchNote{ID: id, Path: row.path, Title: row.title}
	n.Modified, n.Accessed = noteTimes(row.mod, row.acc)
	return n, true
}

// maxSparseRows bounds the pages kept for ids no note has: when the row
// ids are this much sparser than the notes (ids are SQLite's, max + 1, so
// only a vault that deleted most of its notes gets there), no rows are
// kept and searches join as before.
const maxSparseRows = 1 << 20

// rowsEdit builds a noteRows from another, copying a page the first time
// it changes it.
type rowsEdit struct {
	r   *noteRows
	own map[int64]bool
}

func editRows(prev *noteRows) *rowsEdit {
	r := &noteRows{pools: prev.pools, seq: prev.seq, pages: slices.Clone(prev.pages), count: prev.count}
	return &rowsEdit{r: r, own: map[int64]bool{}}
}

// set makes id's row row (path "": no note).
func (e *rowsEdit) set(id int64, row noteRow) {
	k := id >> pageBits
	for int64(len(e.r.pages)) <= k {
		e.r.pages = append(e.r.pages, nil)
	}
	if !e.own[k] {
		page := make([]noteRow, pageSize)
		copy(page, e.r.pages[k])
		e.r.pages[k], e.own[k] = page, true
	}
	old := &e.r.pages[k][id&(pageSize-1)]
	if old.path != "" {
		e.r.count--
	}
	if row.path != "" {
		e.r.count++
	}
	*old = row
}

// sparse reports whether the rows' ids are too sparse to keep in pages.
func (r *noteRows) sparse() bool {
	return len(r.pages)*pageSize > 8*r.count+maxSparseRows
}

const noteRowSQL = `SELECT n.id, n.path, n.title, n.modified_ns, COALESCE(a.accessed_ns, 0)
	FROM notes n LEFT JOIN access a ON a.path = n.path`

// scanNoteRow scans a row of noteRowSQL.
func scanNoteRow(rows *sql.Rows) (id int64, row noteRow, err error) {
	err = rows.Scan(&id, &row.path, &row.title, &row.mod, &row.acc)
	return id, row, err
}

// readNoteRows reads every note's row at log position seq.
func readNoteRows(ctx context.Context, tx *sql.Tx, p *pools, seq int64) (*noteRows, error) {
	e := editRows(&noteRows{pools: p, seq: seq})
	err := eachRow(ctx, tx, noteRowSQL, nil, func(rows *sql.Rows) error {
		id, row, err := scanNoteRow(rows)
		if err == nil && id >= 0 && row.path != "" {
			e.set(id, row)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read note rows: %w", err)
	}
	return e.r, nil
}

// refreshNoteRows returns the rows of the snapshot tx reads: prev with the
// logged changes applied, or (prev nil or of other files, the log not
// reaching back to it, or changes too many to apply one by one) read in
// full.
func refreshNoteRows(ctx context.Context, tx *sql.Tx, p *pools, prev *noteRows) (*noteRows, error) {
	since := int64(-1)
	if prev != nil && prev.pools == p {
		since = prev.seq
	}
	hi, reaches, err := logReaches(ctx, tx, since)
	if err != nil {
		return nil, err
	}
	if !reaches {
		return readNoteRows(ctx, tx, p, hi)
	}
	if prev.seq == hi {
		return prev, nil
	}
	ch, n, err := readLog(ctx, tx, prev.seq)
	if err != nil {
		return nil, err
	}
	if n > 4096+prev.count/4 {
		return readNoteRows(ctx, tx, p, hi)
	}
	e := editRows(prev)
	e.r.seq = hi
	seen := map[int64]bool{}
	keep := func(rows *sql.Rows) error {
		id, row, err := scanNoteRow(rows)
		if err != nil {
			return err
		}
		seen[id] = true
		if id >= 0 {
			e.set(id, row)
		}
		return nil
	}
	if len(ch.notes) > 0 {
		ids := slices.Sorted(maps.Keys(ch.notes))
		if err := eachRow(ctx, tx, noteRowSQL+` WHERE n.id IN (SELECT value FROM json_each(?))`, []any{intsArg(ids)}, keep); err != nil {
			return nil, fmt.Errorf("read changed note rows: %w", err)
		}
		for _, id := range ids {
			if !seen[id] && id >= 0 {
				e.set(id, noteRow{}) // deleted
			}
		}
	}
	if len(ch.access) > 0 {
		paths := slices.Sorted(maps.Keys(ch.access))
		if err := eachRow(ctx, tx, noteRowSQL+` WHERE n.path IN (SELECT value FROM json_each(?))`, []any{jsonArg(paths)}, keep); err != nil {
			return nil, fmt.Errorf("read accessed note rows: %w", err)
		}
	}
	return e.r, nil
}

// KeepNoteRows makes the DB keep every note's search row in memory from
// now on (read now, then brought up to date from the graph log by the
// searches that find them behind), for searches that would otherwise
// join every candidate to its row. A server calls it as it starts
// (search.Service.Warming); a one-off search does not: reading every row
// costs more than joining one search's candidates.
func (s *SearchIndex) KeepNoteRows(ctx context.Context) error {
	if _, err := s.db.currentNoteRows(ctx, -1); err != nil {
		return err // not kept: searches join the rows
	}
	s.db.rowsKept.Store(true)
	return nil
}

// keptNoteRows returns the note rows kept, nil when none are (not asked
// for, or ids too sparse). They are read first when none are kept for the
// files open (KeepNoteRows's, replaced by Reopen since), and may be
// behind the index: currentNoteRows tells.
func (db *DB) keptNoteRows(ctx context.Context) (*noteRows, error) {
	if !db.rowsKept.Load() {
		return nil, nil
	}
	r := db.noteRows.Load()
	if r == nil || r.pools != db.pools.Load() {
		var err error
		if r, err = db.currentNoteRows(ctx, -1); err != nil {
			return nil, err
		}
	}
	if r.sparse() {
		return nil, nil
	}
	return r, nil
}

// currentNoteRows returns the kept rows when they are at log position seq,
// else brings them up to date (one read transaction: the log since, then
// the notes it names) and returns them, at seq or later. seq -1: up to
// date now.
func (db *DB) currentNoteRows(ctx context.Context, seq int64) (*noteRows, error) {
	p := db.pools.Load()
	if r := db.noteRows.Load(); r != nil && r.pools == p && r.seq == seq {
		return r, nil
	}
	db.rowsMu.Lock()
	defer db.rowsMu.Unlock()
	prev := db.noteRows.Load()
	if prev != nil && prev.pools == p && prev.seq == seq {
		return prev, nil // brought up to date meanwhile
	}
	var r *noteRows
	err := db.ReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		r, err = refreshNoteRows(ctx, tx, p, prev)
		return err
	})
	if err != nil {
		return nil, err
	}
	db.noteRows.Store(r)
	return r, nil
}

package sqlite

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/noema-mem/noema/internal/cjk"
)

// NoteRecord is everything the index derives from one note file.
type NoteRecord struct {
	Path    string
	Title   string
	Tags    []string
	Aliases []string
	Size    int64
	MtimeNS int64
	// File identifies the file version that was read (see FileState).
	File     FileState
	Hash     string
	Created  time.Time
	Modified time.Time
	// Body is the text indexed for full-text search.
	Body  string
	Links []LinkCount
	Page  PageRecord
	// Relations declared in the note's front matter.
	Relations []RelationRecord
	// NameKeys are the keys of the note's title and aliases.
	NameKeys []string
	// FileKey is the key of the file name without .md (vault.Key), by
	// which NotesNamed finds the notes a [[title]] opens in Obsidian.
	FileKey string
	// ValidFrom and ValidUntil are the front matter's valid_from and
	// valid_until (zero: absent); see noema.TimedNote.
	ValidFrom, ValidUntil time.Time
}

// HasPageRow reports whether the note says something as a concept page
// (and so gets a pages row): it is explicit, or carries an id,
// description, metadata, or a label or aliases other than its own.
func (rec *NoteRecord) HasPageRow() bool {
	p := rec.Page
	return p.Explicit || p.ConceptID != "" || p.Description != "" || (p.Metadata != "" && p.Metadata != "{}") ||
		p.Label != rec.Title || jsonList(p.Aliases) != jsonList(rec.Aliases)
}

// LinkCount is how often one spelling of a key is linked from a note.
type LinkCount struct {
	Key, Target string
	Count       int
	// Pos orders the note's links by first occurrence: the number of
	// distinct (key, spelling) pairs linked before this one's first link.
	Pos int
}

// PageRecord is what a note contributes when it is a concept's page.
type PageRecord struct {
	Explicit    bool
	ConceptID   string // front matter id, may be empty
	Label       string
	Aliases     []string
	Description string
	Metadata    string // canonical JSON object
	Created     time.Time
	Updated     time.Time
}

// RelationRecord is a relation as declared in a file.
type RelationRecord struct {
	ID       string
	Type     string
	ToRef    string // "concept:<key>" or "note:<path>"
	Weight   *float64
	Metadata string // canonical JSON object
}

// FileState is what sync compares, besides size and mtime, to decide that
// a file is the version it indexed without reading it (see migration
// 0007_file_identity.sql).
type FileState struct {
	// CtimeNS and Inode are the file's status-change time and inode number
	// (0 where the system has none).
	CtimeNS, Inode int64
	// VerifiedNS is when the file's content was last read.
	VerifiedNS int64
}

// NoteState is the part of a note row sync needs to skip unchanged files.
type NoteState struct {
	// Path is set by DB.NoteStates only.
	Path    string
	ID      int64
	Size    int64
	MtimeNS int64
	File    FileState
	Hash    string
}

func jsonList(v []string) string {
	if len(v) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func nsOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// PutNote inserts or replaces the note at rec.Path with everything derived
// from it: its old links, page, relations and full-text row are removed
// first, so the index never only grows. The note keeps its row id (and so
// its identity) when it already exists.
func PutNote(tx *Tx, rec *NoteRecord) (int64, error) {
	w, err := NewNoteWriter(tx)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	return w.Put(rec, false)
}

// NoteWriter writes many notes in one transaction with prepared statements.
type NoteWriter struct {
	tx                                                *Tx
	upsert, insert, page, relation, text, name, state *sql.Stmt
	validity                                          *sql.Stmt
	// links are the statements inserting n links at once, by n.
	links map[int]*sql.Stmt
	args  []any

	// deferText: Put queues full-text rows (texts, in order; the index of
	// a note's row by id in queued) and the removal of replaced ones
	// (cleared) until Flush.
	deferText bool
	// sideText: Flush leaves the queued rows to the caller (Texts), for
	// a TextLoad.
	sideText bool
	texts    []TextRow
	queued   map[int64]int
	cleared  []int64
	kept     []TextRow
}

// DeferText makes Put queue the full-text rows until Flush, which the
// caller must then call before it commits. FTS5 writes its pending rows to
// disk at every statement savepoint (an upsert of a note row, whose
// triggers open one, is a savepoint): written between the other rows of
// each note, every note became a segment of its own, and merging those
// took a third of a cold sync's time. Written together, after every
// other row of the batch, they are one segment.
func (w *NoteWriter) DeferText() {
	w.deferText = true
	w.queued = map[int64]int{}
}

// SideText is DeferText for a load whose text a TextLoad indexes: Flush
// removes the text of the notes Put replaced and keeps the new rows for
// Texts, which the caller hands to the TextLoad once the transaction has
// committed.
func (w *NoteWriter) SideText() {
	w.DeferText()
	w.sideText = true
}

// Texts returns the rows the last Flush kept (see SideText).
func (w *NoteWriter) Texts() []TextRow { return w.kept }

// Flush writes the full-text rows Put queued (see DeferText): first it
// removes the rows of the notes Put replaced, then it inserts the new
// ones.
func (w *NoteWriter) Flush() error {
	ctx := w.tx.ctx
	for _, id := range w.cleared {
		if _, err := w.tx.Exec(`DELETE FROM notes_fts WHERE rowid = ?`, id); err != nil {
			return fmt.Errorf("clear the text of note %d: %w", id, err)
		}
	}
	if w.sideText {
		w.kept = w.texts
	} else {
		for _, t := range w.texts {
			if _, err := w.text.ExecContext(ctx, t.ID, t.Title, t.Body, t.CJK); err != nil {
				return fmt.Errorf("index text of note %d: %w", t.ID, err)
			}
		}
	}
	w.cleared, w.texts = nil, nil
	clear(w.queued)
	return nil
}

// NewNoteWriter prepares the statements PutNote needs.
func NewNoteWriter(tx *Tx) (*NoteWriter, error) {
	w := &NoteWriter{tx: tx}
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&w.upsert, `INSERT INTO notes (path, title, tags, aliases, size, mtime_ns, hash, created_ns, modified_ns,
			ctime_ns, inode, verified_ns, file_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(path) DO UPDATE SET title = excluded.title, tags = excluded.tags,
			aliases = excluded.aliases, size = excluded.size, mtime_ns = excluded.mtime_ns,
			hash = excluded.hash, created_ns = excluded.created_ns, modified_ns = excluded.modified_ns,
			ctime_ns = excluded.ctime_ns, inode = excluded.inode, verified_ns = excluded.verified_ns,
			file_key = excluded.file_key
		RETURNING id`},
		{&w.insert, `INSERT INTO notes (path, title, tags, aliases, size, mtime_ns, hash, created_ns, modified_ns,
			ctime_ns, inode, verified_ns, file_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.page, `INSERT INTO pages (note_id, explicit, concept_id, label, aliases, description, metadata, created_ns, updated_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.relation, `INSERT INTO relations (id, note_id, type, to_ref, weight, metadata)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`},
		{&w.text, `INSERT INTO notes_fts (rowid, title, body, cjk) VALUES (?, ?, ?, ?)`},
		{&w.name, `INSERT INTO note_names (note_id, key) VALUES (?, ?) ON CONFLICT DO NOTHING`},
		{&w.validity, `INSERT INTO note_validity (note_id, valid_from_ns, valid_until_ns) VALUES (?, ?, ?)`},
		{&w.state, `SELECT ` + noteStateColumns + ` FROM notes WHERE path = ?`},
	} {
		st, err := tx.PrepareContext(tx.ctx, p.q)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("prepare note writer: %w", err)
		}
		*p.dst = st
	}
	return w, nil
}

// Close releases the prepared statements.
func (w *NoteWriter) Close() {
	for _, st := range []*sql.Stmt{w.upsert, w.insert, w.page, w.relation, w.text, w.name, w.state, w.validity} {
		if st != nil {
			st.Close()
		}
	}
	for _, st := range w.links {
		st.Close()
	}
}

// State is NoteStateOf with the writer's prepared statement: the stored
// state of the note at path in the writer's transaction, and whether it
// exists. A sync asks it once per note it writes; preparing the query each
// time was a tenth of a cold sync's writing.
func (w *NoteWriter) State(path string) (NoteState, bool, error) {
	return noteState(w.state.QueryRowContext(w.tx.ctx, path), path)
}

// Put writes one note. fresh promises that no row exists for rec.Path yet
// (a new file during sync), which skips clearing derived rows and inserts
// the row (a row there after all is an error) instead of upserting it.
func (w *NoteWriter) Put(rec *NoteRecord, fresh bool) (int64, error) {
	ctx := w.tx.ctx
	var id int64
	args := []any{rec.Path, rec.Title, jsonList(rec.Tags), jsonList(rec.Aliases), rec.Size, rec.MtimeNS, rec.Hash,
		nsOf(rec.Created), nsOf(rec.Modified), rec.File.CtimeNS, rec.File.Inode, rec.File.VerifiedNS, rec.FileKey}
	if fresh {
		// A plain insert, its id from the statement's result, costs less
		// than the upsert and its RETURNING row (every note of a cold sync).
		r, err := w.insert.ExecContext(ctx, args...)
		if err != nil {
			return 0, fmt.Errorf("insert note %s: %w", rec.Path, err)
		}
		if id, err = r.LastInsertId(); err != nil {
			return 0, fmt.Errorf("insert note %s: %w", rec.Path, err)
		}
	} else if err := w.upsert.QueryRowContext(ctx, args...).Scan(&id); err != nil {
		return 0, fmt.Errorf("upsert note %s: %w", rec.Path, err)
	}
	if !fresh {
		if err := clearDerived(w.tx, id, !w.deferText); err != nil {
			return 0, err
		}
		if w.deferText {
			w.cleared = append(w.cleared, id)
		}
	}
	for links := rec.Links; len(links) > 0; {
		n := min(len(links), linksPerInsert)
		if err := w.insertLinks(id, links[:n]); err != nil {
			return 0, fmt.Errorf("insert links of %s: %w", rec.Path, err)
		}
		links = links[n:]
	}
	p := rec.Page
	meta := p.Metadata
	if meta == "" {
		meta = "{}"
	}
	// Only notes that say something as a page get a row; any other note is
	// still a title-match candidate, read from the notes table itself.
	if rec.HasPageRow() {
		if _, err := w.page.ExecContext(ctx, id, p.Explicit, p.ConceptID, p.Label, jsonList(p.Aliases), p.Description, meta,
			nsOf(p.Created), nsOf(p.Updated)); err != nil {
			return 0, fmt.Errorf("insert page of %s: %w", rec.Path, err)
		}
	}
	for _, r := range rec.Relations {
		rm := r.Metadata
		if rm == "" {
			rm = "{}"
		}
		// A relation id repeated in another file: the first file keeps it.
		if _, err := w.relation.ExecContext(ctx, r.ID, id, r.Type, r.ToRef, r.Weight, rm); err != nil {
			return 0, fmt.Errorf("insert relation %s of %s: %w", r.ID, rec.Path, err)
		}
	}
	for _, k := range rec.NameKeys {
		if _, err := w.name.ExecContext(ctx, id, k); err != nil {
			return 0, fmt.Errorf("insert name of %s: %w", rec.Path, err)
		}
	}
	if !rec.ValidFrom.IsZero() || !rec.ValidUntil.IsZero() {
		if _, err := w.validity.ExecContext(ctx, id, boundNS(rec.ValidFrom), boundNS(rec.ValidUntil)); err != nil {
			return 0, fmt.Errorf("insert validity of %s: %w", rec.Path, err)
		}
	}
	if !w.sideText {
		w.tx.textChanged = true
	}
	if w.deferText {
		row := TextRow{ID: id, Title: rec.Title, Body: rec.Body}
		if !w.sideText { // a TextLoad derives them on its own goroutine
			row.CJK = cjk.Bigrams(rec.Title, rec.Body)
		}
		if i, ok := w.queued[id]; ok {
			w.texts[i] = row // the note written again: its last version
		} else {
			w.queued[id] = len(w.texts)
			w.texts = append(w.texts, row)
		}
		return id, nil
	}
	if _, err := w.text.ExecContext(ctx, id, rec.Title, rec.Body, cjk.Bigrams(rec.Title, rec.Body)); err != nil {
		return 0, fmt.Errorf("index text of %s: %w", rec.Path, err)
	}
	return id, nil
}

// linksPerInsert is how many links one statement inserts at most: one
// statement per note rather than per link (a note has 8 on average in the
// generated vaults) saves the per-statement cost, a third of inserting a
// link.
const linksPerInsert = 32

// insertLinks inserts links of note id with one statement. Rows of one
// statement are inserted in order, each seeing the ones before, so a
// repeated (key, spelling) adds up as with one statement per link.
func (w *NoteWriter) insertLinks(id int64, links []LinkCount) error {
	st := w.links[len(links)]
	if st == nil {
		var q strings.Builder
		q.WriteString(`INSERT INTO links (note_id, key, target, count, pos) VALUES `)
		for i := range links {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?, ?)")
		}
		q.WriteString(` ON CONFLICT(note_id, key, target) DO UPDATE SET count = count + excluded.count, pos = min(pos, excluded.pos)`)
		var err error
		if st, err = w.tx.Tx.PrepareContext(w.tx.ctx, q.String()); err != nil {
			return fmt.Errorf("prepare link insert: %w", err)
		}
		if w.links == nil {
			w.links = map[int]*sql.Stmt{}
		}
		w.links[len(links)] = st
	}
	w.args = w.args[:0]
	for _, l := range links {
		w.args = append(w.args, id, l.Key, l.Target, l.Count, l.Pos)
	}
	_, err := st.ExecContext(w.tx.ctx, w.args...)
	return err
}

// clearDerived removes what was derived from note id: its links, page,
// relations and names, and with text its full-text row.
func clearDerived(tx *Tx, id int64, text bool) error {
	tx.textChanged = true
	qs := []string{
		`DELETE FROM links WHERE note_id = ?`,
		`DELETE FROM pages WHERE note_id = ?`,
		`DELETE FROM relations WHERE note_id = ?`,
		`DELETE FROM note_names WHERE note_id = ?`,
		`DELETE FROM note_validity WHERE note_id = ?`,
	}
	if text {
		qs = append(qs, `DELETE FROM notes_fts WHERE rowid = ?`)
	}
	for _, q := range qs {
		if _, err := tx.Exec(q, id); err != nil {
			return fmt.Errorf("clear derived rows of note %d: %w", id, err)
		}
	}
	return nil
}

// DeleteNote removes the note at path and everything derived from it. Its
// access statistics are dropped too. A missing note is not an error.
func DeleteNote(tx *Tx, path string) error {
	var id int64
	err := tx.QueryRow(`SELECT id FROM notes WHERE path = ?`, path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("find note %s: %w", path, err)
	}
	if err := clearDerived(tx, id, true); err != nil {
		return err
	}
	if _, err := tx.Exec(`DELETE FROM notes WHERE id = ?`, id); err != nil {
		return fmt.Errorf("delete note %s: %w", path, err)
	}
	if _, err := tx.Exec(`DELETE FROM access WHERE path = ?`, path); err != nil {
		return fmt.Errorf("delete access of %s: %w", path, err)
	}
	return nil
}

// RenameNote moves the note row at from to path to, keeping its id and its
// access history. The caller re-derives the content with PutNote when it
// also changed (a page's label may depend on its file name).
func RenameNote(tx *Tx, from, to string) error {
	if _, err := tx.Exec(`DELETE FROM access WHERE path = ? AND EXISTS (SELECT 1 FROM access WHERE path = ?)`, to, from); err != nil {
		return fmt.Errorf("rename access %s: %w", from, err)
	}
	if _, err := tx.Exec(`UPDATE access SET path = ? WHERE path = ?`, to, from); err != nil {
		return fmt.Errorf("rename access %s: %w", from, err)
	}
	if _, err := tx.Exec(`UPDATE notes SET path = ? WHERE path = ?`, to, from); err != nil {
		return fmt.Errorf("rename note %s: %w", from, err)
	}
	return nil
}

// TouchNote records rec's size, mtime and file state on the row of a note
// whose content did not change, and reports whether it did: it changes
// nothing, and returns false, unless the row holds rec's hash and rec's
// created and modified times. A file rewritten with its content kept but
// its mtime moved (an editor's `touch -r`, a restore, `cp -p`) changes the
// times a note without them in its front matter takes from the file, and
// a rebuilt index would hold the new times: such a note must be written
// whole (NoteWriter.Put), which also brings its concepts' times along.
func TouchNote(tx *Tx, rec *NoteRecord) (bool, error) {
	r, err := tx.Exec(`UPDATE notes SET size = ?, mtime_ns = ?, ctime_ns = ?, inode = ?, verified_ns = ?
		WHERE path = ? AND hash = ? AND created_ns = ? AND modified_ns = ?`,
		rec.Size, rec.MtimeNS, rec.File.CtimeNS, rec.File.Inode, rec.File.VerifiedNS,
		rec.Path, rec.Hash, nsOf(rec.Created), nsOf(rec.Modified))
	if err != nil {
		return false, fmt.Errorf("touch note %s: %w", rec.Path, err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("touch note %s: %w", rec.Path, err)
	}
	return n > 0, nil
}

// RecordAccess records an explicit read of the note at path at tx.Now.
func RecordAccess(tx *Tx, path string) error {
	_, err := tx.Exec(`INSERT INTO access (path, accessed_ns, count) VALUES (?, ?, 1)
		ON CONFLICT(path) DO UPDATE SET accessed_ns = MAX(accessed_ns, excluded.accessed_ns), count = count + 1`,
		path, tx.Now.UnixNano())
	if err != nil {
		return fmt.Errorf("record access of %s: %w", path, err)
	}
	return nil
}

// ClearDerivedAll empties every table rebuilt from files, keeping access
// statistics and meta: the first step of a reindex.
func ClearDerivedAll(tx *Tx) error {
	tx.textChanged = true
	for _, q := range []string{
		`DELETE FROM concept_keys`, `DELETE FROM concepts`, `DELETE FROM relations`,
		`DELETE FROM links`, `DELETE FROM pages`, `DELETE FROM notes_fts`, `DELETE FROM note_names`, `DELETE FROM note_validity`,
		`DELETE FROM notes`,
	} {
		if _, err := tx.Exec(q); err != nil {
			return fmt.Errorf("clear index: %w", err)
		}
	}
	return nil
}

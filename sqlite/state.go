package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Rederive is the VerifiedNS a reindex gives every note: sync then reads
// each file again and re-derives it even when its content is unchanged.
// A reindex killed half-way leaves the rest marked, so the next sync
// finishes it.
const Rederive = -1

// noteStateColumns are the columns scanNoteState reads, in its order.
const noteStateColumns = `id, size, mtime_ns, ctime_ns, inode, verified_ns, hash`

// scanNoteState scans a row of noteStateColumns, optionally preceded by
// more columns (dest).
func scanNoteState(row interface{ Scan(...any) error }, dest ...any) (NoteState, error) {
	var s NoteState
	err := row.Scan(append(dest, &s.ID, &s.Size, &s.MtimeNS, &s.File.CtimeNS, &s.File.Inode, &s.File.VerifiedNS, &s.Hash)...)
	return s, err
}

// noteState reads the state of the note at path from row (a transaction's
// or the read pool's single-row query), and whether it exists.
func noteState(row *sql.Row, path string) (NoteState, bool, error) {
	s, err := scanNoteState(row)
	if errors.Is(err, sql.ErrNoRows) {
		return NoteState{}, false, nil
	}
	if err != nil {
		return NoteState{}, false, fmt.Errorf("read note state %s: %w", path, err)
	}
	return s, true, nil
}

// NoteStateOf returns the stored state of the note at path inside a write
// transaction, and whether it exists: what sync checks at the moment it
// writes, since another process may have indexed the path after sync read
// its snapshot of states.
func NoteStateOf(tx *Tx, path string) (NoteState, bool, error) {
	return noteState(tx.QueryRow(`SELECT `+noteStateColumns+` FROM notes WHERE path = ?`, path), path)
}

// NoteState returns the stored state of the note at path from the read
// pool, and whether it exists.
func (db *DB) NoteState(ctx context.Context, path string) (NoteState, bool, error) {
	return noteState(db.rd().QueryRowContext(ctx, `SELECT `+noteStateColumns+` FROM notes WHERE path = ?`, path), path)
}

// MarkAllRederive marks every note for re-derivation (see Rederive): the
// first step of a reindex, which keeps every row in place so that readers
// go on seeing a complete index while it runs.
func MarkAllRederive(tx *Tx) error {
	if _, err := tx.Exec(`UPDATE notes SET verified_ns = ?`, Rederive); err != nil {
		return fmt.Errorf("mark notes for reindex: %w", err)
	}
	return nil
}

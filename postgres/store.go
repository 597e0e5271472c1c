package postgres

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/notepath"
)

// NotifyChannel is the channel every committed change of any vault is
// announced on; the payload is the vault's name, a tab and its new
// sequence number.
const NotifyChannel = "noema_changes"

// Store is one vault's note files of record in the database: a
// [noema.Store] whose every call is one transaction.
//
// Writers of one vault are serialised on the vault's row, which also hands
// out the sequence numbers, so numbers follow commit order and a reader of
// the feed never sees a later number before an earlier one commits. A
// deleted file keeps its row as a tombstone, so the feed reaches back to
// the vault's first change and never answers [noema.ErrFeedReset] for a
// number it handed out.
type Store struct {
	db    *DB
	vault string
	now   func() time.Time
	owned bool // Close closes db (OpenStore)
	// OperationLimits bound the vault's operation log (see
	// operations.go): set it before the first write.
	OperationLimits noema.OperationLimits
}

var _ noema.Store = (*Store)(nil)

// Vault returns the store of the vault named name, creating its row when
// the database has none. One database holds any number of vaults.
func (db *DB) Vault(ctx context.Context, name string) (*Store, error) {
	if strings.TrimSpace(name) == "" || strings.ContainsAny(name, "\t\n\x00") {
		return nil, noema.Errorf(noema.EINVALID, "invalid vault name %q", name)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO noema_vaults (vault) VALUES ($1) ON CONFLICT DO NOTHING`, name); err != nil {
		return nil, connectError(err)
	}
	return &Store{db: db, vault: name, now: time.Now}, nil
}

// ReadFile implements [noema.FileReader].
func (s *Store) ReadFile(ctx context.Context, path string) (*noema.File, error) {
	p, err := notepath.Note(path)
	if err != nil {
		return nil, err
	}
	f := &noema.File{FileInfo: noema.FileInfo{Path: p}}
	err = s.db.pool.QueryRow(ctx, `SELECT data, checksum, modified FROM noema_files
		WHERE vault = $1 AND path = $2 AND data IS NOT NULL`, s.vault, p).
		Scan(&f.Data, &f.Checksum, &f.Modified)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, noema.Errorf(noema.ENOTFOUND, "no note at %s", noema.NoteURI(p))
	}
	if err != nil {
		return nil, connectError(err)
	}
	f.Size = int64(len(f.Data))
	return f, nil
}

// ListFiles implements [noema.FileLister]. The files come from one
// snapshot of the database.
func (s *Store) ListFiles(ctx context.Context, fn func(noema.FileInfo) error) error {
	rows, err := s.db.pool.Query(ctx, `SELECT path, octet_length(data), modified FROM noema_files
		WHERE vault = $1 AND data IS NOT NULL ORDER BY path COLLATE "C"`, s.vault)
	if err != nil {
		return connectError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var f noema.FileInfo
		if err := rows.Scan(&f.Path, &f.Size, &f.Modified); err != nil {
			return connectError(err)
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return connectError(rows.Err())
}

// WriteFile implements [noema.FileWriter].
func (s *Store) WriteFile(ctx context.Context, path string, data []byte, expect string) (noema.Change, error) {
	p, err := notepath.Note(path)
	if err != nil {
		return noema.Change{}, err
	}
	if err := noema.CheckExpect(expect); err != nil {
		return noema.Change{}, err
	}
	changes, err := s.commit(ctx, []noema.FileChange{{Path: p, Before: expect, After: data}}, commitHow{takenIsConflict: true})
	if err != nil {
		return noema.Change{}, err
	}
	return changes[0], nil
}

// DeleteFile implements [noema.FileWriter].
func (s *Store) DeleteFile(ctx context.Context, path, expect string) (noema.Change, error) {
	p, err := notepath.Note(path)
	if err != nil {
		return noema.Change{}, err
	}
	if err := noema.CheckExpectExisting(expect); err != nil {
		return noema.Change{}, err
	}
	changes, err := s.commit(ctx, []noema.FileChange{{Path: p, Before: expect, Delete: true}}, commitHow{takenIsConflict: true})
	if err != nil {
		return noema.Change{}, err
	}
	return changes[0], nil
}

// MoveFile implements [noema.FileWriter]: a deletion of from and a creation
// of to with from's bytes, in one transaction.
func (s *Store) MoveFile(ctx context.Context, from, to, expect string) ([]noema.Change, error) {
	f, err := notepath.Note(from)
	if err != nil {
		return nil, err
	}
	t, err := notepath.Note(to)
	if err != nil {
		return nil, err
	}
	if err := noema.CheckExpectExisting(expect); err != nil {
		return nil, err
	}
	if f == t {
		return nil, noema.Errorf(noema.EINVALID, "cannot move %s onto itself", noema.NoteURI(f))
	}
	// The target takes the source's bytes, read under the source's row
	// lock; its checksum is the source's, which the commit compares.
	plan := []noema.FileChange{{Path: f, Before: expect, Delete: true}, {Path: t, Before: noema.Absent}}
	return s.commit(ctx, plan, commitHow{takenIsConflict: true, moveFrom: f, moved: expect})
}

// ApplyChangeset implements [noema.ChangesetApplier].
func (s *Store) ApplyChangeset(ctx context.Context, cs *noema.Changeset) ([]noema.Change, error) {
	if cs == nil || len(cs.Changes) == 0 {
		return nil, ctx.Err()
	}
	plan := make([]noema.FileChange, len(cs.Changes))
	seen := make(map[string]bool, len(cs.Changes))
	for i, c := range cs.Changes {
		p, err := notepath.Note(c.Path)
		if err != nil {
			return nil, err
		}
		if seen[p] {
			return nil, noema.Errorf(noema.EINVALID, "a changeset names %s twice", noema.NoteURI(p))
		}
		seen[p] = true
		if c.Delete {
			err = noema.CheckExpectExisting(c.Before)
		} else {
			err = noema.CheckExpect(c.Before)
		}
		if err != nil {
			return nil, err
		}
		c.Path = p
		plan[i] = c
	}
	op, err := s.newOpRecord(cs)
	if err != nil {
		return nil, err
	}
	return s.commit(ctx, plan, commitHow{op: op})
}

// commitHow says how a commit checks and what it does besides the rows.
type commitHow struct {
	// takenIsConflict: a creation onto a taken path is ECONFLICT (a single
	// write or a move's target), not ECHECKSUM (a changeset).
	takenIsConflict bool
	// moveFrom, when set, is the path whose bytes (of checksum moved) the
	// plan's change without After takes: a move.
	moveFrom, moved string
	// op, when set, is recorded in the operation log.
	op *opRecord
}

// commitSQL calls noema_commit (migration 0003), which makes a commit in
// one round trip and one transaction: number the changes on the vault's
// row, lock the files' rows in path order and compare their checksums,
// record the operation, write the rows, NOTIFY.
const commitSQL = `SELECT noema_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`

// commit applies plan in one transaction and returns its changes as the
// feed records them. Every file must have its Before checksum (see
// commitHow for a creation onto a taken path).
func (s *Store) commit(ctx context.Context, plan []noema.FileChange, how commitHow) ([]noema.Change, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	paths := make([]string, len(plan))
	befores := make([]string, len(plan))
	datas := make([][]byte, len(plan))
	out := make([]noema.Change, len(plan))
	for i, c := range plan {
		paths[i], befores[i] = c.Path, c.Before
		out[i] = noema.Change{Path: c.Path, Kind: noema.ChangeDelete, Checksum: noema.Absent}
		switch {
		case c.Delete:
		case c.After == nil && how.moveFrom != "":
			out[i].Kind, out[i].Checksum = noema.ChangeWrite, how.moved
		default:
			datas[i] = c.After
			if datas[i] == nil {
				datas[i] = []byte{}
			}
			out[i].Kind, out[i].Checksum = noema.ChangeWrite, noema.Checksum(datas[i])
		}
	}
	afters := make([]string, len(plan))
	for i, c := range out {
		afters[i] = c.Checksum
	}
	now := s.now().UTC()
	var moveFrom, opID, opTool *string
	if how.moveFrom != "" {
		moveFrom = &how.moveFrom
	}
	if how.op != nil {
		opID, opTool = &how.op.id, &how.op.tool
	}
	limits := s.OperationLimits.OrDefault()
	commitID := newCommitID()
	conn, err := s.db.pool.Acquire(ctx)
	if err != nil {
		return nil, connectError(err)
	}
	pid := conn.Conn().PgConn().PID()
	var base int64
	err = conn.QueryRow(ctx, commitSQL, s.vault, paths, befores, datas, afters, moveFrom, now,
		opID, opTool, now.Add(-limits.MaxAge), limits.MaxBytes, commitID).Scan(&base)
	conn.Release()
	if err != nil && ctx.Err() == nil {
		err = s.commitError(err, plan, how)
		if noema.ErrorCode(err) == noema.EUNAVAILABLE && errors.Is(err, errMaybeCommitted) {
			base, err = s.resolveCommit(ctx, commitID, pid, len(plan), err)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	for i := range out {
		out[i].Seq = base + int64(i) + 1
	}
	return out, nil
}

// commitError turns noema_commit's refusals into coded errors; others are
// classified by connectError.
func (s *Store) commitError(err error, plan []noema.FileChange, how commitHow) error {
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	switch {
	case !ok:
	case pgErr.Code == "NM001":
		for _, c := range plan {
			if c.Path == pgErr.Detail {
				return check(c, pgErr.Hint, how.takenIsConflict)
			}
		}
	case pgErr.Code == "NM002":
		return noema.Errorf(noema.ENOTFOUND, "the database holds no vault %q", s.vault)
	case pgErr.Code == "23505" && pgErr.ConstraintName == "noema_operations_pkey" && how.op != nil:
		return noema.Errorf(noema.ECONFLICT, "operation %s is already in the log; nothing was written", how.op.id)
	}
	err = connectError(err)
	if noema.ErrorCode(err) == noema.EUNAVAILABLE && !pgconn.SafeToRetry(err) {
		// The call was sent: the database may have made the change.
		return noema.WrapError(errors.Join(errMaybeCommitted, err), noema.EUNAVAILABLE,
			"PostgreSQL is unavailable: the connection broke after the write was sent, so it may or may not have been made; read the file again before retrying: %v", err)
	}
	return err
}

// check compares a planned change with the checksum its file has now
// ("" for a path the vault never held).
func check(c noema.FileChange, have string, takenIsConflict bool) error {
	if have == "" {
		have = noema.Absent
	}
	if have == c.Before {
		return nil
	}
	if c.Before == noema.Absent && takenIsConflict {
		return &noema.Error{Code: noema.ECONFLICT,
			Message: noema.NoteURI(c.Path) + " already exists; nothing was written",
			Details: map[string]any{"path": c.Path, "checksum": have}}
	}
	return &noema.Error{Code: noema.ECHECKSUM,
		Message: noema.NoteURI(c.Path) + " changed since the change was planned; nothing was written; read it again and retry",
		Details: map[string]any{"path": c.Path, "checksum": have}}
}

// Head implements [noema.ChangeFeed].
func (s *Store) Head(ctx context.Context) (int64, error) {
	var seq int64
	err := s.db.pool.QueryRow(ctx, `SELECT seq FROM noema_vaults WHERE vault = $1`, s.vault).Scan(&seq)
	if err != nil {
		return 0, connectError(err)
	}
	return seq, nil
}

// ChangesSince implements [noema.ChangeFeed]: the state each path changed
// after since has now (a path changed twice appears once, at its last
// number), from the files' rows and tombstones.
func (s *Store) ChangesSince(ctx context.Context, since int64, limit int) ([]noema.Change, error) {
	if limit <= 0 {
		limit = -1
	}
	var head int64
	var out []noema.Change
	err := s.readOnly(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT seq FROM noema_vaults WHERE vault = $1`, s.vault).Scan(&head); err != nil {
			return err
		}
		if since < 0 || since > head {
			return nil
		}
		rows, err := tx.Query(ctx, `SELECT seq, path, checksum FROM noema_files
			WHERE vault = $1 AND seq > $2 ORDER BY seq LIMIT NULLIF($3, -1)`, s.vault, since, limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (noema.Change, error) {
			var c noema.Change
			err := r.Scan(&c.Seq, &c.Path, &c.Checksum)
			c.Kind = noema.ChangeWrite
			if c.Checksum == noema.Absent {
				c.Kind = noema.ChangeDelete
			}
			return c, err
		})
		return err
	})
	if err != nil {
		return nil, connectError(err)
	}
	if since < 0 || since > head {
		return nil, noema.WrapError(noema.ErrFeedReset, noema.ENOTFOUND,
			"the change feed of vault %q is at %d; %d is not a sequence number it handed out: list the files again and continue from its head", s.vault, head, since)
	}
	return out, nil
}

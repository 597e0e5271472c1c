package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/noema-mem/noema"
)

// The operation log (noema.OperationLog) of a vault in the database. A
// changeset that names its operation is recorded in the transaction that
// applies it (noema_commit, migration 0003), from the rows it replaces (their bytes never leave the
// database), so the log holds an operation exactly when its change
// happened, and every server of the vault lists it and can undo it. The
// log is bounded in that same transaction by Store.OperationLimits: entries
// older than MaxAge go, then the oldest until the entries' bytes (paths and
// before-images) are at most MaxBytes — never the one just written.

var _ noema.OperationLog = (*Store)(nil)

// opRecord names the operation a commit records.
type opRecord struct {
	id, tool string
}

// newOpRecord returns the record cs asks for (nil when it names no
// operation), refusing an id that is not one.
func (s *Store) newOpRecord(cs *noema.Changeset) (*opRecord, error) {
	if cs.Operation == "" {
		return nil, nil
	}
	id := cs.OperationID
	if id == "" {
		id = noema.NewOperationID(s.now())
	} else if err := noema.CheckOperationID(id); err != nil {
		return nil, err
	}
	return &opRecord{id: id, tool: cs.Operation}, nil
}

// Operations implements [noema.OperationLog]: one snapshot of the log.
func (s *Store) Operations(ctx context.Context, offset, limit int) ([]noema.Operation, int, error) {
	if limit <= 0 {
		limit = -1
	}
	var total int
	out := []noema.Operation{}
	err := s.readOnly(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM noema_operations WHERE vault = $1`, s.vault).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id, tool, at FROM noema_operations WHERE vault = $1
			ORDER BY id DESC OFFSET $2 LIMIT NULLIF($3, -1)`, s.vault, max(offset, 0), limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (noema.Operation, error) {
			var op noema.Operation
			err := r.Scan(&op.ID, &op.Tool, &op.At)
			op.At = op.At.UTC()
			return op, err
		})
		if err != nil || len(out) == 0 {
			return err
		}
		ids := make([]string, len(out))
		at := make(map[string]int, len(out))
		for i, op := range out {
			ids[i], at[op.ID] = op.ID, i
		}
		rows, err = tx.Query(ctx, `SELECT id, path, before_sum, after_sum FROM noema_operation_files
			WHERE vault = $1 AND id = ANY($2) ORDER BY id, ord`, s.vault, ids)
		if err != nil {
			return err
		}
		var id string
		var f noema.OperationFile
		_, err = pgx.ForEachRow(rows, []any{&id, &f.Path, &f.Before, &f.After}, func() error {
			op := &out[at[id]]
			op.Files = append(op.Files, f)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, 0, connectError(err)
	}
	for i := range out {
		if out[i].Files == nil {
			out[i].Files = []noema.OperationFile{}
		}
	}
	return out, total, nil
}

// Operation implements [noema.OperationLog].
func (s *Store) Operation(ctx context.Context, id string) (*noema.Operation, error) {
	if err := noema.CheckOperationID(id); err != nil {
		return nil, err
	}
	op := &noema.Operation{ID: id, Files: []noema.OperationFile{}}
	found := true
	err := s.readOnly(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT tool, at FROM noema_operations WHERE vault = $1 AND id = $2`, s.vault, id).Scan(&op.Tool, &op.At)
		if errors.Is(err, pgx.ErrNoRows) {
			found = false
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT path, before_sum, data, after_sum FROM noema_operation_files
			WHERE vault = $1 AND id = $2 ORDER BY ord`, s.vault, id)
		if err != nil {
			return err
		}
		op.Files, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (noema.OperationFile, error) {
			var f noema.OperationFile
			err := r.Scan(&f.Path, &f.Before, &f.Data, &f.After)
			if f.Before != noema.Absent && f.Data == nil {
				f.Data = []byte{}
			}
			return f, err
		})
		return err
	})
	if err != nil {
		return nil, connectError(err)
	}
	if !found {
		return nil, noema.Errorf(noema.ENOTFOUND, "no operation %s in the log (it may have been pruned)", id)
	}
	op.At = op.At.UTC()
	return op, nil
}

// readOnly runs fn in a read-only transaction that reads one snapshot.
func (s *Store) readOnly(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, s.db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/noema-mem/noema"
)

// The operation log (noema.OperationLog) of a vault in the database. A
// changeset that names its operation is recorded in the transaction that
// applies it, from the rows it replaces (their bytes never leave the
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

// recordOperation writes op's entry for plan, after the rows are locked
// and checked and before they are written, then prunes the log.
func (s *Store) recordOperation(ctx context.Context, tx pgx.Tx, op *opRecord, plan []noema.FileChange) error {
	paths := make([]string, len(plan))
	afters := make([]string, len(plan))
	for i, c := range plan {
		paths[i], afters[i] = c.Path, noema.Absent
		if !c.Delete {
			afters[i] = noema.Checksum(c.After)
		}
	}
	now := s.now().UTC()
	// The operation's row is inserted by the statement's first
	// data-modifying part; its files' foreign key is checked at its end.
	_, err := tx.Exec(ctx, `WITH files AS (
			SELECT t.ord, t.path, t.after_sum, f.data, f.checksum
			FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS t(path, after_sum, ord)
			LEFT JOIN noema_files f ON f.vault = $1 AND f.path = t.path
		), op AS (
			INSERT INTO noema_operations (vault, id, tool, at, file_count, bytes)
			SELECT $1, $2, $3, $6, count(*), COALESCE(sum(octet_length(path) + COALESCE(octet_length(data), 0) + 140), 0) FROM files
		)
		INSERT INTO noema_operation_files (vault, id, ord, path, before_sum, data, after_sum)
		SELECT $1, $2, ord, path, CASE WHEN data IS NULL THEN 'absent' ELSE checksum END, data, after_sum FROM files`,
		s.vault, op.id, op.tool, paths, afters, now)
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == "23505" {
		return noema.Errorf(noema.ECONFLICT, "operation %s is already in the log; nothing was written", op.id)
	}
	if err != nil {
		return fmt.Errorf("record operation %s: %w", op.id, err)
	}
	limits := s.OperationLimits.OrDefault()
	if _, err := tx.Exec(ctx, `DELETE FROM noema_operations WHERE vault = $1 AND id <> $2 AND (at < $3 OR id IN (
			SELECT id FROM (SELECT id, sum(bytes) OVER (ORDER BY id DESC) AS total FROM noema_operations WHERE vault = $1) t
			WHERE total > $4))`,
		s.vault, op.id, now.Add(-limits.MaxAge), limits.MaxBytes); err != nil {
		return fmt.Errorf("prune the operation log: %w", err)
	}
	return nil
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

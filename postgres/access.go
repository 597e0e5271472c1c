package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/noema-mem/noema"
)

var _ noema.AccessLog = (*Store)(nil)

// RecordAccesses implements [noema.AccessLog]: one statement for the batch.
func (s *Store) RecordAccesses(ctx context.Context, accesses []noema.Access) error {
	if len(accesses) == 0 {
		return nil
	}
	paths := make([]string, len(accesses))
	ats := make([]any, len(accesses))
	servers := make([]string, len(accesses))
	for i, a := range accesses {
		paths[i], ats[i], servers[i] = a.Path, a.At.UTC(), a.Server
	}
	_, err := s.db.pool.Exec(ctx, `INSERT INTO noema_access (vault, path, at, server)
		SELECT $1, p, a, sv FROM unnest($2::text[], $3::timestamptz[], $4::text[]) AS t(p, a, sv)`,
		s.vault, paths, ats, servers)
	return connectError(err)
}

// AccessesSince implements [noema.AccessLog].
func (s *Store) AccessesSince(ctx context.Context, since int64, limit int) ([]noema.Access, error) {
	rows, err := s.db.pool.Query(ctx, `SELECT id, path, at, server FROM noema_access
		WHERE vault = $1 AND id > $2 ORDER BY id LIMIT $3`, s.vault, since, max(limit, 1))
	if err != nil {
		return nil, connectError(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (noema.Access, error) {
		var a noema.Access
		err := r.Scan(&a.ID, &a.Path, &a.At, &a.Server)
		return a, err
	})
	return out, connectError(err)
}

package postgres

import (
	"context"

	"github.com/noema-mem/noema"
)

// WalkFiles calls fn with every note file of the vault, in byte-wise path
// order, from one query (one snapshot), and stops with fn's error. Each
// file has its checksum and size; its Data only when withData. A copy
// between stores (package storecopy) reads a vault this way instead of
// one ReadFile a file.
func (s *Store) WalkFiles(ctx context.Context, withData bool, fn func(*noema.File) error) error {
	data := "NULL::bytea"
	if withData {
		data = "data"
	}
	rows, err := s.db.pool.Query(ctx, `SELECT path, checksum, modified, octet_length(data), `+data+`
		FROM noema_files WHERE vault = $1 AND data IS NOT NULL ORDER BY path COLLATE "C"`, s.vault)
	if err != nil {
		return connectError(err)
	}
	defer rows.Close()
	for rows.Next() {
		f := &noema.File{}
		if err := rows.Scan(&f.Path, &f.Checksum, &f.Modified, &f.Size, &f.Data); err != nil {
			return connectError(err)
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return connectError(rows.Err())
}

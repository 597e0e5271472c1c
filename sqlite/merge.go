package sqlite

import (
	"context"
	"fmt"
	"strings"
)

// FilesRelatingTo returns the vault paths of the files that declare a
// relation to any of refs ("concept:<key>" or "note:<path>"), in path order.
func (db *DB) FilesRelatingTo(ctx context.Context, refs []string) ([]string, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	args := make([]any, len(refs))
	for i, r := range refs {
		args[i] = r
	}
	rows, err := db.read.QueryContext(ctx, `SELECT DISTINCT n.path FROM relations r JOIN notes n ON n.id = r.note_id
		WHERE r.to_ref IN (?`+strings.Repeat(",?", len(refs)-1)+`) ORDER BY n.path`, args...)
	if err != nil {
		return nil, fmt.Errorf("files relating to %v: %w", refs, err)
	}
	defer rows.Close()
	var paths []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("files relating to %v: %w", refs, err)
		}
		paths = append(paths, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("files relating to %v: %w", refs, err)
	}
	return paths, nil
}

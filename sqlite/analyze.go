package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/noema-mem/noema/graph"
)

// This file holds the read of analyze_graph (package graph) that the
// export does not cover: the version its caches are keyed by.

var _ graph.Source = (*DB)(nil)

// GraphVersion returns a fingerprint of everything the exported graph is
// derived from, read in one snapshot: the concept registry's version, and
// the count, highest row id and summed verification and modification times
// of the notes. Every re-derivation of a note's links, relations or page
// writes its verification time, a new or deleted note changes the count or
// the sums, and every change to the concept registry bumps its version, so
// the fingerprint differs whenever the graph may have changed. (It may
// also change when the graph did not, e.g. when an unchanged file is
// re-verified: then a cache is rebuilt for nothing, never served stale.)
// It costs one pass over the notes table: about a millisecond per 10,000
// notes.
func (db *DB) GraphVersion(ctx context.Context) (string, error) {
	var v string
	err := db.ReadTx(ctx, func(tx *sql.Tx) error {
		var cv sql.NullString
		var count, maxID, verified, modified int64
		err := tx.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = ?),
			count(*), coalesce(max(id), 0), coalesce(sum(verified_ns % 1000000007), 0), coalesce(sum(mtime_ns % 1000000007), 0)
			FROM notes`, ConceptsVersionKey).Scan(&cv, &count, &maxID, &verified, &modified)
		if err != nil {
			return err
		}
		v = fmt.Sprintf("%s/%d/%d/%d/%d", cv.String, count, maxID, verified, modified)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read graph version: %w", err)
	}
	return v, nil
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
)

// TextMergedKey is the meta key counting the merges of the full-text
// index into one segment (absent: never merged). A count, not a text
// version, so that a cold sync leaves the same index however it batched
// its writes.
const TextMergedKey = "text_merges"

// MergeText merges the full-text index into one b-tree segment (FTS5's
// 'optimize') when force is set or when it has never been merged, and
// reports whether it did.
//
// FTS5 adds a segment per write transaction and merges them only in
// part (automerge), so an index written in many transactions (a first
// sync: a segment per thousand notes) keeps a dozen segments or more, and
// every term a query names is looked up in each: at 10,000 and 100,000
// notes a rare word's ranking took twice as long as on the merged index,
// and each extra phrase of the search's bonus or every-term lookup paid
// it again (docs/search.md). The answers are the same: a merge changes
// how the postings are stored, not what they hold or BM25's statistics.
// It rewrites the whole full-text index (seconds at 100,000 notes). The
// indexer does not call it: in the 100k benchmark a merged index made the
// common-word queries slower (docs/search.md, speed round 4), which is
// not understood yet.
func (db *DB) MergeText(ctx context.Context, force bool) (bool, error) {
	merged := false
	err := db.Write(ctx, func(tx *Tx) error {
		merged = false
		var last string
		err := tx.QueryRow(`SELECT value FROM meta WHERE key = ?`, TextMergedKey).Scan(&last)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("read meta %s: %w", TextMergedKey, err)
		case !force:
			return nil
		}
		n, _ := strconv.Atoi(last) // "" (never merged) counts 0
		if _, err := tx.Exec(`INSERT INTO notes_fts(notes_fts) VALUES('optimize')`); err != nil {
			return fmt.Errorf("merge the full-text index: %w", err)
		}
		merged = true
		return SetMeta(tx, TextMergedKey, strconv.Itoa(n+1))
	})
	return merged, err
}

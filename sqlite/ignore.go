package sqlite

import (
	"context"
	"fmt"
)

// ignoreKey is the meta key holding the concepts.ignore list the notes
// were indexed with.
const ignoreKey = "concepts_ignore"

// SetIgnoreList records the concepts.ignore list (patterns joined one per
// line) the index is derived with. When it differs from the recorded one,
// every note's file state is forgotten, so the next sync reads every file
// again and derives its links under the new list; it reports whether that
// happened. The first call on an index records the list without resetting
// anything when the list is empty.
func (db *DB) SetIgnoreList(ctx context.Context, list string) (changed bool, err error) {
	old, err := db.GetMeta(ctx, ignoreKey)
	if err != nil {
		return false, err
	}
	if old == list {
		return false, nil
	}
	err = db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`UPDATE notes SET mtime_ns = 0, verified_ns = 0, hash = ''`); err != nil {
			return fmt.Errorf("forget file states: %w", err)
		}
		return SetMeta(tx, ignoreKey, list)
	})
	return err == nil, err
}

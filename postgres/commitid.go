package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/noema-mem/noema"
)

// Commit ids (migration 0004). A write is one call of noema_commit, its own
// transaction. When the connection breaks after the call was sent, the
// database may still make the change: the backend finishes a statement
// whose client is gone. Each call therefore names its commit with a random
// id, which noema_commit records beside the change. After such a break the
// store waits until the backend that ran the call (known by its process
// id) is gone or idle, and looks the id up on another connection: found,
// the write was made and is reported so; not found, it never will be, and
// the write is reported unavailable with nothing made. Only when the
// database cannot be reached within resolveWithin does the answer stay
// "may or may not have been made".

// errMaybeCommitted marks a write whose connection broke after it was
// sent.
var errMaybeCommitted = errors.New("the write may have been committed")

// resolveWithin bounds how long a store tries to learn whether a write
// whose connection broke was made.
const resolveWithin = 5 * time.Second

// newCommitID returns a random commit id.
func newCommitID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// resolveCommit learns whether the commit id, sent on the connection of
// backend pid before it broke with sent, was made: it returns the
// sequence number before its first change when it was, sent's
// "unavailable, nothing written" when it was not, and sent itself when
// the database could not tell within resolveWithin.
func (s *Store) resolveCommit(ctx context.Context, id string, pid uint32, n int, sent error) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, resolveWithin)
	defer cancel()
	for {
		var busy bool
		err := s.db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state IS DISTINCT FROM 'idle')`, int64(pid)).Scan(&busy)
		if err == nil && !busy {
			var seq int64
			err = s.db.pool.QueryRow(ctx, `SELECT COALESCE((SELECT seq FROM noema_commits WHERE vault = $1 AND id = $2), -1)`, s.vault, id).Scan(&seq)
			switch {
			case err == nil && seq >= 0:
				s.db.logger.Info("a write whose connection broke was made", "vault", s.vault, "commit", id)
				return seq - int64(n), nil
			case err == nil:
				return 0, noema.Errorf(noema.EUNAVAILABLE, "PostgreSQL is unavailable: the connection broke while the write was sent; it was not made")
			}
		}
		select {
		case <-ctx.Done():
			return 0, sent
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Package postgres is noema's store of record on PostgreSQL (docs/teams.md):
// the note files of one or more vaults as rows, written in transactions
// that compare checksums, with a change sequence per vault that every
// server's local index follows.
//
// The schema is versioned (migration/*.sql, embedded) and changes only
// through [Migrate], an explicit step (`noema store migrate`): [Open]
// refuses a database without the schema, at an older version or at a newer
// one, each with a clear noema.EINVALID error, so a server never runs
// against a schema it does not know and never applies half of one.
package postgres

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is an open connection pool to a database holding noema's schema.
type DB struct {
	pool   *pgxpool.Pool
	logger *slog.Logger
	// life ends when the DB is closed; the listening goroutine runs under it.
	life   context.Context
	stop   context.CancelFunc
	listen listener
}

// Open connects to the database dsn names and checks its schema (see the
// package documentation). A malformed DSN is noema.EINVALID; a server that
// cannot be reached is noema.EUNAVAILABLE.
// Warnings (a lost listening connection) go to logger; nil discards them.
func Open(ctx context.Context, dsn string, logger *slog.Logger) (*DB, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectError(err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, connectError(err)
	}
	if err := checkSchema(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	life, stop := context.WithCancel(context.Background())
	return &DB{pool: pool, logger: logger, life: life, stop: stop}, nil
}

// Close stops listening and closes every connection of the pool.
func (db *DB) Close() {
	db.stop()
	db.listen.running.Wait()
	db.pool.Close()
}

// isNetError reports whether err comes from the network below the
// protocol: a refused, reset, timed-out or closed connection.
func isNetError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed)
}

package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/noema-mem/noema"
)

//go:embed migration/*.sql
var migrationFS embed.FS

// migrationLock is the key of the session advisory lock Migrate holds, so
// that two servers migrating one database at once apply each step once.
const migrationLock = 0x6e6f656d61 // "noema"

// migration is one embedded schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded steps in version order. Their file names
// start with a version number (0001_init.sql).
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFS, "migration/*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	var out []migration
	for _, name := range names {
		base := strings.TrimPrefix(name, "migration/")
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: its name does not start with a version number", name)
		}
		src, err := fs.ReadFile(migrationFS, name)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		out = append(out, migration{version: v, name: base, sql: string(src)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: versions must run 1, 2, 3… without gaps", m.name)
		}
	}
	return out, nil
}

// SchemaVersion is the schema version this build of noema reads and writes.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// Migrate brings the database dsn names to this build's schema and returns
// the names of the steps it applied (none when it was current). All steps
// run in one transaction under an advisory lock: a failure or a kill leaves
// the schema as it was, never half applied. A database at a newer version
// than this build knows is refused with noema.EINVALID.
func Migrate(ctx context.Context, dsn string) ([]string, error) {
	ms, err := migrations()
	if err != nil {
		return nil, err
	}
	return migrate(ctx, dsn, ms)
}

// migrate applies the steps of ms the database lacks (see Migrate).
func migrate(ctx context.Context, dsn string, ms []migration) ([]string, error) {
	cfg, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return nil, connectError(err)
	}
	defer conn.Close(context.Background())
	var applied []string
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return fmt.Errorf("lock the schema: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS noema_schema (
			version    integer PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("create the schema table: %w", err)
		}
		current, err := versionIn(ctx, tx)
		if err != nil {
			return err
		}
		if current > len(ms) {
			return newerError(current)
		}
		for _, m := range ms[current:] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("apply migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO noema_schema (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return fmt.Errorf("record migration %s: %w", m.name, err)
			}
			applied = append(applied, m.name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return applied, nil
}

// checkSchema fails unless the database holds exactly this build's schema:
// none at all, or an older one, asks for `noema store migrate`; a newer one
// for a newer noema.
func checkSchema(ctx context.Context, pool *pgxpool.Pool) error {
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('noema_schema') IS NOT NULL`).Scan(&exists); err != nil {
		return connectError(err)
	}
	if !exists {
		return noema.Errorf(noema.EINVALID, "the database has no noema schema: run `noema store migrate --store DSN` once (it needs the right to create tables)")
	}
	var current int
	if err := pool.QueryRow(ctx, `SELECT COALESCE(max(version), 0) FROM noema_schema`).Scan(&current); err != nil {
		return connectError(err)
	}
	want := SchemaVersion()
	switch {
	case current > want:
		return newerError(current)
	case current < want:
		return noema.Errorf(noema.EINVALID, "the database's noema schema is at version %d, this noema needs %d: run `noema store migrate --store DSN`", current, want)
	}
	return nil
}

func versionIn(ctx context.Context, tx pgx.Tx) (int, error) {
	var v int
	if err := tx.QueryRow(ctx, `SELECT COALESCE(max(version), 0) FROM noema_schema`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read the schema version: %w", err)
	}
	return v, nil
}

func newerError(current int) error {
	return noema.Errorf(noema.EINVALID, "the database's noema schema is at version %d, newer than this noema knows (%d): upgrade noema", current, SchemaVersion())
}

// parseDSN parses a postgres:// URL or key=value DSN, without its vault
// parameter (see SplitVault), failing with noema.EINVALID (the message
// never repeats a password).
func parseDSN(dsn string) (*pgxpool.Config, error) {
	if strings.TrimSpace(dsn) == "" {
		return nil, noema.Errorf(noema.EINVALID, "no PostgreSQL DSN given (postgres://user@host:5432/db)")
	}
	dsn, _, err := SplitVault(dsn)
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		var perr *pgconn.ParseConfigError
		msg := "malformed PostgreSQL DSN"
		if errors.As(err, &perr) && perr.Unwrap() != nil {
			msg += ": " + perr.Unwrap().Error()
		}
		return nil, noema.Errorf(noema.EINVALID, "%s (want postgres://user@host:5432/db)", msg)
	}
	return cfg, nil
}

// connectError classifies an error reaching or talking to the server: a
// server that cannot be reached, refuses the connection or is shutting
// down is noema.EUNAVAILABLE; anything else is returned wrapped.
func connectError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), // connection exception
			strings.HasPrefix(pgErr.Code, "57P"), // operator intervention: shutdown, cannot connect now
			pgErr.Code == "53300":                // too many connections
			return noema.WrapError(err, noema.EUNAVAILABLE, "PostgreSQL is unavailable: %v", err)
		}
		return fmt.Errorf("postgres: %w", err)
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) || pgconn.SafeToRetry(err) || isNetError(err) {
		return noema.WrapError(err, noema.EUNAVAILABLE, "PostgreSQL is unavailable: %v", err)
	}
	return fmt.Errorf("postgres: %w", err)
}

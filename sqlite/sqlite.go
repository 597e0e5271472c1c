// Package sqlite is noema's index: a SQLite database in <vault>/.noema/
// (pure Go, modernc.org/sqlite) holding notes, links, concepts, relations,
// the full-text index and access statistics.
//
// The index is a cache of the vault and can always be rebuilt from the files
// (see package indexer); only access statistics live here alone.
//
// A DB opens two pools on one file, in WAL mode: a read pool and a write pool
// of exactly one connection whose transactions begin IMMEDIATE, so writers of
// one process queue in Go and writers of several processes queue on SQLite's
// lock through the busy timeout instead of failing with "database is locked".
// Every write runs in a short transaction through [DB.Write], which also
// retries a transaction that still finds the database busy.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/noema-mem/noema"
)

//go:embed migration/*.sql
var migrationFS embed.FS

// BusyTimeout is how long one statement waits for another process's lock.
const BusyTimeout = 10 * time.Second

// DB is an open index.
type DB struct {
	path string
	// pools are the connections to the database file, replaced by Reopen
	// when the file is deleted under them.
	pools    atomic.Pointer[pools]
	reopenMu sync.Mutex
	// Now returns the current time; tests replace it.
	Now func() time.Time
	// access queues note accesses the write lock kept waiting (access.go).
	access accessLog
	// mentions is the newest mention graph read (mentiongraph.go);
	// mentionsFirst is held while the first is read (firstMentions).
	mentions      atomic.Pointer[mentionGraph]
	mentionsFirst sync.Mutex
	// noteRows are the notes' search rows kept in memory once rowsKept
	// (searchrows.go); rowsMu is held while they are brought up to date.
	noteRows atomic.Pointer[noteRows]
	rowsKept atomic.Bool
	rowsMu   sync.Mutex
	// chunkCheck is, by model, where NotesToChunk left off.
	chunkMu    sync.Mutex
	chunkCheck map[string]chunkCheck
}

// pools are the connections to one database file: a read pool and a write
// pool of one connection.
type pools struct {
	read, write *sql.DB
	file        os.FileInfo // the file they opened
	dsn         string      // the data source both open, without the write pool's _txlock
	// writeStmts are the write pool's statements kept prepared (Tx);
	// readStmts the read pool's, for the queries that go through rdKept.
	writeStmts, readStmts stmtCache
}

func (db *DB) rd() *sql.DB { return db.pools.Load().read }

func (db *DB) wr() *sql.DB { return db.pools.Load().write }

// rdKept is the read pool with the statements run more than once kept
// prepared (stmtCache, bounded), for the queries a search or a write makes
// on every call (versions, bodies, a note's concepts, the full-text
// ranking statements built from a few shapes): parsing and planning them
// were as long as running them.
func (db *DB) rdKept() querier {
	p := db.pools.Load()
	return keptReads{pool: p.read, cache: &p.readStmts}
}

// keptReads runs queries on pool through cache's statements.
type keptReads struct {
	pool  *sql.DB
	cache *stmtCache
}

// QueryContext runs query's kept statement with args, preparing it the
// second time it is seen; else runs it unprepared.
func (k keptReads) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st := k.cache.get(query)
	if st == nil {
		k.cache.offer(ctx, k.pool, []string{query})
		st = k.cache.get(query)
	}
	if st != nil {
		return st.QueryContext(ctx, args...)
	}
	return k.pool.QueryContext(ctx, query, args...)
}

// close closes both pools (each waits for its queries in flight),
// checkpointing the WAL first when checkpoint is set.
func (p *pools) close(checkpoint bool) error {
	var errs []error
	errs = append(errs, p.writeStmts.close(), p.readStmts.close())
	if p.read != nil {
		errs = append(errs, p.read.Close())
	}
	if p.write != nil {
		if checkpoint {
			// Fold the WAL back so the file is self-contained; ignore busy.
			_, _ = p.write.Exec("PRAGMA wal_checkpoint(PASSIVE)")
		}
		errs = append(errs, p.write.Close())
	}
	return errors.Join(errs...)
}

// Open opens (creating if needed) the index database at path and applies
// pending migrations.
func Open(ctx context.Context, path string) (*DB, error) {
	db := &DB{path: path, Now: time.Now}
	p, err := db.open(ctx)
	if err != nil {
		return nil, err
	}
	db.pools.Store(p)
	return db, nil
}

// open opens pools on db.path, creating the file and its folder when
// missing, and applies pending migrations.
func (db *DB) open(ctx context.Context) (p *pools, err error) {
	path := db.path
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create index dir: %w", err)
	}
	p = &pools{}
	defer func() {
		if err != nil {
			p.close(false)
		}
		if IsFull(err) {
			err = noema.WrapError(err, noema.ENOSPACE, "no space left on the device to open the index %s; nothing was changed", path)
		}
	}()
	// busy_timeout first: the journal_mode pragma itself may need the lock.
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", defaultCacheKB))
	q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", defaultAutocheckpoint))
	dsn := "file:" + path + "?" + q.Encode()
	p.dsn = dsn

	if p.write, err = sql.Open("sqlite", dsn+"&_txlock=immediate"); err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	p.write.SetMaxOpenConns(1)
	p.write.SetMaxIdleConns(1)
	p.write.SetConnMaxIdleTime(0)
	if p.read, err = sql.Open("sqlite", dsn+"&_pragma=query_only(1)"); err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	p.read.SetMaxOpenConns(4)

	var mode string
	if err := p.write.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return nil, fmt.Errorf("read journal mode: %w", err)
	} else if mode != "wal" {
		return nil, fmt.Errorf("journal mode is %q, want wal", mode)
	}
	if p.file, err = os.Stat(path); err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	if err := db.migrate(ctx, p.write); err != nil {
		return nil, err
	}
	if err := db.recoverTextLoad(ctx, p.write); err != nil {
		return nil, err
	}
	return p, nil
}

// Reopen opens the index afresh when its file is no longer the one the
// DB opened — deleted with its folder, or replaced — and reports whether
// it did. The new index is empty: the caller rebuilds it (a full sync).
// Queries in flight finish on the old file, whose pools are then closed.
// The vault's folder must exist: Reopen creates the index's folder.
func (db *DB) Reopen(ctx context.Context) (bool, error) {
	db.reopenMu.Lock()
	defer db.reopenMu.Unlock()
	cur := db.pools.Load()
	if fi, err := os.Stat(db.path); err == nil && os.SameFile(fi, cur.file) {
		return false, nil
	}
	p, err := db.open(ctx)
	if err != nil {
		return false, err
	}
	db.pools.Store(p)
	go cur.close(false)
	return true, nil
}

// Path returns the database file path.
func (db *DB) Path() string { return db.path }

// Close writes queued accesses (waiting at most AccessCloseWait), then
// closes both pools.
func (db *DB) Close() error {
	p := db.pools.Load()
	if p == nil {
		return nil
	}
	return errors.Join(db.closeAccessLog(), p.close(true))
}

// migrate applies every embedded migration not yet recorded, each in its own
// transaction, in file-name order.
func (db *DB) migrate(ctx context.Context, w *sql.DB) error {
	names, err := fs.Glob(migrationFS, "migration/*.sql")
	if err != nil {
		return fmt.Errorf("list migrations: %w", err)
	}
	sort.Strings(names)
	if applied(ctx, w, names) {
		// Every migration is recorded: no write lock to take, so opening
		// the index never waits behind another process's long write (a
		// sync of a huge note, say) — a read never waits for a sync.
		return nil
	}
	return db.writeOn(ctx, w, func(tx *Tx) error {
		if _, err := tx.Exec(`CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY) STRICT`); err != nil {
			return fmt.Errorf("create migrations table: %w", err)
		}
		for _, name := range names {
			var n int
			if err := tx.QueryRow(`SELECT COUNT(*) FROM migrations WHERE name = ?`, name).Scan(&n); err != nil {
				return fmt.Errorf("check migration %s: %w", name, err)
			}
			if n > 0 {
				continue
			}
			src, err := fs.ReadFile(migrationFS, name)
			if err != nil {
				return fmt.Errorf("read migration %s: %w", name, err)
			}
			if _, err := tx.Exec(string(src)); err != nil {
				return fmt.Errorf("apply migration %s: %w", name, err)
			}
			if _, err := tx.Exec(`INSERT INTO migrations (name) VALUES (?)`, name); err != nil {
				return fmt.Errorf("record migration %s: %w", name, err)
			}
		}
		return nil
	})
}

// applied reports whether every migration of names is recorded, reading
// without a transaction (no lock in WAL mode). Any error (no migrations
// table yet) is "not known to be applied".
func applied(ctx context.Context, w *sql.DB, names []string) bool {
	done := map[string]bool{}
	err := eachPair(ctx, w, `SELECT name, 1 FROM migrations`, nil, func(name string, _ int) { done[name] = true })
	if err != nil {
		return false
	}
	for _, n := range names {
		if !done[n] {
			return false
		}
	}
	return true
}

// Tx is a write transaction. Helpers that take a *Tx can be combined inside
// one [DB.Write] call. Its statements and single-row queries run prepared
// once per connection (stmtCache) when the transaction is [DB.Write]'s.
type Tx struct {
	*sql.Tx
	ctx context.Context
	// Now is the time the transaction started, from DB.Now.
	Now time.Time
	// textChanged records that the transaction wrote notes_fts: the
	// commit then moves search_state.text_version.
	textChanged bool
	// cache holds the pool's prepared statements (nil: none kept); bound
	// are those bound to this transaction, by SQL; missed are the
	// statements run without one, offered to the cache once the
	// transaction ends.
	cache  *stmtCache
	bound  map[string]*sql.Stmt
	missed []string
}

// stmt returns query's prepared statement bound to the transaction, or nil
// when the cache has none (then query is offered to it afterwards).
func (tx *Tx) stmt(query string) *sql.Stmt {
	if tx.cache == nil {
		return nil
	}
	if st, ok := tx.bound[query]; ok {
		return st
	}
	parent := tx.cache.get(query)
	if parent == nil {
		tx.missed = append(tx.missed, query)
		return nil
	}
	st := tx.Tx.StmtContext(tx.ctx, parent)
	if tx.bound == nil {
		tx.bound = map[string]*sql.Stmt{}
	}
	tx.bound[query] = st
	return st
}

// ExecContext runs a statement in the transaction, prepared once when the
// pool keeps its statements.
func (tx *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := tx.stmt(query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return tx.Tx.ExecContext(ctx, query, args...)
}

// QueryRowContext runs a single-row query in the transaction, prepared
// once when the pool keeps its statements. (Queries of many rows are not:
// SQLite runs a prepared statement once at a time, and a caller may run
// the same query again while it reads the rows of the first.)
func (tx *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := tx.stmt(query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.Tx.QueryRowContext(ctx, query, args...)
}

// PrepareContext returns query's statement bound to the transaction: the
// pool's prepared one when it keeps it, else prepared now. The caller
// closes it.
func (tx *Tx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	if tx.cache != nil {
		if parent := tx.cache.get(query); parent != nil {
			return tx.Tx.StmtContext(ctx, parent), nil
		}
		tx.missed = append(tx.missed, query)
	}
	return tx.Tx.PrepareContext(ctx, query)
}

// Exec runs a statement in the transaction with its context.
func (tx *Tx) Exec(query string, args ...any) (sql.Result, error) {
	return tx.ExecContext(tx.ctx, query, args...)
}

// Query runs a query in the transaction with its context.
func (tx *Tx) Query(query string, args ...any) (*sql.Rows, error) {
	return tx.Tx.QueryContext(tx.ctx, query, args...)
}

// QueryRow runs a single-row query in the transaction with its context.
func (tx *Tx) QueryRow(query string, args ...any) *sql.Row {
	return tx.QueryRowContext(tx.ctx, query, args...)
}

// Context returns the transaction's context.
func (tx *Tx) Context() context.Context { return tx.ctx }

// Write runs fn in an IMMEDIATE write transaction and commits it. If SQLite
// still reports the database busy after the busy timeout (possible under
// heavy multi-process contention), the whole transaction is retried with
// back-off, so fn must have no side effects outside the transaction.
func (db *DB) Write(ctx context.Context, fn func(tx *Tx) error) error {
	p := db.pools.Load()
	return db.writeCached(ctx, p.write, &p.writeStmts, fn)
}

// writeOn is Write on the write pool w, its statements prepared anew.
func (db *DB) writeOn(ctx context.Context, w *sql.DB, fn func(tx *Tx) error) error {
	return db.writeCached(ctx, w, nil, fn)
}

// writeCached is Write on the write pool w, whose prepared statements
// cache keeps (nil: none).
func (db *DB) writeCached(ctx context.Context, w *sql.DB, cache *stmtCache, fn func(tx *Tx) error) error {
	backoff := 20 * time.Millisecond
	for attempt := 0; ; attempt++ {
		err := db.writeOnce(ctx, w, cache, fn)
		if IsFull(err) {
			return noema.WrapError(err, noema.ENOSPACE, "no space left on the device for the index %s; the vault's files are the truth, and the next sync with room to spare brings it up to date", db.path)
		}
		if err == nil || !IsBusy(err) || attempt >= 8 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}

func (db *DB) writeOnce(ctx context.Context, w *sql.DB, cache *stmtCache, fn func(tx *Tx) error) error {
	stx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx := &Tx{Tx: stx, ctx: ctx, Now: db.Now(), cache: cache}
	err = db.runTx(tx, fn)
	// The connection is back in the pool: prepare what the cache now
	// takes of what ran unprepared.
	cache.offer(ctx, w, tx.missed)
	return err
}

// run runs tx's function in the begun transaction and commits it, or
// rolls it back when fn fails.
func (db *DB) run(ctx context.Context, stx *sql.Tx, fn func(tx *Tx) error) error {
	return db.runTx(&Tx{Tx: stx, ctx: ctx, Now: db.Now()}, fn)
}

// runTx runs fn in tx and commits it, or rolls it back when fn fails.
func (db *DB) runTx(tx *Tx, fn func(tx *Tx) error) error {
	stx := tx.Tx
	defer stx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if tx.textChanged {
		if _, err := tx.Exec(`UPDATE search_state SET text_version = text_version + 1 WHERE id = 1`); err != nil {
			return fmt.Errorf("move the text version: %w", err)
		}
	}
	if err := stx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Read returns the read pool for queries that need no transaction.
func (db *DB) Read() *sql.DB { return db.rd() }

// ReadTx runs fn in a read-only transaction, giving it one consistent
// snapshot of the index.
func (db *DB) ReadTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.rd().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// IsBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED (in
// any extended form). It uses the driver's typed error code, never text.
func IsBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// IsFull reports whether err is SQLite's SQLITE_FULL (the disk is full, or
// the database reached its max_page_count: see LimitGrowth) or
// SQLITE_IOERR_SHMSIZE (the WAL index could not grow: what opening a
// database on a full disk fails with).
func IsFull(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.Code()&0xff == sqlite3.SQLITE_FULL || se.Code() == sqlite3.SQLITE_IOERR_SHMSIZE
}

// LimitGrowth lets the database grow by at most pages more pages (SQLite's
// max_page_count on the write connection): a write beyond fails as on a
// full disk, with noema.ENOSPACE. Tests use it to fill the index without
// filling a disk; a negative pages lifts the limit.
func (db *DB) LimitGrowth(ctx context.Context, pages int64) error {
	var n int64
	if err := db.wr().QueryRowContext(ctx, "PRAGMA page_count").Scan(&n); err != nil {
		return fmt.Errorf("read page count: %w", err)
	}
	limit := n + pages
	if pages < 0 {
		limit = 0xfffffffe // SQLite's largest
	}
	if _, err := db.wr().ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", limit)); err != nil {
		return fmt.Errorf("limit growth: %w", err)
	}
	return nil
}

// Page cache and checkpoint interval of the write connection: the defaults
// (set in the DSN, see open), and what BulkLoad raises them to.
const (
	defaultCacheKB        = 32000
	defaultAutocheckpoint = 1000
	bulkCacheKB           = 131072
	bulkAutocheckpoint    = 16384
)

// BulkLoad readies the write connection for a sync that writes many notes
// (the first sync of a vault, a reindex): a page cache of 128 MB instead
// of 32, which holds the randomly-keyed indexes (links by key, names,
// paths, hashes: ≈ 60 MB at 100,000 notes) so that inserting into them
// stops reading their pages back from the file, and a checkpoint every
// 64 MB of WAL instead of every 4 MB, so that a page written by several
// batches reaches the database file once per checkpoint rather than once
// per batch. Neither changes what is written nor its durability (WAL
// commits are atomic; a checkpoint only copies committed pages). done
// restores the defaults and frees the cached pages; the caller must call
// it.
func (db *DB) BulkLoad(ctx context.Context) (done func(), err error) {
	w := db.wr()
	set := func(ctx context.Context, cacheKB, pages int) error {
		if _, err := w.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = -%d", cacheKB)); err != nil {
			return fmt.Errorf("set the page cache: %w", err)
		}
		if _, err := w.ExecContext(ctx, fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", pages)); err != nil {
			return fmt.Errorf("set the checkpoint interval: %w", err)
		}
		return nil
	}
	restore := func() {
		// Restored even when ctx is done: the connection outlives the sync.
		ctx := context.WithoutCancel(ctx)
		_ = set(ctx, defaultCacheKB, defaultAutocheckpoint)
		// A smaller cache_size keeps the pages already cached: a server
		// kept 110 MB more after a first sync of 30,000 notes (202 MB
		// instead of 92 once the Go heap was returned). shrink_memory
		// frees the connection's cached pages (47 MB).
		_, _ = w.ExecContext(ctx, "PRAGMA shrink_memory")
	}
	if err := set(ctx, bulkCacheKB, bulkAutocheckpoint); err != nil {
		restore()
		return nil, err
	}
	return restore, nil
}

// GetMeta reads a value from the meta table ("" when absent).
func (db *DB) GetMeta(ctx context.Context, key string) (string, error) {
	var v string
	err := eachRow(ctx, db.rdKept(), `SELECT value FROM meta WHERE key = ?`, []any{key}, func(r *sql.Rows) error { return r.Scan(&v) })
	if err != nil {
		return "", fmt.Errorf("read meta %s: %w", key, err)
	}
	return v, nil
}

// SetMeta writes a meta value inside tx.
func SetMeta(tx *Tx, key, value string) error {
	_, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("write meta %s: %w", key, err)
	}
	return nil
}

// MetaIn reads a meta value inside tx ("" when absent).
func MetaIn(tx *Tx, key string) (string, error) {
	var v string
	err := tx.QueryRow(`SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read meta %s: %w", key, err)
	}
	return v, nil
}

// GraphLogPosition returns the newest position of the change log
// (migration 0016_graph_log.sql) inside tx, 0 when it is empty. Every
// change to a note row (and so to its names, links and relations, which
// change only with it), a concept or a concept key moves it.
func GraphLogPosition(tx *Tx) (int64, error) {
	var seq int64
	if err := tx.QueryRow(`SELECT COALESCE(MAX(seq), 0) FROM graph_log`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read the change log position: %w", err)
	}
	return seq, nil
}

// HasMeta reports whether key is in the meta table, inside a read
// transaction.
func HasMeta(tx *sql.Tx, key string) (bool, error) {
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM meta WHERE key = ?`, key).Scan(&n); err != nil {
		return false, fmt.Errorf("read meta %s: %w", key, err)
	}
	return n > 0, nil
}

// DeleteMeta removes a meta value inside tx.
func DeleteMeta(tx *Tx, key string) error {
	if _, err := tx.Exec(`DELETE FROM meta WHERE key = ?`, key); err != nil {
		return fmt.Errorf("delete meta %s: %w", key, err)
	}
	return nil
}

// placeholders returns "?, ?, …" with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

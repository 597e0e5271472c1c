package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
)

// stmtCache keeps a write pool's statements prepared, by SQL. Parsing and
// planning a statement cost as much as running it for most of what a
// write does (a note's rows, its links, the registry's aggregates): a
// write_note at 100,000 notes spent a fifth of its CPU in SQLite's parser.
// The write pool has one connection, which a transaction holds, so a
// statement cannot be prepared on the pool while it runs: a statement run
// unprepared is offered once the transaction has ended ([stmtCache.offer])
// and prepared the second time it is seen, so that SQL built per call (a
// list of placeholders of each length) does not fill the cache; the cache
// keeps at most stmtCacheMax statements. database/sql prepares a kept
// statement again on a new connection, and SQLite again after a schema
// change, by itself. Only data statements are kept (cacheable): a PRAGMA
// may take effect when it is prepared rather than when it runs.
type stmtCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
	seen  map[string]bool
}

const (
	// stmtCacheMax is the most statements a cache keeps.
	stmtCacheMax = 512
	// stmtSeenMax is the most statements seen once a cache remembers; it
	// forgets them all past it.
	stmtSeenMax = 4096
)

// get returns query's kept statement, or nil. A nil cache keeps none.
func (c *stmtCache) get(query string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stmts[query]
}

// offer prepares on pool each of queries seen before and not yet kept,
// while the cache has room. pool's connection must be free (no
// transaction of the caller open). A statement that fails to prepare is
// left unprepared: running it reports the error.
func (c *stmtCache) offer(ctx context.Context, pool *sql.DB, queries []string) {
	if c == nil || len(queries) == 0 {
		return
	}
	var due []string
	c.mu.Lock()
	for _, q := range queries {
		if _, kept := c.stmts[q]; kept || len(c.stmts)+len(due) >= stmtCacheMax || !cacheable(q) {
			continue
		}
		if !c.seen[q] {
			if c.seen == nil || len(c.seen) >= stmtSeenMax {
				c.seen = map[string]bool{}
			}
			c.seen[q] = true
			continue
		}
		delete(c.seen, q)
		due = append(due, q)
	}
	c.mu.Unlock()
	for _, q := range due {
		st, err := pool.PrepareContext(ctx, q)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if _, kept := c.stmts[q]; kept {
			st.Close()
		} else {
			if c.stmts == nil {
				c.stmts = map[string]*sql.Stmt{}
			}
			c.stmts[q] = st
		}
		c.mu.Unlock()
	}
}

// cacheable reports whether query is a data statement (SELECT, INSERT,
// UPDATE, DELETE, REPLACE or WITH first), which a cache may keep.
func cacheable(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n")
	for _, kw := range []string{"SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "WITH"} {
		if len(q) > len(kw) && strings.EqualFold(q[:len(kw)], kw) {
			switch q[len(kw)] {
			case ' ', '\t', '\r', '\n', '(':
				return true
			}
		}
	}
	return false
}

// close closes every kept statement.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	c.stmts = nil
	return errors.Join(errs...)
}

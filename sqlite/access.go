package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/noema-mem/noema"
)

// Recording an explicit read of a note (which refreshes its decay) is a
// write, and a write waits for the database's single writer — another
// process indexing a large note can hold it for seconds. A read must not
// wait for that, so [NoteIndex.LogAccess] records the access at once when the
// write lock is free within AccessWait, and otherwise queues it: a
// background flusher writes queued accesses in short transactions of their
// own as soon as the lock is free, and [DB.Close] waits up to
// AccessCloseWait for them, so that a command that reads one note and exits
// still records its read.
const (
	// AccessWait is how long a read waits for the write lock before it
	// queues its access instead.
	AccessWait = 50 * time.Millisecond
	// AccessCloseWait bounds how long Close waits for queued accesses.
	AccessCloseWait = 2 * time.Second
	// accessFlushWait is how long one background attempt waits for the lock.
	accessFlushWait = time.Second
)

// pendingAccess is the queued reads of one note.
type pendingAccess struct {
	at    int64 // latest read, Unix nanoseconds
	count int64
}

// accessLog is the queue of accesses not yet written, part of a DB.
type accessLog struct {
	mu       sync.Mutex
	pending  map[string]pendingAccess
	flushing chan struct{} // non-nil while a flusher runs; closed when it stops
	closed   bool
	deadline time.Time // set by Close: the flusher gives up after it
	lastErr  error
}

// LogAccess records an explicit read of the note at path, at DB.Now. It
// never waits more than about AccessWait: when the write lock is busy (or
// accesses are already queued), the access is queued and written in the
// background. Errors are not the reader's concern: a failed write is
// retried until Close.
func (ni *NoteIndex) LogAccess(ctx context.Context, path string) {
	at := ni.db.Now().UnixNano()
	a := &ni.db.access
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	queued := a.flushing != nil
	a.mu.Unlock()
	if !queued {
		err := ni.db.writeWithin(ctx, AccessWait, func(tx *Tx) error { return putAccess(tx, path, at, 1) })
		if err == nil {
			return
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	if a.pending == nil {
		a.pending = make(map[string]pendingAccess)
	}
	p := a.pending[path]
	a.pending[path] = pendingAccess{at: max(p.at, at), count: p.count + 1}
	if a.flushing == nil {
		a.flushing = make(chan struct{})
		go ni.db.flushAccesses(a.flushing)
	}
}

// FlushAccesses waits until every access queued so far is written, or ctx
// ends.
func (db *DB) FlushAccesses(ctx context.Context) error {
	a := &db.access
	a.mu.Lock()
	done := a.flushing
	a.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := len(a.pending); n > 0 {
		return fmt.Errorf("%d note accesses not recorded: %w", n, a.lastErr)
	}
	return nil
}

// flushAccesses writes queued accesses until none are left, retrying with
// back-off while the database is busy. It stops, dropping what is left,
// when a write fails after Close's deadline.
func (db *DB) flushAccesses(done chan struct{}) {
	a := &db.access
	backoff := 10 * time.Millisecond
	for {
		a.mu.Lock()
		batch := a.pending
		a.pending = nil
		if len(batch) == 0 {
			a.flushing = nil
			a.lastErr = nil
			a.mu.Unlock()
			close(done)
			return
		}
		a.mu.Unlock()
		err := db.writeWithin(context.Background(), accessFlushWait, func(tx *Tx) error {
			for path, p := range batch {
				if err := putAccess(tx, path, p.at, p.count); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			backoff = 10 * time.Millisecond
			continue
		}
		a.mu.Lock()
		a.lastErr = err
		if a.pending == nil {
			a.pending = make(map[string]pendingAccess, len(batch))
		}
		for path, p := range batch {
			q := a.pending[path]
			a.pending[path] = pendingAccess{at: max(p.at, q.at), count: p.count + q.count}
		}
		if a.closed && time.Now().After(a.deadline) {
			a.flushing = nil
			a.mu.Unlock()
			close(done)
			return
		}
		a.mu.Unlock()
		time.Sleep(backoff)
		backoff = min(2*backoff, time.Second)
	}
}

// closeAccessLog stops queueing and waits up to AccessCloseWait for queued
// accesses to be written. It reports those it had to drop.
func (db *DB) closeAccessLog() error {
	a := &db.access
	a.mu.Lock()
	a.closed = true
	a.deadline = time.Now().Add(AccessCloseWait)
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), AccessCloseWait+accessFlushWait)
	defer cancel()
	return db.FlushAccesses(ctx)
}

// writeWithin runs fn in an IMMEDIATE write transaction like Write, but
// waits at most wait for this process's write connection and for SQLite's
// write lock, and does not retry: a busy database is an error.
func (db *DB) writeWithin(ctx context.Context, wait time.Duration, fn func(tx *Tx) error) (err error) {
	connCtx, cancel := context.WithTimeout(ctx, wait)
	conn, err := db.wr().Conn(connCtx)
	cancel()
	if err != nil {
		return fmt.Errorf("write connection: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", max(1, wait.Milliseconds()))); err != nil {
		return fmt.Errorf("set busy timeout: %w", err)
	}
	defer func() {
		_, rerr := conn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA busy_timeout = %d", BusyTimeout.Milliseconds()))
		if rerr != nil {
			err = errors.Join(err, fmt.Errorf("restore busy timeout: %w", rerr))
		}
	}()
	stx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	return db.run(ctx, stx, fn)
}

// putAccess adds count reads of the note at path, the latest at at.
func putAccess(tx *Tx, path string, at, count int64) error {
	_, err := tx.Exec(`INSERT INTO access (path, accessed_ns, count) VALUES (?, ?, ?)
		ON CONFLICT(path) DO UPDATE SET accessed_ns = MAX(accessed_ns, excluded.accessed_ns), count = count + excluded.count`,
		path, at, count)
	if err != nil {
		return fmt.Errorf("record access of %s: %w", path, err)
	}
	return nil
}

// PutAccesses records reads that other servers of a team vault shared
// (noema.AccessLog), in one transaction: each refreshes its note's decay as
// a read here would.
func (ni *NoteIndex) PutAccesses(ctx context.Context, accesses []noema.Access) error {
	if len(accesses) == 0 {
		return nil
	}
	return ni.db.Write(ctx, func(tx *Tx) error {
		for _, a := range accesses {
			if err := putAccess(tx, a.Path, a.At.UnixNano(), 1); err != nil {
				return err
			}
		}
		return nil
	})
}

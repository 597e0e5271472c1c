package postgres

import (
	"context"
	"sync"
	"time"
)

// PollInterval is how often [Store.Wait] reads the vault's sequence number
// when no notification arrives: the fallback for a listening connection
// that was lost and is being re-established.
const PollInterval = 500 * time.Millisecond

// listener holds one connection LISTENing on NotifyChannel for the whole
// pool and wakes every waiter when any vault changes.
type listener struct {
	mu      sync.Mutex
	started bool
	wake    chan struct{} // closed and replaced on every notification
	running sync.WaitGroup
}

// signal returns the channel closed on the next notification, starting the
// listening goroutine on first use; it runs until ctx (the DB's) ends.
func (l *listener) signal(ctx context.Context, db *DB) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wake == nil {
		l.wake = make(chan struct{})
	}
	if !l.started {
		l.started = true
		l.running.Add(1)
		go func() {
			defer l.running.Done()
			l.run(ctx, db)
		}()
	}
	return l.wake
}

func (l *listener) broadcast() {
	l.mu.Lock()
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
}

// run listens until ctx ends, reconnecting after a lost connection with a
// growing pause (up to 5 s); waiters poll meanwhile.
func (l *listener) run(ctx context.Context, db *DB) {
	pause := 100 * time.Millisecond
	for ctx.Err() == nil {
		if err := l.listen(ctx, db); err != nil && ctx.Err() == nil {
			db.logger.Warn("listening for changes failed; polling meanwhile", "err", err, "retry_in", pause)
		}
		l.broadcast() // a waiter may have missed a notification while the connection was down
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

func (l *listener) listen(ctx context.Context, db *DB) error {
	pooled, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// The connection ends in LISTEN state or broken: it never goes back to the pool.
	conn := pooled.Hijack()
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return err
	}
	l.broadcast() // changes committed before LISTEN took effect
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		l.broadcast()
	}
}

// Wait implements [noema.ChangeFeed]: it blocks until the vault's sequence
// number exceeds after, and returns it, or ctx's error. Another server's
// commit wakes it through NOTIFY within milliseconds; while the listening
// connection is down it still notices within [PollInterval].
func (s *Store) Wait(ctx context.Context, after int64) (int64, error) {
	for {
		wake := s.db.listen.signal(s.db.life, s.db)
		seq, err := s.Head(ctx)
		if err != nil {
			return 0, err
		}
		if seq > after {
			return seq, nil
		}
		select {
		case <-ctx.Done():
			return 0, context.Cause(ctx)
		case <-wake:
		case <-time.After(PollInterval):
		}
	}
}

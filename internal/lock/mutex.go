package lock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Mutex is a lock file that serializes short critical sections — the
// read-compare-write of a note — among processes. Unlike [Lock] it is taken
// many times over, so taking it costs only a few system calls: an open, a
// non-blocking lock attempt, a close. It is the operating system's lock (see
// the package doc): a killed writer never leaves it held.
//
// A Mutex does not exclude goroutines of one process from each other on
// every system (flock and LockFileEx do, the fcntl locks of AIX and Solaris
// would not): pair it with an in-process mutex, as package vault does.
type Mutex struct {
	path string
}

// NewMutex returns the Mutex of the lock file at path. The file and its
// folder are created on first use and never removed.
func NewMutex(path string) *Mutex { return &Mutex{path: path} }

// Path returns the lock file's path.
func (m *Mutex) Path() string { return m.path }

// Lock waits until it holds the lock or ctx is done (then it returns ctx's
// cause). It retries every millisecond at first, backing off to 20 ms, so a
// waiter takes the lock within a few milliseconds of its release. The
// returned function releases the lock; call it exactly once.
func (m *Mutex) Lock(ctx context.Context) (unlock func() error, err error) {
	if err := os.MkdirAll(filepath.Dir(m.path), 0o755); err != nil {
		return nil, fmt.Errorf("create lock folder: %w", err)
	}
	wait := time.Millisecond
	var t *time.Timer
	for {
		unlock, err := tryLockFile(m.path)
		if err == nil {
			return unlock, nil
		}
		if err != ErrHeld {
			return nil, fmt.Errorf("lock %s: %w", m.path, err)
		}
		if t == nil {
			t = time.NewTimer(wait)
			defer t.Stop()
		} else {
			t.Reset(wait)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for lock %s: %w", m.path, context.Cause(ctx))
		case <-t.C:
		}
		wait = min(wait*2, 20*time.Millisecond)
	}
}

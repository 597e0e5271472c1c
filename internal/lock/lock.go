// Package lock makes sure that only one process at a time runs the watcher
// and indexer of a vault ([Lock]), and serializes the short read-modify-write
// sections of writers among processes ([Mutex]).
//
// Several `noema mcp` processes may serve one vault (each MCP client starts
// its own); the first to [TryAcquire] `<vault>/.noema/indexer.lock` indexes,
// the others answer from the shared index and may [Acquire] the lock to take
// over when the indexer goes away.
//
// Both locks are the operating system's, through github.com/gofrs/flock:
// flock(2) on Linux, macOS and the BSDs, LockFileEx on Windows (fcntl on AIX
// and Solaris). The kernel releases a lock when its holder exits or dies, so
// a stale lock can never block anyone and there is no lock-file protocol to
// get wrong. A lock file is never removed (removing a locked file lets two
// processes lock two different inodes). Every acquisition opens the file
// anew, and both kinds of lock belong to that open file, so two acquisitions
// in one process conflict too. Over NFS flock may be emulated or local-only:
// keep vaults shared by several machines on a local disk of one of them.
// Systems with neither flock nor LockFileEx (Plan 9, js, wasip1) cannot
// lock: acquiring fails with an error wrapping errors.ErrUnsupported.
package lock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// FileName is the lock's file name inside a vault's .noema folder.
const FileName = "indexer.lock"

// DefaultPoll is the interval [Acquire] uses when given a non-positive one.
const DefaultPoll = 500 * time.Millisecond

// ErrHeld is returned by TryAcquire when another holder has the lock.
var ErrHeld = errors.New("lock is held by another process")

// Path returns the lock path of the vault rooted at vault.
func Path(vault string) string { return filepath.Join(vault, ".noema", FileName) }

// Lock is a held lock. Release it when done; the operating system releases
// it if the process dies first.
type Lock struct {
	path    string
	release func() error
	once    sync.Once
	err     error
}

// Path returns the lock file's path.
func (l *Lock) Path() string { return l.path }

// Release gives the lock up. It is safe to call more than once; later calls
// return the first call's result.
func (l *Lock) Release() error {
	l.once.Do(func() {
		if err := l.release(); err != nil {
			l.err = fmt.Errorf("release lock: %w", err)
		}
	})
	return l.err
}

// TryAcquire takes the lock at path without waiting, creating the file and
// its folder if needed. It returns ErrHeld when another holder has it.
func TryAcquire(path string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create lock folder: %w", err)
	}
	unlock, err := tryLockFile(path)
	if err != nil {
		if !errors.Is(err, ErrHeld) {
			err = fmt.Errorf("lock: %w", err)
		}
		return nil, err
	}
	return &Lock{path: path, release: unlock}, nil
}

// Acquire waits until it takes the lock at path, trying every poll, or until
// ctx is done (then it returns ctx's error). Errors other than ErrHeld end
// the wait at once.
func Acquire(ctx context.Context, path string, poll time.Duration) (*Lock, error) {
	if poll <= 0 {
		poll = DefaultPoll
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		l, err := TryAcquire(path)
		if !errors.Is(err, ErrHeld) {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for lock: %w", context.Cause(ctx))
		case <-t.C:
		}
	}
}

// tryLockFile takes an exclusive lock on path (created if missing) without
// waiting: ErrHeld if another open file holds it. The returned function
// releases the lock and closes the file.
func tryLockFile(path string) (unlock func() error, err error) {
	f := flock.New(path, flock.SetPermissions(0o644))
	ok, err := f.TryLock()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrHeld
	}
	return f.Unlock, nil
}

// ProcessAlive reports whether a process with this PID is running on this
// host. known is false on systems where that cannot be asked (then alive
// is true: callers should not treat the process as gone).
func ProcessAlive(pid int) (alive, known bool) {
	if pid <= 0 {
		return false, true
	}
	return processAlive(pid), canTellAlive
}

// Package lock makes sure that only one process at a time runs the watcher
// and indexer of a vault.
//
// Several `noema mcp` processes may serve one vault (each MCP client starts
// its own); the first to [TryAcquire] `<vault>/.noema/indexer.lock` indexes,
// the others answer from the shared index and may [Acquire] the lock to take
// over when the indexer goes away.
//
// On Linux, macOS and the BSDs the lock is flock(2) LOCK_EX|LOCK_NB on the
// file: the kernel releases it when the holder exits or dies, so a stale lock
// can never block anyone. The file is never removed (removing a flocked file
// lets two processes lock two different inodes); it carries the holder's PID,
// host name and start time as JSON, for `noema status` through [Holder].
// flock is per open file description, so two TryAcquire calls in the same
// process conflict too. Over NFS flock may be emulated or local-only: keep
// vaults shared by several machines on a local disk of one of them.
//
// On other systems (Windows, Solaris, Plan 9, …) the fallback is an
// exclusive-create lock file: the holder creates it with O_EXCL, writes the
// same JSON and touches it every [HeartbeatInterval]. A lock file is stale —
// and is taken over — when its holder is on this host and its PID is not
// running, or when its heartbeat is older than [StaleAfter] (a holder on
// another host, a reused PID, a hung process). Release removes the file.
package lock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// FileName is the lock's file name inside a vault's .noema folder.
const FileName = "indexer.lock"

// Timing of the fallback lock file (systems without flock).
const (
	HeartbeatInterval = 5 * time.Second
	StaleAfter        = 30 * time.Second
)

// DefaultPoll is the interval [Acquire] uses when given a non-positive one.
const DefaultPoll = 500 * time.Millisecond

var (
	// ErrHeld is returned by TryAcquire when another holder, live, has the lock.
	ErrHeld = errors.New("lock is held by another process")
	// ErrNotHeld is returned by Holder when nobody holds the lock.
	ErrNotHeld = errors.New("lock is not held")
)

// Path returns the lock path of the vault rooted at vault.
func Path(vault string) string { return filepath.Join(vault, ".noema", FileName) }

// Info identifies a lock holder.
type Info struct {
	PID      int    `json:"pid"`
	Hostname string `json:"hostname"`
	// Started is when the holder acquired the lock.
	Started time.Time `json:"started"`
}

// String returns "pid 123 on host since 2006-01-02T15:04:05Z".
func (i Info) String() string {
	return fmt.Sprintf("pid %d on %s since %s", i.PID, i.Hostname, i.Started.UTC().Format(time.RFC3339))
}

// currentInfo describes this process as a holder.
func currentInfo() Info {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	return Info{PID: os.Getpid(), Hostname: host, Started: time.Now().UTC().Truncate(time.Millisecond)}
}

// Lock is a held lock. Release it when done; the operating system releases
// it if the process dies first (flock), or other processes take it over once
// it is stale (fallback).
type Lock struct {
	path    string
	info    Info
	release func() error
	once    sync.Once
	err     error
}

// Path returns the lock file's path.
func (l *Lock) Path() string { return l.path }

// Info returns what the lock file says about this holder.
func (l *Lock) Info() Info { return l.info }

// Release gives the lock up. It is safe to call more than once; later calls
// return the first call's result.
func (l *Lock) Release() error {
	l.once.Do(func() { l.err = l.release() })
	return l.err
}

// TryAcquire takes the lock at path without waiting, creating the parent
// folder if needed. It returns ErrHeld when another live holder has it.
func TryAcquire(path string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create lock folder: %w", err)
	}
	return tryAcquire(path)
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

// Holder returns who holds the lock at path, ErrNotHeld when nobody does
// (even if a dead holder's information is still in the file). With flock it
// probes the lock with a shared lock for an instant; a TryAcquire racing with
// that probe may see ErrHeld ([Acquire] simply tries again).
func Holder(path string) (Info, error) { return holder(path) }

// ProcessAlive reports whether a process with this PID is running on this
// host. known is false on systems where that cannot be asked (then alive
// is true: callers should not treat the process as gone).
func ProcessAlive(pid int) (alive, known bool) {
	if pid <= 0 {
		return false, true
	}
	return processAlive(pid), canTellAlive
}

// decodeInfo parses a lock file's content.
func decodeInfo(b []byte) (Info, error) {
	var i Info
	if err := json.Unmarshal(b, &i); err != nil {
		return Info{}, fmt.Errorf("read lock holder: %w", err)
	}
	return i, nil
}

// encodeInfo returns a lock file's content.
func encodeInfo(i Info) []byte {
	b, _ := json.Marshal(i) // Info always encodes.
	return append(b, '\n')
}

package vault

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"

	"github.com/noema-mem/noema/internal/lock"
)

// LockFile is the name of the vault's write lock, inside .noema/.
const LockFile = "write.lock"

// Writer is the vault's write lock, held: the handle [Vault.Locked] gives
// its function, and the only way to change the vault's files. Every
// mutating file operation — [Writer.Apply], [Writer.ReplaceFile],
// [Writer.WriteFile], [Writer.Remove], [Writer.RemoveIfUnchanged],
// [Writer.Rename], [Writer.RemoveEmptyDirs] — is a method of it, so that
// code which has not taken the lock does not compile rather than fail when
// it runs. Operations that hold the lock and call each other pass the
// Writer along.
//
// A Writer is valid only until the function it was given to returns; a
// method called after that does nothing and returns an error. It may be
// used by several goroutines that fn waits for.
type Writer struct {
	v        *Vault
	released atomic.Bool
	// ctx is Locked's: the upstream's calls run under it.
	ctx context.Context
	// local: the Writer of LockedLocal, which never writes upstream.
	local bool
	// changed: the upstream took a change of this Writer (see locked).
	changed atomic.Bool
}

// held returns nil while w's lock is held, and an error once its function
// has returned.
func (w *Writer) held() error {
	if w.released.Load() {
		return fmt.Errorf("vault: write to %s after its write lock was released (a Writer outlived its Locked function)", w.v.Root)
	}
	return nil
}

// Locked runs fn holding the vault's write lock, which every
// read-modify-write of a file in noema takes: note edits, relation and
// concept page changes, note creation, moves and deletions. Between two
// noema writers — goroutines of one server, two servers, a server and a CLI
// command — this makes compare-and-swap exact: a writer that read a file
// under the lock writes it before any other writer reads it, so of two edits
// that expect the same checksum exactly one succeeds and the other sees the
// new checksum.
//
// The lock is one per vault, not one per note: an operation that rewrites
// several files (deleting a concept unlinks it everywhere; merging concepts
// rewrites every note that links them) takes one lock and cannot deadlock
// against another, and noema's writes hold it for milliseconds (a write
// that rebuilds the whole concept registry, ~100 ms at 10,000 notes). It is two
// locks in one: a channel excludes goroutines of this process, then an
// operating-system lock on .noema/write.lock (flock, LockFileEx) excludes
// other processes and is dropped by the kernel if its holder dies.
//
// Locked refuses to run fn, with noema.EUNAVAILABLE, when the vault's
// folder was moved or deleted (see Vault.Check). It gives up with ctx's
// error when ctx is done while waiting. fn gets the held lock as a
// [Writer]. The lock is not reentrant: code that holds it calls the
// Writer's methods, and never Locked again (that would wait for itself).
func (v *Vault) Locked(ctx context.Context, fn func(w *Writer) error) error {
	return v.locked(ctx, false, fn)
}

// locked is Locked; local makes a Writer that never writes upstream.
func (v *Vault) locked(ctx context.Context, local bool, fn func(w *Writer) error) error {
	// The lock file lives in the vault: taking it in a vault that was
	// moved away would create an empty vault at the old path.
	if err := v.Check(); err != nil {
		return err
	}
	v.lockOnce.Do(func() {
		v.sem = make(chan struct{}, 1)
		v.fileLock = lock.NewMutex(filepath.Join(v.Root, ".noema", LockFile))
	})
	select {
	case v.sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("wait for the vault's write lock: %w", context.Cause(ctx))
	}
	defer func() { <-v.sem }()
	unlock, err := v.fileLock.Lock(ctx)
	if err != nil {
		return err
	}
	var ferr error
	for attempt := 0; ; attempt++ {
		w := &Writer{v: v, ctx: ctx, local: local}
		ferr = fn(w)
		w.released.Store(true)
		// A working copy behind its upstream: fn planned from a version
		// of a file another server has replaced. When fn changed nothing
		// yet, bring that file up to date and run fn again, on the
		// version it would have read had the folder followed in time
		// (see the section on working copies).
		var stale *staleCopy
		if attempt == staleRetries || w.changed.Load() || !errors.As(ferr, &stale) {
			break
		}
		if v.refresh(ctx, stale.path) != nil {
			break // fn's refusal stands; the follower brings the file
		}
	}
	if uerr := unlock(); uerr != nil && ferr == nil {
		return fmt.Errorf("release the vault's write lock: %w", uerr)
	}
	return ferr
}

// LockedValue runs fn with v's write lock held, as [Vault.Locked] does,
// and returns what fn returned.
func LockedValue[T any](ctx context.Context, v *Vault, fn func(w *Writer) (T, error)) (T, error) {
	var out T
	err := v.Locked(ctx, func(w *Writer) error {
		var err error
		out, err = fn(w)
		return err
	})
	return out, err
}

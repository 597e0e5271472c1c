package vault

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/noema-mem/noema/internal/lock"
)

// LockFile is the name of the vault's write lock, inside .noema/.
const LockFile = "write.lock"

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
// error when ctx is done while waiting. fn gets
// a context that carries the held lock: a Locked call on the same vault
// (any Vault of the same root)
// with that context (or one derived from it) runs its function at once, so
// operations that hold the lock can call each other.
func (v *Vault) Locked(ctx context.Context, fn func(ctx context.Context) error) error {
	if held, _ := ctx.Value(heldKey{}).(string); held == v.Root {
		return fn(ctx)
	}
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
	ferr := fn(context.WithValue(ctx, heldKey{}, v.Root))
	if uerr := unlock(); uerr != nil && ferr == nil {
		return fmt.Errorf("release the vault's write lock: %w", uerr)
	}
	return ferr
}

// LockedValue runs fn with v's write lock held, as [Vault.Locked] does,
// and returns what fn returned.
func LockedValue[T any](ctx context.Context, v *Vault, fn func(ctx context.Context) (T, error)) (T, error) {
	var out T
	err := v.Locked(ctx, func(ctx context.Context) error {
		var err error
		out, err = fn(ctx)
		return err
	})
	return out, err
}

// heldKey is the context key under which Locked records the root of the
// vault whose lock the context's holder has.
type heldKey struct{}

package vault

import (
	"context"
	"errors"

	"github.com/noema-mem/noema"
)

// Working copies. A vault folder can be the working copy of another store
// of record — a team's database ([Vault.SetUpstream]). Every change a
// [Writer] makes then goes to that store first, as one call that compares
// on the checksum the folder holds, and only then to the folder: the
// compare-and-swap happens where every server meets, and the writing
// server reads its own write at once. A change the upstream refuses
// (checksum_mismatch when another server changed the file first; conflict;
// unavailable when it cannot be reached) leaves the folder alone and is
// returned. A change the upstream made is a change made: if the folder then
// fails to take it (a full disk), the error goes to the vault's Behind
// callback, not to the caller, and whatever follows the upstream's change
// feed (package indexer's Follow) brings the folder up to date. Changes
// arriving from the upstream are written with [Vault.LockedLocal], whose
// Writer changes the folder only.

//
// A refusal with checksum_mismatch may only mean that the folder has not
// followed yet: another server changed the file a moment ago, and the
// change is on its way through the feed. [Vault.Locked] then brings that
// file into the folder at once and runs its function again — up to
// staleRetries times, and only while the function has changed nothing
// upstream — so that a read-modify-write without an expected checksum (an
// append, a relation) succeeds on the current version as it does in a
// folder of its own, while one that expected the version it read still
// fails its own check against the folder's new content.

// staleRetries bounds the runs of a Locked function again after the
// upstream refused a change planned from a folder that had not followed.
const staleRetries = 10

// staleCopy is the upstream's checksum_mismatch for a change planned from
// the folder's version of path: the upstream holds another version.
type staleCopy struct {
	err  error
	path string
}

func (e *staleCopy) Error() string { return e.err.Error() }
func (e *staleCopy) Unwrap() error { return e.err }

// fromUpstream marks the upstream's checksum_mismatch as a stale copy;
// other errors are returned as they are.
func fromUpstream(err error) error {
	var ne *noema.Error
	if errors.As(err, &ne) && ne.Code == noema.ECHECKSUM {
		if p, ok := ne.Details["path"].(string); ok && p != "" {
			return &staleCopy{err: err, path: p}
		}
	}
	return err
}

// refresh brings rel into the folder as the upstream holds it now, as one
// local change under the write lock the caller holds.
func (v *Vault) refresh(ctx context.Context, rel string) error {
	have, err := v.FileChecksum(rel)
	if err != nil {
		return err
	}
	c := noema.FileChange{Path: rel, Before: have}
	f, err := v.upstream.ReadFile(ctx, rel)
	switch {
	case noema.ErrorCode(err) == noema.ENOTFOUND:
		if have == noema.Absent {
			return nil
		}
		c.Delete = true
	case err != nil:
		return err
	case f.Checksum == have:
		return nil
	default:
		c.After = f.Data
	}
	w := &Writer{v: v, ctx: ctx, local: true}
	defer w.released.Store(true)
	return w.Apply(ctx, &noema.Changeset{Changes: []noema.FileChange{c}})
}

// SetUpstream makes v a working copy of up (see the section above); behind,
// when not nil, hears of changes the upstream made that the folder failed
// to take. Call it once, before the first write.
func (v *Vault) SetUpstream(up noema.Store, behind func(paths []string, err error)) {
	v.upstream, v.behind = up, behind
}

// Upstream returns the store v is a working copy of, nil for none.
func (v *Vault) Upstream() noema.Store { return v.upstream }

// LockedLocal is [Vault.Locked] for bringing a working copy up to date:
// its Writer changes the folder only, never the upstream.
func (v *Vault) LockedLocal(ctx context.Context, fn func(w *Writer) error) error {
	return v.locked(ctx, true, fn)
}

// up returns the store w's changes go to first: nil for a vault that is
// no working copy, or for a local Writer.
func (w *Writer) up() noema.Store {
	if w.local {
		return nil
	}
	return w.v.upstream
}

// lagged reports a change the upstream made and the folder failed to take.
func (v *Vault) lagged(err error, paths ...string) {
	if v.behind != nil {
		v.behind(paths, err)
	}
}

// pushWrite sends a write of rel to the upstream, expecting the checksum
// the folder holds (or create-only when overwrite is false), after the
// checks the folder itself would make; it returns rel's clean form.
func (w *Writer) pushWrite(up noema.Store, rel string, data []byte, overwrite bool) (string, error) {
	r, err := w.v.check(rel)
	if err != nil {
		return "", err
	}
	cur, _, err := w.v.current(r)
	if err != nil {
		return "", err
	}
	if cur != nil && !overwrite {
		return "", noema.Errorf(noema.ECONFLICT, "note %s already exists", r)
	}
	if cur == nil {
		if err := w.v.checkNewName(r); err != nil {
			return "", err
		}
	}
	if _, err := up.WriteFile(w.ctx, r, data, sumOf(cur)); err != nil {
		return "", fromUpstream(err)
	}
	w.changed.Store(true)
	return r, nil
}

// pushRemove sends the deletion of rel to the upstream, expecting the
// checksum the folder holds.
func (w *Writer) pushRemove(up noema.Store, rel string) (string, error) {
	r, err := w.v.check(rel)
	if err != nil {
		return "", err
	}
	cur, _, err := w.v.ReadFile(r)
	if err != nil {
		return "", err
	}
	if _, err := up.DeleteFile(w.ctx, r, noema.Checksum(cur)); err != nil {
		return "", fromUpstream(err)
	}
	w.changed.Store(true)
	return r, nil
}

// pushMove sends the move of from to to the upstream, expecting the
// checksum the folder holds for from.
func (w *Writer) pushMove(up noema.Store, from, to string) error {
	rf, err := w.v.check(from)
	if err != nil {
		return err
	}
	rt, err := w.v.check(to)
	if err != nil {
		return err
	}
	cur, _, err := w.v.ReadFile(rf)
	if err != nil {
		return err
	}
	if rf == rt {
		return nil
	}
	if err := w.v.checkNewName(rt); err != nil {
		return err
	}
	if _, err := up.MoveFile(w.ctx, rf, rt, noema.Checksum(cur)); err != nil {
		return fromUpstream(err)
	}
	w.changed.Store(true)
	return nil
}

// checkNewName checks the name of a file to create at r as a write would.
func (v *Vault) checkNewName(r string) error {
	root, err := v.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	return checkNew(root, r)
}

// pushChangeset sends a checked and staged changeset to the upstream, with
// its clean paths.
func (a *application) pushChangeset(ctx context.Context, w *Writer, up noema.Store) error {
	cs := &noema.Changeset{Changes: make([]noema.FileChange, len(a.cs.Changes))}
	if a.op != nil {
		cs.Operation, cs.OperationID = a.op.Tool, a.op.ID
	}
	for i, c := range a.cs.Changes {
		c.Path = a.j.Files[i].Path
		cs.Changes[i] = c
	}
	if _, err := up.ApplyChangeset(ctx, cs); err != nil {
		return fromUpstream(err)
	}
	w.changed.Store(true)
	return nil
}

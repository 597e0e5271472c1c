package vault

import (
	"context"
	"io/fs"
	"slices"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/notepath"
)

// Store is a vault as a [noema.Store]: the folder store of record. Each
// write takes the vault's write lock for its duration ([Vault.Locked]) and
// makes its compare on the checksum under it, so it excludes every other
// noema writer, in this process or another, exactly as a database's
// transaction would; what it cannot exclude — an editor that takes no lock —
// it narrows to a re-read and a rename (see [Writer.ReplaceFile]). A
// changeset is a [Writer.Apply], all or nothing across a crash. The change
// feed is the vault's change log (see feed.go's package section): every
// change made through noema, numbered from a base taken from the clock;
// changes by other programs are the indexer's walk's and watcher's to find.
//
// Note paths end in ".md" and pass [Vault.Rel] and [Vault.Abs]; others are
// noema.EINVALID.
type Store struct {
	v *Vault
}

var (
	_ noema.Store        = (*Store)(nil)
	_ noema.OperationLog = (*Store)(nil)
)

// Store returns v as a [noema.Store].
func (v *Vault) Store() *Store { return &Store{v: v} }

// notePath checks a note path of the store (notepath.Note, and no
// symbolic link out of the vault) and returns its clean form.
func (s *Store) notePath(p string) (string, error) {
	r, err := notepath.Note(p)
	if err != nil {
		return "", err
	}
	if _, err := s.v.Abs(r); err != nil {
		return "", err
	}
	return r, nil
}

// ReadFile implements [noema.FileReader].
func (s *Store) ReadFile(ctx context.Context, path string) (*noema.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := s.notePath(path)
	if err != nil {
		return nil, err
	}
	data, info, err := s.v.ReadFile(r)
	if err != nil {
		return nil, err
	}
	return &noema.File{FileInfo: noema.FileInfo{Path: r, Size: int64(len(data)), Modified: info.ModTime()},
		Data: data, Checksum: noema.Checksum(data)}, nil
}

// ListFiles implements [noema.FileLister] with [Vault.Walk], sorted by
// path.
func (s *Store) ListFiles(ctx context.Context, fn func(noema.FileInfo) error) error {
	var files []noema.FileInfo
	err := s.v.Walk(ctx, func(rel string, info fs.FileInfo) error {
		files = append(files, noema.FileInfo{Path: rel, Size: info.Size(), Modified: info.ModTime()})
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(files, func(a, b noema.FileInfo) int { return strings.Compare(a.Path, b.Path) })
	for _, f := range files {
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile implements [noema.FileWriter].
func (s *Store) WriteFile(ctx context.Context, path string, data []byte, expect string) (noema.Change, error) {
	r, err := s.notePath(path)
	if err != nil {
		return noema.Change{}, err
	}
	if err := noema.CheckExpect(expect); err != nil {
		return noema.Change{}, err
	}
	return write(ctx, s.v, func(w *Writer) (noema.Change, error) {
		if expect == noema.Absent {
			err = s.v.writeFile(r, data, false, nil)
		} else {
			same := func() error { return s.v.expect(r, expect) }
			if err = same(); err == nil {
				err = s.v.writeFile(r, data, true, same)
			}
		}
		if err != nil {
			return noema.Change{}, err
		}
		return s.v.record(writeChange(r, data))[0], nil
	})
}

// MoveFile implements [noema.FileWriter].
func (s *Store) MoveFile(ctx context.Context, from, to, expect string) ([]noema.Change, error) {
	rf, err := s.notePath(from)
	if err != nil {
		return nil, err
	}
	rt, err := s.notePath(to)
	if err != nil {
		return nil, err
	}
	if rf == rt {
		return nil, noema.Errorf(noema.EINVALID, "cannot move %s onto itself", noema.NoteURI(rf))
	}
	if err := noema.CheckExpectExisting(expect); err != nil {
		return nil, err
	}
	return write(ctx, s.v, func(w *Writer) ([]noema.Change, error) {
		if err := s.v.expect(rf, expect); err != nil {
			return nil, err
		}
		return w.move(rf, rt)
	})
}

// DeleteFile implements [noema.FileWriter].
func (s *Store) DeleteFile(ctx context.Context, path, expect string) (noema.Change, error) {
	r, err := s.notePath(path)
	if err != nil {
		return noema.Change{}, err
	}
	if err := noema.CheckExpectExisting(expect); err != nil {
		return noema.Change{}, err
	}
	return write(ctx, s.v, func(w *Writer) (noema.Change, error) {
		if err := s.v.expect(r, expect); err != nil {
			return noema.Change{}, err
		}
		if err := s.v.remove(r); err != nil {
			return noema.Change{}, err
		}
		return s.v.record(deleteChange(r))[0], nil
	})
}

// ApplyChangeset implements [noema.ChangesetApplier] with [Writer.Apply].
func (s *Store) ApplyChangeset(ctx context.Context, cs *noema.Changeset) ([]noema.Change, error) {
	if cs == nil || len(cs.Changes) == 0 {
		return nil, ctx.Err()
	}
	for _, c := range cs.Changes {
		if _, err := s.notePath(c.Path); err != nil {
			return nil, err
		}
		if err := noema.CheckExpect(c.Before); err != nil {
			return nil, err
		}
	}
	return write(ctx, s.v, func(w *Writer) ([]noema.Change, error) { return w.apply(ctx, cs) })
}

// Head implements [noema.ChangeFeed].
func (s *Store) Head(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	head, _, err := s.v.feed().headNow()
	return head, err
}

// ChangesSince implements [noema.ChangeFeed].
func (s *Store) ChangesSince(ctx context.Context, since int64, limit int) ([]noema.Change, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.v.feed().changesSince(since, limit)
}

// Wait implements [noema.ChangeFeed]: a change this process records wakes
// it at once, another process's within feedPollInterval.
func (s *Store) Wait(ctx context.Context, after int64) (int64, error) {
	return s.v.feed().wait(ctx, after)
}

// write is LockedValue for a write of the store, which checks ctx first:
// a done context writes nothing even when the lock is free.
func write[T any](ctx context.Context, v *Vault, fn func(w *Writer) (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	return LockedValue(ctx, v, fn)
}

// expect returns noema.ECHECKSUM unless rel's checksum is sum (Absent: rel
// does not exist).
func (v *Vault) expect(rel, sum string) error {
	got, err := v.FileChecksum(rel)
	if err != nil {
		return err
	}
	if got != sum {
		return changedError(rel, got)
	}
	return nil
}

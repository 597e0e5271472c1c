package vault

import (
	"bytes"

	"github.com/noema-mem/noema"
)

// ReplaceFile atomically replaces rel with data provided the file still
// holds old, the content the caller read: the compare-and-swap every
// read-modify-write of a note goes through. A file that changed meanwhile is
// noema.ECHECKSUM, with its current checksum in the error's details, and is
// left alone.
//
// Read old under the same lock (w's): then no other noema writer can
// change the file between the read and the rename. The comparison itself
// guards against writers that take no lock (an editor such as Obsidian, a sync client, a script): it runs after the
// new content is written and synced to its temporary file, immediately
// before the rename, so the window in which such a writer's change can
// still be overwritten is a re-read and a rename wide (microseconds), the
// least that a file system without compare-and-swap renames allows.
func (w *Writer) ReplaceFile(rel string, old, data []byte) error {
	if err := w.held(); err != nil {
		return err
	}
	v := w.v
	if err := v.unchanged(rel, old); err != nil {
		return err // fail early, before writing anything
	}
	if up := w.up(); up != nil {
		r, err := v.check(rel)
		if err != nil {
			return err
		}
		if _, err := up.WriteFile(w.ctx, r, data, noema.Checksum(old)); err != nil {
			return fromUpstream(err)
		}
		w.changed.Store(true)
		if err := v.writeFile(r, data, true, nil); err != nil {
			v.lagged(err, r)
			return nil
		}
		v.record(writeChange(r, data))
		return nil
	}
	if err := v.writeFile(rel, data, true, func() error { return v.unchanged(rel, old) }); err != nil {
		return err
	}
	v.record(writeChange(rel, data))
	return nil
}

// RemoveIfUnchanged deletes rel provided it still holds old (see
// ReplaceFile).
func (w *Writer) RemoveIfUnchanged(rel string, old []byte) error {
	if err := w.held(); err != nil {
		return err
	}
	if err := w.v.unchanged(rel, old); err != nil {
		return err
	}
	return w.Remove(rel)
}

func (v *Vault) unchanged(rel string, old []byte) error {
	cur, _, err := v.ReadFile(rel)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return &noema.Error{Code: noema.ECHECKSUM,
			Message: noema.NoteURI(rel) + " changed since it was read; read it again and retry",
			Details: map[string]any{"checksum": noema.Checksum(cur)}}
	}
	return nil
}

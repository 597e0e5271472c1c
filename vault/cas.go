package vault

import (
	"bytes"

	"github.com/noema-mem/noema"
)

// ReplaceFile atomically replaces rel with data provided the file still
// holds old, the content the caller read: the compare-and-swap every
// read-modify-write of a note goes through, checked as late as possible.
// A file that changed meanwhile is noema.ECHECKSUM, with its current
// checksum in the error's details, and is left alone.
func (v *Vault) ReplaceFile(rel string, old, data []byte) error {
	if err := v.unchanged(rel, old); err != nil {
		return err
	}
	return v.WriteFile(rel, data, true)
}

// RemoveIfUnchanged deletes rel provided it still holds old (see
// ReplaceFile).
func (v *Vault) RemoveIfUnchanged(rel string, old []byte) error {
	if err := v.unchanged(rel, old); err != nil {
		return err
	}
	return v.Remove(rel)
}

func (v *Vault) unchanged(rel string, old []byte) error {
	cur, _, err := v.ReadFile(rel)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return &noema.Error{Code: noema.ECHECKSUM,
			Message: PathToURI(rel) + " changed since it was read; read it again and retry",
			Details: map[string]any{"checksum": Checksum(cur)}}
	}
	return nil
}

package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
)

// SetAfterFile installs, for the vault at root, a hook that Apply calls
// each time i files of a changeset are in place (i = 0 right after the
// journal is durable, up to len(changes) before the journal is removed);
// an error from it simulates a crash there. The returned function removes
// the hook.
func SetAfterFile(root string, fn func(i int) error) (remove func()) {
	afterFile.Store(root, fn)
	return func() { afterFile.Delete(root) }
}

// ResealJournal replaces a journal's checksum line with one that matches
// its (edited) body.
func ResealJournal(data []byte) string {
	_, body, _ := bytes.Cut(data, []byte("\n"))
	sum := sha256.Sum256(body)
	return journalMagic + "sha256:" + hex.EncodeToString(sum[:]) + "\n" + string(body)
}

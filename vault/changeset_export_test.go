package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
)

// ResealJournal replaces a journal's checksum line with one that matches
// its (edited) body.
func ResealJournal(data []byte) string {
	_, body, _ := bytes.Cut(data, []byte("\n"))
	sum := sha256.Sum256(body)
	return journalMagic + "sha256:" + hex.EncodeToString(sum[:]) + "\n" + string(body)
}

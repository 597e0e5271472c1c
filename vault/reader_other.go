//go:build !linux

package vault

import "io/fs"

// Reader reads many notes, as Vault.ReadFile does (see reader_linux.go;
// here it is ReadFile).
type Reader struct{ v *Vault }

// NewReader returns a Reader of v's notes; the caller closes it.
func (v *Vault) NewReader() *Reader { return &Reader{v: v} }

// Close releases the Reader.
func (r *Reader) Close() error { return nil }

// ReadFile is Vault.ReadFile.
func (r *Reader) ReadFile(rel string) ([]byte, fs.FileInfo, error) { return r.v.ReadFile(rel) }

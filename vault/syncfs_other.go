//go:build !linux

package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SyncFS makes every change to the vault's folder durable at once. A
// working copy, whose writes are not synced one by one, calls it before it
// records its place in its store's feed. Without syncfs(2) it syncs every
// file and folder of the vault.
func (v *Vault) SyncFS() error {
	err := filepath.WalkDir(v.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		defer f.Close()
		if err := f.Sync(); err != nil && !d.IsDir() {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sync the vault's folder: %w", err)
	}
	return nil
}

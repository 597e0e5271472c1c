package vault

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// syncFSCheap: one syncfs(2) makes a working copy's writes durable, so
// they are not synced one by one.
const syncFSCheap = true

// SyncFS makes every change to the vault's folder durable at once: the
// whole file system holding it is synced (syncfs(2)). A working copy,
// whose writes are not synced one by one, calls it before it records its
// place in its store's feed.
func (v *Vault) SyncFS() error {
	d, err := os.Open(v.Root)
	if err != nil {
		return fmt.Errorf("sync the vault's file system: %w", err)
	}
	defer d.Close()
	if err := unix.Syncfs(int(d.Fd())); err != nil {
		return fmt.Errorf("sync the vault's file system: %w", err)
	}
	return nil
}

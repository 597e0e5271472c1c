//go:build !linux

package vault

import (
	"context"
	"io/fs"
)

// walk is walkDir on systems without walk_linux.go's faster walk.
func (v *Vault) walk(ctx context.Context, fn func(rel string, info fs.FileInfo) error, temp func(p string, d fs.DirEntry, pid int), unreadable func(rel string, err error)) error {
	return v.walkDir(ctx, fn, temp, unreadable)
}

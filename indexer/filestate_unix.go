//go:build linux || android || openbsd || dragonfly || solaris || illumos || darwin || ios || freebsd || netbsd

package indexer

import (
	"io/fs"
	"syscall"
)

// ctimeInode returns the status-change time and inode number of a file.
func ctimeInode(info fs.FileInfo) (ctimeNS, inode int64) {
	if id, ok := info.(identity); ok {
		return id.Identity()
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	sec, nsec := statCtime(st)
	return sec*1e9 + nsec, int64(st.Ino)
}

// identity is the file information of vault.Walk's stats on Linux, whose
// Sys is not a *syscall.Stat_t.
type identity interface {
	Identity() (ctimeNS, inode int64)
}

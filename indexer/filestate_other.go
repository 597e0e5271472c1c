//go:build !(linux || android || openbsd || dragonfly || solaris || illumos || darwin || ios || freebsd || netbsd)

package indexer

import "io/fs"

// ctimeInode has nothing to offer on systems without POSIX stat: sync
// relies on size, mtime and the racy-clean rule there.
func ctimeInode(fs.FileInfo) (ctimeNS, inode int64) { return 0, 0 }

//go:build linux && !amd64 && !arm64

package vault

import "golang.org/x/sys/unix"

// lstatName is fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW).
func lstatName(fd int, name string, st *unix.Stat_t) error {
	return unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
}

//go:build linux && (amd64 || arm64)

package vault

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstatName is fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW) for a name
// followed in memory by a NUL byte (readDir's names are): the kernel reads
// it in place, where unix.Fstatat scans and copies it first (a twentieth
// of a 100,000-note walk).
func lstatName(fd int, name string, st *unix.Stat_t) error {
	_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(fd), uintptr(unsafe.Pointer(unsafe.StringData(name))),
		uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

//go:build unix

package vault

import (
	"errors"
	"syscall"
)

// openNonblock is added to the flags of every open for reading, so that a
// FIFO or device that replaces a note between the type check and the open
// cannot block the open (it changes nothing for regular files).
const openNonblock = syscall.O_NONBLOCK

// isNameTooLong reports whether err is the OS refusing a name or path as
// too long.
func isNameTooLong(err error) bool {
	return errors.Is(err, syscall.ENAMETOOLONG)
}

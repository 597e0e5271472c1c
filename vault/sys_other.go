//go:build !unix && !windows

package vault

import (
	"errors"
	"syscall"
)

// openNonblock: no non-blocking open here.
const openNonblock = 0

// isNameTooLong reports whether err is the OS refusing a name or path as
// too long.
func isNameTooLong(err error) bool {
	return errors.Is(err, syscall.ENAMETOOLONG)
}

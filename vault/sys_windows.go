//go:build windows

package vault

import (
	"errors"
	"syscall"
)

// openNonblock: Windows opens of named pipes do not block on a missing
// writer the way FIFOs do, and there is no such flag.
const openNonblock = 0

// errorFilenameExcedRange is ERROR_FILENAME_EXCED_RANGE.
const errorFilenameExcedRange = syscall.Errno(206)

// isNameTooLong reports whether err is the OS refusing a name or path as
// too long.
func isNameTooLong(err error) bool {
	return errors.Is(err, syscall.ENAMETOOLONG) || errors.Is(err, errorFilenameExcedRange)
}

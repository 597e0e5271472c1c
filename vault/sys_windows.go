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

// processQueryLimitedInformation is PROCESS_QUERY_LIMITED_INFORMATION.
const processQueryLimitedInformation = 0x1000

// stillActive is the exit code GetExitCodeProcess reports for a running process.
const stillActive = 259

// processAlive reports whether a process with this PID is running on this
// host (a copy of internal/lock's check).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := syscall.OpenProcess(processQueryLimitedInformation, false, uint32(pid))
	if err != nil {
		// Access denied means it exists but belongs to someone else.
		return errors.Is(err, syscall.ERROR_ACCESS_DENIED)
	}
	defer syscall.CloseHandle(h)
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}

//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package lock

import (
	"errors"
	"os"
	"time"
)

// tryLockFile creates path exclusively; the file exists exactly while the
// lock is held. A file older than MutexStaleAfter belongs to a holder that
// died, and is removed once before trying again.
func tryLockFile(path string) (func() error, error) {
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			f.Close()
			return func() error { return os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		fi, serr := os.Stat(path)
		if attempt > 0 || serr != nil || time.Since(fi.ModTime()) < MutexStaleAfter {
			return nil, ErrHeld
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
}

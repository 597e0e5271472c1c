//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package lock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

func tryAcquire(path string) (*Lock, error) { return flockAcquire(path) }

func holder(path string) (Info, error) { return flockHolder(path) }

// flockAcquire takes an exclusive flock on path and writes this process's
// Info into it.
func flockAcquire(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrHeld
		}
		return nil, fmt.Errorf("lock: %w", err)
	}
	info := currentInfo()
	if err := rewrite(f, encodeInfo(info)); err != nil {
		f.Close() // closing the last descriptor releases the flock
		return nil, fmt.Errorf("write lock holder: %w", err)
	}
	l := &Lock{path: path, info: info}
	l.release = func() error {
		// Clear the holder first so that Holder never reports a released
		// lock; the file itself stays (see the package doc).
		terr := f.Truncate(0)
		cerr := f.Close()
		if err := errors.Join(terr, cerr); err != nil {
			return fmt.Errorf("release lock: %w", err)
		}
		return nil
	}
	return l, nil
}

// flock calls flock(2), retrying when a signal interrupts it.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// rewrite replaces f's content with b.
func rewrite(f *os.File, b []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		return err
	}
	return f.Sync()
}

// flockHolder probes the lock with a shared non-blocking flock: if that
// succeeds nobody holds it. Otherwise it reads the holder's Info, retrying
// briefly while a new holder is still writing it.
func flockHolder(path string) (Info, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Info{}, ErrNotHeld
	}
	if err != nil {
		return Info{}, fmt.Errorf("open lock: %w", err)
	}
	defer f.Close()
	switch err := flock(f, syscall.LOCK_SH|syscall.LOCK_NB); {
	case err == nil:
		return Info{}, ErrNotHeld // closing f drops the probe
	case !errors.Is(err, syscall.EWOULDBLOCK):
		return Info{}, fmt.Errorf("probe lock: %w", err)
	}
	var derr error
	for range 20 {
		b, err := os.ReadFile(path)
		if err != nil {
			return Info{}, fmt.Errorf("read lock: %w", err)
		}
		info, err := decodeInfo(b)
		if err == nil {
			return info, nil
		}
		derr = err
		time.Sleep(5 * time.Millisecond)
	}
	return Info{}, derr
}

package lock

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// exclAcquire is the fallback for systems without flock: path is created
// with O_EXCL and exists exactly while the lock is held. A stale file (see
// the package doc) is removed and the creation retried once.
//
// Two processes that find the same stale file at the same moment may both
// remove it; O_EXCL still lets only one of them create the new one, but a
// remover can delete a file another just created. The window is a few
// system calls wide and only opens after a holder died, which is why flock
// is used wherever it exists.
func exclAcquire(path string) (*Lock, error) {
	return exclAcquireAt(path, time.Now, HeartbeatInterval, StaleAfter)
}

func exclAcquireAt(path string, now func() time.Time, beat, stale time.Duration) (*Lock, error) {
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return exclHold(path, f, beat)
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("create lock: %w", err)
		}
		if attempt > 0 {
			return nil, ErrHeld
		}
		live, err := exclLive(path, now, stale)
		if err != nil {
			return nil, err
		}
		if live {
			return nil, ErrHeld
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove stale lock: %w", err)
		}
	}
}

// exclHold writes this process's Info into the freshly created f and starts
// the heartbeat.
func exclHold(path string, f *os.File, beat time.Duration) (*Lock, error) {
	info := currentInfo()
	_, werr := f.Write(encodeInfo(info))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("write lock holder: %w", err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(beat)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				// A failed touch only makes the lock look older; the next
				// tick tries again.
				_ = os.Chtimes(path, now, now)
			}
		}
	}()
	l := &Lock{path: path, info: info}
	l.release = func() error {
		close(stop)
		<-done
		// Remove the file only if it is still ours: after a long stall it
		// may have been taken over.
		if cur, err := readExcl(path); err == nil && cur != info {
			return nil
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("release lock: %w", err)
		}
		return nil
	}
	return l, nil
}

// readExcl reads the Info in a fallback lock file.
func readExcl(path string) (Info, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Info{}, err
	}
	return decodeInfo(b)
}

// exclLive reports whether the lock file at path belongs to a live holder.
func exclLive(path string, now func() time.Time, stale time.Duration) (bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat lock: %w", err)
	}
	if now().Sub(st.ModTime()) > stale {
		return false, nil
	}
	info, err := readExcl(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		// Fresh but unreadable: a holder is still writing it.
		return true, nil
	}
	host, _ := os.Hostname()
	if info.Hostname == host && info.PID > 0 && !processAlive(info.PID) {
		return false, nil
	}
	return true, nil
}

// exclHolder is Holder for the fallback lock file.
func exclHolder(path string) (Info, error) {
	live, err := exclLive(path, time.Now, StaleAfter)
	if err != nil {
		return Info{}, err
	}
	if !live {
		return Info{}, ErrNotHeld
	}
	info, err := readExcl(path)
	if errors.Is(err, os.ErrNotExist) {
		return Info{}, ErrNotHeld
	}
	return info, err
}

package lock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Environment of the helper process started by startChild.
const (
	childEnv     = "NOEMA_LOCK_TEST_CHILD" // implementation name
	childPathEnv = "NOEMA_LOCK_TEST_PATH"
)

// TestMain turns the test binary into a lock holder when childEnv is set: it
// takes the lock, prints "locked", and holds it until its stdin closes.
func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(runChild(name, os.Getenv(childPathEnv)))
	}
	if path := os.Getenv(mutexChildEnv); path != "" {
		os.Exit(runMutexChild(path))
	}
	os.Exit(m.Run())
}

func runChild(name, path string) int {
	l, err := implByName(name).acquire(path)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	if err := l.Release(); err != nil {
		fmt.Println("error:", err)
		return 1
	}
	return 0
}

// impl is one locking implementation.
type impl struct {
	name    string
	acquire func(string) (*Lock, error)
	holder  func(string) (Info, error)
}

// impls are the implementations that run on this system: the default one
// (flock where available) and the O_EXCL fallback, which runs everywhere.
func impls() []impl {
	return []impl{
		{"default", TryAcquire, Holder},
		{"excl", exclAcquire, exclHolder},
	}
}

func implByName(name string) impl {
	for _, i := range impls() {
		if i.name == name {
			return i
		}
	}
	panic("unknown implementation " + name)
}

func lockPath(t *testing.T) string {
	t.Helper()
	return Path(t.TempDir())
}

func TestTryAcquire(t *testing.T) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			path := lockPath(t)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := im.holder(path); !errors.Is(err, ErrNotHeld) {
				t.Fatalf("Holder before any lock: err = %v, want ErrNotHeld", err)
			}
			l, err := im.acquire(path)
			if err != nil {
				t.Fatalf("first acquire: %v", err)
			}
			if l.Path() != path || l.Info().PID != os.Getpid() {
				t.Errorf("lock %s %+v", l.Path(), l.Info())
			}
			got, err := im.holder(path)
			if err != nil || got != l.Info() {
				t.Errorf("Holder = %+v, %v; want %+v", got, err, l.Info())
			}
			// A second acquisition in the same process opens its own file
			// description and must conflict.
			if l2, err := im.acquire(path); !errors.Is(err, ErrHeld) {
				t.Fatalf("second acquire: lock %v, err %v; want ErrHeld", l2, err)
			}
			if err := l.Release(); err != nil {
				t.Fatal(err)
			}
			if err := l.Release(); err != nil {
				t.Errorf("second Release: %v", err)
			}
			if _, err := im.holder(path); !errors.Is(err, ErrNotHeld) {
				t.Errorf("Holder after release: err = %v, want ErrNotHeld", err)
			}
			l3, err := im.acquire(path)
			if err != nil {
				t.Fatalf("acquire after release: %v", err)
			}
			l3.Release()
		})
	}
}

func TestTryAcquireCreatesFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vault", ".noema", FileName)
	l, err := TryAcquire(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}

// child is a helper process holding a lock.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startChild re-executes the test binary as a holder of path and waits until
// it reports the lock taken.
func startChild(t *testing.T, im impl, path string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+im.name, childPathEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin}
	t.Cleanup(func() {
		c.stdin.Close()
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		t.Fatalf("child said %q, %v", line, err)
	}
	return c
}

// kill ends the child with SIGKILL (TerminateProcess on Windows): it gets no
// chance to release anything.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait() // "signal: killed" is the expected error
}

func TestChildHolderKilled(t *testing.T) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			path := lockPath(t)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			c := startChild(t, im, path)
			if _, err := im.acquire(path); !errors.Is(err, ErrHeld) {
				t.Fatalf("acquire while the child holds it: err = %v, want ErrHeld", err)
			}
			info, err := im.holder(path)
			if err != nil || info.PID != c.cmd.Process.Pid {
				t.Fatalf("Holder = %+v, %v; want the child's pid %d", info, err, c.cmd.Process.Pid)
			}
			host, _ := os.Hostname()
			if info.Hostname != host || time.Since(info.Started) > time.Minute {
				t.Errorf("Holder = %+v", info)
			}

			c.kill(t)
			if _, err := im.holder(path); !errors.Is(err, ErrNotHeld) {
				t.Errorf("Holder after the child died: err = %v, want ErrNotHeld", err)
			}
			l, err := im.acquire(path)
			if err != nil {
				t.Fatalf("acquire after the child died: %v", err)
			}
			if err := l.Release(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestChildHolderReleases(t *testing.T) {
	path := lockPath(t)
	c := startChild(t, implByName("default"), path)
	if _, err := TryAcquire(path); !errors.Is(err, ErrHeld) {
		t.Fatalf("err = %v, want ErrHeld", err)
	}
	c.stdin.Close() // the child releases and exits normally
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	l, err := TryAcquire(path)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
}

func TestAcquireWaits(t *testing.T) {
	path := lockPath(t)
	c := startChild(t, implByName("default"), path)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Acquire(ctx, path, 10*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire while held until the deadline: err = %v", err)
	}

	go func() {
		time.Sleep(200 * time.Millisecond)
		c.cmd.Process.Kill()
	}()
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	l, err := Acquire(ctx, path, 10*time.Millisecond)
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	defer l.Release()
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Errorf("Acquire returned after %v, before the holder died", waited)
	}
}

func TestExclStale(t *testing.T) {
	host, _ := os.Hostname()
	now := time.Now()
	scenarios := []struct {
		Name     string
		Info     Info
		Age      time.Duration
		WantHeld bool
	}{
		{"LiveHolderHere", Info{PID: os.Getpid(), Hostname: host}, 0, true},
		{"DeadHolderHere", Info{PID: deadPID(t), Hostname: host}, 0, false},
		{"FreshHolderElsewhere", Info{PID: 1, Hostname: "elsewhere.invalid"}, StaleAfter / 2, true},
		{"OldHeartbeatElsewhere", Info{PID: 1, Hostname: "elsewhere.invalid"}, 2 * StaleAfter, false},
		{"OldHeartbeatLivePID", Info{PID: os.Getpid(), Hostname: host}, 2 * StaleAfter, false},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, encodeInfo(sc.Info), 0o644); err != nil {
				t.Fatal(err)
			}
			mtime := now.Add(-sc.Age)
			if err := os.Chtimes(path, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			l, err := exclAcquire(path)
			if sc.WantHeld {
				if !errors.Is(err, ErrHeld) {
					t.Fatalf("err = %v, want ErrHeld", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("stale lock not taken over: %v", err)
			}
			if got, err := readExcl(path); err != nil || got != l.Info() {
				t.Errorf("lock file says %+v, %v", got, err)
			}
			if err := l.Release(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("lock file left after release: %v", err)
			}
		})
	}
}

// deadPID returns the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestExclHeartbeat(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	l, err := exclAcquireAt(path, time.Now, 20*time.Millisecond, StaleAfter)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(st.ModTime()) < time.Minute {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("heartbeat did not touch the lock file")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestHolderMissingFile(t *testing.T) {
	for _, im := range impls() {
		if _, err := im.holder(filepath.Join(t.TempDir(), "none.lock")); !errors.Is(err, ErrNotHeld) {
			t.Errorf("%s: err = %v, want ErrNotHeld", im.name, err)
		}
	}
}

func TestInfoString(t *testing.T) {
	i := Info{PID: 42, Hostname: "box", Started: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	if got, want := i.String(), "pid 42 on box since 2025-01-02T03:04:05Z"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

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
const childPathEnv = "NOEMA_LOCK_TEST_PATH"

// TestMain turns the test binary into a lock holder when childPathEnv is set:
// it takes the lock, prints "locked", and holds it until its stdin closes.
func TestMain(m *testing.M) {
	if path := os.Getenv(childPathEnv); path != "" {
		os.Exit(runChild(path))
	}
	if path := os.Getenv(mutexChildEnv); path != "" {
		os.Exit(runMutexChild(path))
	}
	os.Exit(m.Run())
}

func runChild(path string) int {
	l, err := TryAcquire(path)
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

func lockPath(t *testing.T) string {
	t.Helper()
	return Path(t.TempDir())
}

func TestTryAcquire(t *testing.T) {
	path := lockPath(t)
	l, err := TryAcquire(path)
	if err != nil {
		t.Fatalf("first acquire: %v", err)
	}
	if l.Path() != path {
		t.Errorf("lock path %s, want %s", l.Path(), path)
	}
	// A second acquisition in the same process opens its own file and must
	// conflict.
	if l2, err := TryAcquire(path); !errors.Is(err, ErrHeld) {
		t.Fatalf("second acquire: lock %v, err %v; want ErrHeld", l2, err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	// The file stays: removing it would let two processes lock two inodes.
	if _, err := os.Stat(path); err != nil {
		t.Errorf("lock file after release: %v", err)
	}
	l3, err := TryAcquire(path)
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	l3.Release()
}

// A lock file left by an earlier version (holder JSON inside) is just a file.
func TestTryAcquireOldLockFile(t *testing.T) {
	path := lockPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	old := `{"pid":1,"hostname":"elsewhere","started":"2025-01-02T03:04:05Z"}` + "\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := TryAcquire(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
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
func startChild(t *testing.T, path string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childPathEnv+"="+path)
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
	path := lockPath(t)
	c := startChild(t, path)
	if _, err := TryAcquire(path); !errors.Is(err, ErrHeld) {
		t.Fatalf("acquire while the child holds it: err = %v, want ErrHeld", err)
	}
	c.kill(t) // the kernel releases the lock of a killed holder
	l, err := TryAcquire(path)
	if err != nil {
		t.Fatalf("acquire after the child died: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Error(err)
	}
}

func TestChildHolderReleases(t *testing.T) {
	path := lockPath(t)
	c := startChild(t, path)
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
	c := startChild(t, path)

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

func TestProcessAlive(t *testing.T) {
	if alive, known := ProcessAlive(os.Getpid()); !alive {
		t.Errorf("ProcessAlive(self) = %v, %v", alive, known)
	}
	if alive, known := ProcessAlive(0); alive || !known {
		t.Errorf("ProcessAlive(0) = %v, %v", alive, known)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if alive, known := ProcessAlive(cmd.Process.Pid); known && alive {
		t.Errorf("ProcessAlive(exited child) = %v, %v", alive, known)
	}
}

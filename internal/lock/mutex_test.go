package lock

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// mutexChildEnv turns the test binary into a Mutex user (see TestMain):
// with "hold:<lock>" it takes the lock, prints "locked" and waits to be
// killed; with "count:<lock>:<counter>:<n>" it increments the number in
// the counter file n times, each a read-sleep-write under the lock.
const mutexChildEnv = "NOEMA_MUTEX_TEST"

func runMutexChild(spec string) int {
	ctx := context.Background()
	parts := strings.Split(spec, "|")
	m := NewMutex(parts[1])
	switch parts[0] {
	case "hold":
		if _, err := m.Lock(ctx); err != nil {
			fmt.Println("error:", err)
			return 1
		}
		fmt.Println("locked")
		time.Sleep(time.Hour) // until killed
		return 0
	case "count":
		n, _ := strconv.Atoi(parts[3])
		for range n {
			if err := increment(ctx, m, parts[2]); err != nil {
				fmt.Println("error:", err)
				return 1
			}
		}
		return 0
	}
	return 2
}

// increment adds one to the number in the file counter, under m, with a
// pause between the read and the write that invites lost updates.
func increment(ctx context.Context, m *Mutex, counter string) error {
	unlock, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	b, err := os.ReadFile(counter)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	time.Sleep(200 * time.Microsecond)
	return os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o644)
}

// TestMutexExcludesProcesses runs three processes and this one incrementing
// one counter under the Mutex: no increment may be lost.
func TestMutexExcludesProcesses(t *testing.T) {
	dir := t.TempDir()
	lockPath, counter := filepath.Join(dir, "sub", "write.lock"), filepath.Join(dir, "counter")
	const procs, each = 3, 40
	var cmds []*exec.Cmd
	for range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), mutexChildEnv+"=count|"+lockPath+"|"+counter+"|"+strconv.Itoa(each))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	// Two goroutines of this process too: the Mutex alone (no in-process
	// mutex) must exclude them where the lock is per open file.
	m := NewMutex(lockPath)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if err := increment(context.Background(), m, counter); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	b, err := os.ReadFile(counter)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(b)), strconv.Itoa((procs+2)*each); got != want {
		t.Fatalf("counter = %s, want %s: increments were lost", got, want)
	}
}

// TestMutexKilledHolder: a holder killed with SIGKILL leaves nothing held
// (on systems with kernel locks), and a waiter gives up when its context
// ends.
func TestMutexKilledHolder(t *testing.T) {
	lockPath := filepath.Join(t.TempDir(), "write.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), mutexChildEnv+"=hold|"+lockPath)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		t.Fatalf("child said %q", line)
	}
	m := NewMutex(lockPath)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := m.Lock(ctx); err == nil {
		t.Fatal("took a lock another process holds")
	}
	cmd.Process.Kill()
	cmd.Wait()
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	unlock, err := m.Lock(ctx)
	if err != nil {
		t.Fatalf("lock after the holder died: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v to take a dead holder's lock", d)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
}

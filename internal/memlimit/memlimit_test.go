package memlimit

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, Floor},
		{100 << 20, Floor},
		{800 << 20, 1056 << 20},    // 800 MB + 256 MB
		{2 << 30, 2<<30 + 512<<20}, // a quarter
		{4 << 30, 5 << 30},
	} {
		if got := Limit(c.live); got != c.want {
			t.Errorf("Limit(%d MB) = %d MB, want %d MB", c.live>>20, got>>20, c.want>>20)
		}
		if got := Limit(c.live); uint64(got) <= c.live {
			t.Errorf("Limit(%d) = %d is not above the live heap", c.live, got)
		}
	}
}

// TestRunFollowsTheLiveHeap checks that Run sets the process's soft limit
// from its live heap (a test's is small: the floor), restores the one it
// found when stopped, and stays off when GOMEMLIMIT or GOGC is set.
func TestRunFollowsTheLiveHeap(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { Run(ctx, func(string) string { return "" }); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) == orig {
		if time.Now().After(deadline) {
			t.Fatal("Run did not set a limit")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got < Floor {
		t.Errorf("limit %d below the floor", got)
	}
	cancel()
	<-done
	if got := debug.SetMemoryLimit(-1); got != orig {
		t.Errorf("after Run: limit %d, want the original %d", got, orig)
	}
	for _, env := range []string{"GOMEMLIMIT", "GOGC"} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		Run(ctx, func(k string) string {
			if k == env {
				return "1GiB"
			}
			return ""
		})
		cancel()
		if got := debug.SetMemoryLimit(-1); got != orig {
			t.Errorf("with %s set, Run changed the limit to %d", env, got)
		}
	}
}

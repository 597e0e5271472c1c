package cputime

import (
	"runtime"
	"testing"
)

func TestProcessGrows(t *testing.T) {
	t0 := Process()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i
	}
	runtime.KeepAlive(x)
	t1 := Process()
	if t1 < t0 {
		t.Fatalf("CPU time went back: %v then %v", t0, t1)
	}
	if runtime.GOOS == "linux" && t1 == 0 {
		t.Fatal("no CPU time measured after a busy loop")
	}
}

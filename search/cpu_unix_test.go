//go:build unix

package search_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) this process has used, so that
// benchmarks can report it next to wall time, which other load distorts.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Package memlimit keeps a long-running noema process's Go heap close to
// what it holds. Go's default collector lets the heap grow to twice the
// live bytes before it collects (GOGC=100): a server holding 2.4 GB of
// indexes for a million concepts peaked at 4.4 GB of RSS (issue 21). Run
// sets a soft memory limit (runtime/debug.SetMemoryLimit) a headroom above
// the live heap the last collection found, and moves it as that changes:
// the headroom is a quarter of the live heap, at least MinHeadroom, and
// the limit at least Floor, so a small vault collects as it always did
// and a large one holds at most a quarter more than it needs. Because the
// limit follows the live heap, it never falls below it, and the collector
// never runs without end as it would under a fixed limit too small for
// the vault. GOMEMLIMIT or GOGC in the environment turn it off: whoever
// set them chose.
package memlimit

import (
	"context"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Tuning of the limit: live heap + max(live/Headroom, MinHeadroom), at
// least Floor.
const (
	Headroom    = 4         // a quarter of the live heap
	MinHeadroom = 256 << 20 // bytes
	Floor       = 1 << 30   // bytes
	// Every is how often the live heap is read again.
	Every = time.Second
)

// Limit returns the soft memory limit for a live heap of live bytes.
func Limit(live uint64) int64 {
	l := live + max(live/Headroom, MinHeadroom)
	return int64(max(l, Floor))
}

// Run adjusts the process's soft memory limit to Limit of its live heap
// every Every until ctx is done, then restores the limit it found. It
// does nothing when getenv has GOMEMLIMIT or GOGC set.
func Run(ctx context.Context, getenv func(string) string) {
	if getenv("GOMEMLIMIT") != "" || getenv("GOGC") != "" {
		return
	}
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var set int64 = math.MaxInt64
	t := time.NewTicker(Every)
	defer t.Stop()
	for {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			if l := Limit(sample[0].Value.Uint64()); l != set {
				debug.SetMemoryLimit(l)
				set = l
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

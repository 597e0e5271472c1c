package vector_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/noema-mem/noema/vector"
)

// BenchmarkIndexMemory reports the live heap bytes per row of an index of
// 384-dimensional vectors (the builtin embedder's), float32 and half rows
// (issue 21: concept vectors at 1M concepts). Run with -benchtime=1x.
func BenchmarkIndexMemory(b *testing.B) {
	for _, n := range []int{100_000, 300_000} {
		for _, kind := range []struct {
			name string
			new  func(int) *vector.Index
		}{{"float32", vector.New}, {"half", vector.NewHalf}, {"codes", vector.NewCodes}} {
			b.Run(fmt.Sprintf("%s/%dk", kind.name, n/1000), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 2))
				v := make([]float32, 384)
				var x *vector.Index
				for b.Loop() {
					x = nil
					runtime.GC()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					x = kind.new(len(v))
					for i := range n {
						for j := range v {
							v[j] = float32(r.NormFloat64())
						}
						if err := x.Set(int64(i), v); err != nil {
							b.Fatal(err)
						}
					}
					runtime.GC()
					runtime.ReadMemStats(&after)
					b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "B/row")
				}
				runtime.KeepAlive(x)
			})
		}
	}
}

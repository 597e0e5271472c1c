package concepts

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/noema-mem/noema/fuzzy"
)

// liveHeap returns the bytes of live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkNameIndexMemory reports the live heap bytes per concept of the
// structures built over the concepts' names (issue 21: at 1M concepts they
// are most of the server's heap): find_concepts' fuzzy choices and second
// channel, and analyze_duplicates' index. Run with -benchtime=1x.
func BenchmarkNameIndexMemory(b *testing.B) {
	for _, n := range []int{100_000, 300_000} {
		m := labelMatcher(n)
		for _, s := range []struct {
			name  string
			build func() any
		}{
			{"choices", func() any {
				c, err := fuzzy.NewGroupedChoices(m.texts, m.groups, fuzzy.DefaultProcess)
				if err != nil {
					b.Fatal(err)
				}
				return c
			}},
			{"find", func() any { return buildFindIndex(m) }},
			{"dups", func() any { return buildDupIndex(m) }},
		} {
			b.Run(fmt.Sprintf("%s/%dk", s.name, n/1000), func(b *testing.B) {
				if m.texts == nil {
					for g := range m.ids {
						for _, t := range m.names(g) {
							m.texts, m.groups = append(m.texts, t), append(m.groups, g)
						}
					}
				}
				var keep any
				for b.Loop() {
					keep = nil
					before := liveHeap()
					keep = s.build()
					b.ReportMetric(float64(liveHeap()-before)/float64(n), "B/concept")
				}
				runtime.KeepAlive(keep)
			})
		}
	}
}

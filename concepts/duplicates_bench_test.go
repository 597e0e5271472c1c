package concepts

import (
	"fmt"
	"sync"
	"testing"

	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/internal/benchdata"
	"github.com/noema-mem/noema/semantic"
)

var benchOnce sync.Once
var benchLabels []string

// benchConcepts returns n concepts named by the fuzzy benchmark's labels
// (benchdata), with builtin vectors, as analyze_duplicates sees them.
func benchConcepts(b *testing.B, n int) (*dupIndex, []dupConcept) {
	b.Helper()
	benchOnce.Do(func() { benchLabels = benchdata.Generate().Labels })
	m := &matcher{}
	seen := map[string]bool{}
	for _, l := range benchLabels {
		if len(m.ids) == n {
			break
		}
		if seen[l] {
			continue
		}
		seen[l] = true
		m.ids = append(m.ids, fmt.Sprintf("c%06d", len(m.ids)))
		m.labels = append(m.labels, l)
		m.aliases = append(m.aliases, nil)
	}
	x := buildDupIndex(m)
	cons := make([]dupConcept, len(m.ids))
	for i := range cons {
		cons[i] = dupConcept{id: m.ids[i], label: m.labels[i], names: x.names[i], vec: builtin.Vector(semantic.ConceptText(m.labels[i], nil, ""))}
		cons[i].Mentions = i % 7
	}
	return x, cons
}

// BenchmarkDuplicatesIndex is the per-registry-version cost: analysing
// every name and building the blocking keys (cached until the registry
// changes).
func BenchmarkDuplicatesIndex(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			benchOnce.Do(func() { benchLabels = benchdata.Generate().Labels })
			m := &matcher{}
			for i, l := range benchLabels[:n] {
				m.ids = append(m.ids, fmt.Sprint(i))
				m.labels = append(m.labels, l)
				m.aliases = append(m.aliases, nil)
			}
			b.ResetTimer()
			for b.Loop() {
				buildDupIndex(m)
			}
		})
	}
}

// BenchmarkDuplicatesVault is one whole-vault analysis (every channel,
// judging, grouping), the index built.
func BenchmarkDuplicatesVault(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			x, cons := benchConcepts(b, n)
			b.ResetTimer()
			var groups []DupGroup
			for b.Loop() {
				groups, _ = analyseVault(x, cons, 0, nil)
			}
			b.ReportMetric(float64(len(groups)), "groups")
		})
	}
	// Cold: the first call after the registry changed pays for the name
	// index and the vectors' signatures too.
	b.Run("10k/cold", func(b *testing.B) {
		x, cons := benchConcepts(b, 10_000)
		m := &matcher{}
		for i := range cons {
			m.ids, m.labels, m.aliases = append(m.ids, cons[i].id), append(m.labels, cons[i].label), append(m.aliases, nil)
		}
		_ = x
		b.ResetTimer()
		for b.Loop() {
			x := buildDupIndex(m)
			analyseVault(x, cons, 0, nil)
		}
	})
}

// BenchmarkDuplicatesConcept is one concept's group at 10k concepts.
func BenchmarkDuplicatesConcept(b *testing.B) {
	x, cons := benchConcepts(b, 10_000)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		cs := &candidates{pairs: map[uint64]uint32{}, only: int32(i * 7919 % len(cons))}
		x.gather(cs)
		embeddingCandidates(cs, vectorsOf(cons), embedReview, x.lsh)
		analyse(cs, cons, 0, nil)
		i++
	}
}

// Package benchdata generates the synthetic concept labels and queries of the
// fuzzy benchmark (docs/fuzzy.md): a SplitMix64 stream
// turned into a 5,000-word vocabulary, 100,000 labels and 50 queries. The
// output is fixed; the *SHA256 constants hold its check values.
package benchdata

import (
	"strings"

	"github.com/noema-mem/noema/internal/splitmix"
)

// Sizes of the generated lists.
const (
	VocabSize  = 5000
	LabelCount = 100000
	QueryCount = 50
	// QueryBase is the prefix of the labels that queries are derived from.
	QueryBase = 10000
)

// Hashes are the SHA-256 sums of each list joined with "\n" (no trailing
// newline): the vocabulary, the first 10,000 labels, all labels and the
// queries.
const (
	VocabSHA256     = "4d3353f737d62a6a2d8882c56d0b5c829daf369bd4e430e9e800f7a8860d722c"
	Labels10kSHA256 = "e9a4b7527f9943750a6585e510b09f2b5b0fde7343a472c854dd8937a76bbd79"
	LabelsSHA256    = "4832626d735e5e131f6887d68bce81120b7edeebf2444d4ddbff53750915b49e"
	QueriesSHA256   = "794e7a901cd935779eb5670a03420e710547d4bbe90dc2461ed5260a1c5c7e07"
)

// SplitMix64 is the SplitMix64 generator (Next) with the specification's
// reduction (Below).
type SplitMix64 struct{ splitmix.Source }

// NewSplitMix64 returns a generator with the given seed.
func NewSplitMix64(seed uint64) *SplitMix64 { return &SplitMix64{splitmix.New(seed)} }

// Below returns Next() % n (the modulo bias is part of the specification).
func (r *SplitMix64) Below(n uint64) uint64 { return r.Next() % n }

// Data is the generated benchmark input.
type Data struct {
	Vocab   []string // VocabSize pseudo-words
	Labels  []string // LabelCount labels; the N=10,000 set is Labels[:10000]
	Queries []string // QueryCount queries
}

// Generate builds the data; it takes a few tens of milliseconds, so callers
// that need it repeatedly should keep the result.
func Generate() Data {
	r, vocab := vocabulary()
	labels := make([]string, LabelCount)
	for i := range labels {
		labels[i] = label(r, vocab)
	}
	q := NewSplitMix64(4242)
	queries := make([]string, QueryCount)
	for i := range queries {
		base := labels[q.Below(QueryBase)]
		switch i % 5 {
		case 0:
			queries[i] = base
		case 1:
			p := q.Below(uint64(len(base)))
			queries[i] = base[:p] + base[p+1:]
		case 2:
			parts := strings.Split(base, " ")
			for a, z := 0, len(parts)-1; a < z; a, z = a+1, z-1 {
				parts[a], parts[z] = parts[z], parts[a]
			}
			queries[i] = strings.Join(parts, " ")
		case 3:
			queries[i] = base + " " + vocab[q.Below(VocabSize)]
		case 4:
			queries[i] = label(q, vocab)
		}
	}
	return Data{Vocab: vocab, Labels: labels, Queries: queries}
}

// label draws one label: 2 to 4 vocabulary words, separated by "-" (one in
// eight) or " ", each capitalised with probability 1/4.
func label(r *SplitMix64, vocab []string) string {
	k := 2 + r.Below(3)
	var b strings.Builder
	for w := range k {
		if w > 0 {
			if r.Below(8) == 0 {
				b.WriteByte('-')
			} else {
				b.WriteByte(' ')
			}
		}
		word := vocab[r.Below(VocabSize)]
		if r.Below(4) == 0 {
			b.WriteByte(word[0] - ('a' - 'A'))
			b.WriteString(word[1:])
		} else {
			b.WriteString(word)
		}
	}
	return b.String()
}

// Labels returns n labels: Generate's LabelCount labels first (when n is
// at least that many), then more drawn from the same stream, for
// benchmarks beyond 100,000 concepts (cmd/noema's BenchmarkScale draws a
// million).
func Labels(n int) []string {
	r, vocab := vocabulary()
	labels := make([]string, n)
	for i := range labels {
		labels[i] = label(r, vocab)
	}
	return labels
}

// vocabulary draws the vocabulary from the seeded stream and returns the
// stream where the labels start.
func vocabulary() (*SplitMix64, []string) {
	r := NewSplitMix64(42)
	vocab := make([]string, VocabSize)
	var b strings.Builder
	for i := range vocab {
		l := 3 + r.Below(8)
		b.Reset()
		for range l {
			b.WriteByte(byte('a' + r.Below(26)))
		}
		vocab[i] = b.String()
	}
	return r, vocab
}

package corpus

import "github.com/noema-mem/noema/internal/splitmix"

// rng is a SplitMix64 generator. It is tiny, fast, passes BigCrush for this
// use, and — unlike math/rand — its sequence is fixed by its definition, so a
// seed produces the same vault with every Go release.
type rng struct{ splitmix.Source }

// Stream identifiers keep independent parts of the generation (vocabulary,
// note planning, each note body) on independent sequences, so that changing
// one part never shifts the random numbers another part sees.
const (
	streamVocab uint64 = 1 + iota
	streamPlan
	streamNote
)

// newRNG returns the generator of stream (seed, stream, index).
func newRNG(seed, stream, index uint64) *rng {
	mix := splitmix.Mix
	return &rng{splitmix.New(mix(seed^mix(stream*splitmix.Golden)) ^ mix(index+0x632be59bd9b4e019))}
}

// between returns a number in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.Intn(hi-lo+1) }

// float returns a number in [0, 1).
func (r *rng) float() float64 { return float64(r.Next()>>11) / (1 << 53) }

// chance reports true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// pick returns a uniformly chosen element of list, which must not be empty.
func (r *rng) pick(list []string) string { return list[r.Intn(len(list))] }

// weighted returns an index chosen with probability proportional to w[i].
func (r *rng) weighted(w []float64) int {
	var total float64
	for _, x := range w {
		total += x
	}
	u := r.float() * total
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}

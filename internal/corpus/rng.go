package corpus

import "math/bits"

// rng is a SplitMix64 generator. It is tiny, fast, passes BigCrush for this
// use, and — unlike math/rand — its sequence is fixed by this file alone, so a
// seed produces the same vault with every Go release.
type rng struct{ s uint64 }

// Stream identifiers keep independent parts of the generation (vocabulary,
// note planning, each note body) on independent sequences, so that changing
// one part never shifts the random numbers another part sees.
const (
	streamVocab uint64 = 1 + iota
	streamPlan
	streamNote
)

// mix64 is the SplitMix64 output function.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// newRNG returns the generator of stream (seed, stream, index).
func newRNG(seed, stream, index uint64) *rng {
	return &rng{s: mix64(seed^mix64(stream*0x9e3779b97f4a7c15)) ^ mix64(index+0x632be59bd9b4e019)}
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// intn returns a number in [0, n); n must be positive. It uses Lemire's
// multiply-high reduction; the bias (< n/2^64) is irrelevant here.
func (r *rng) intn(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}

// between returns a number in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// float returns a number in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// chance reports true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// pick returns a uniformly chosen element of list, which must not be empty.
func (r *rng) pick(list []string) string { return list[r.intn(len(list))] }

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

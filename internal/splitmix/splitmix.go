// Package splitmix is the SplitMix64 generator (Steele, Lea and Flood, 2014).
// Its sequence is fixed by its definition, not by math/rand, so a seed gives
// the same numbers on every platform and Go release.
package splitmix

import "math/bits"

// Golden is the generator's increment, 2^64 divided by the golden ratio.
const Golden = 0x9E3779B97F4A7C15

// Mix is the SplitMix64 output function.
func Mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Source is a SplitMix64 generator; arithmetic wraps modulo 2^64. The zero
// value is the stream of seed 0.
type Source struct{ s uint64 }

// New returns the generator whose state starts at seed.
func New(seed uint64) Source { return Source{s: seed} }

// Next returns the next 64-bit value.
func (r *Source) Next() uint64 {
	r.s += Golden
	return Mix(r.s)
}

// Intn returns a number in [0, n); n must be positive. It uses Lemire's
// multiply-high reduction, one draw per call; its bias (< n/2^64) is
// irrelevant to shuffles and sampling.
func (r *Source) Intn(n int) int {
	hi, _ := bits.Mul64(r.Next(), uint64(n))
	return int(hi)
}

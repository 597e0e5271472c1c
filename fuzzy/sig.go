package fuzzy

import "math/bits"

// sig is a compact character histogram of a string, for an O(1) upper bound
// on the LCS of two strings (or of any of their windows): the LCS cannot
// exceed the size of the multiset intersection of their code points. Code
// points are merged into 64 buckets, which can only raise the bound. Bit b
// of m[t] is set when bucket b holds more than t code points; extra counts
// the code points beyond the fourth of each bucket.
type sig struct {
	m     [4]uint64
	extra int64
}

// bucket maps a code point to one of 64 buckets: one per ASCII letter (both
// cases), one for the space, the rest shared.
func bucket(c rune) uint {
	switch {
	case c >= 'a' && c <= 'z':
		return uint(c - 'a')
	case c >= 'A' && c <= 'Z':
		return uint(c-'A') + 26
	case c == ' ':
		return 52
	case c >= '0' && c <= '9':
		return 53 + uint(c-'0')%5
	}
	return 58 + uint((uint32(c)*2654435761)>>16)%6
}

// makeSig returns the signature of s.
func makeSig(s []rune) sig {
	var cnt [64]int32
	var g sig
	for _, c := range s {
		b := bucket(c)
		if t := cnt[b]; t < 4 {
			g.m[t] |= 1 << b
		} else {
			g.extra++
		}
		cnt[b]++
	}
	return g
}

// interBound returns an upper bound of the multiset intersection of the
// strings behind a and b.
func interBound(a, b *sig) int {
	return bits.OnesCount64(a.m[0]&b.m[0]) + bits.OnesCount64(a.m[1]&b.m[1]) +
		bits.OnesCount64(a.m[2]&b.m[2]) + bits.OnesCount64(a.m[3]&b.m[3]) +
		int(min(a.extra, b.extra))
}

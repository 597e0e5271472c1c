package fuzzy

import (
	"math"
	"math/bits"
)

// shape is what the bounds know of a processed text: a compact histogram
// of its code points and the lengths of its three forms (the text, its
// sorted tokens, its distinct sorted tokens). It is 40 bytes, kept apart
// from the texts so that a scan of every choice's shape reads little
// memory.
//
// The histogram bounds the LCS of two texts, of their token forms and of
// any of their windows or token subsets: an LCS cannot use more of a code
// point than both strings hold, so it is at most the size of the multiset
// intersection of their code points. Each bucket count is the larger of
// the text's and its sorted form's (they differ only in separators), so one
// histogram bounds every form: the distinct tokens and the token
// differences of token_set are sub-multisets of the sorted form. Code
// points are merged into 64 buckets, which can only raise the bound. Bit b
// of m[t] is set when bucket b holds more than t code points; extra counts
// the code points beyond the fourth of each bucket.
type shape struct {
	m     [4]uint64
	extra uint16
	// Lengths in code points of the processed text, of its sorted tokens
	// joined by single spaces and of its distinct sorted tokens joined.
	r, s, set uint16
}

// shapeMax is the largest count a shape holds; a shape whose r is shapeMax
// is unbounded (its text is too long to describe) and bounds nothing.
const shapeMax = math.MaxUint16

// unbounded reports whether sh bounds nothing.
func (sh *shape) unbounded() bool { return sh.r == shapeMax }

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

// makeShape returns the shape of p. The sorted form holds the text's
// token code points and one space between tokens, the text the same
// tokens and its separators: the histogram of the text with the space's
// bucket (which holds nothing else) raised to the sorted form's spaces is
// the larger of the two in every bucket.
func makeShape(p *prepared) shape {
	var cnt [64]int32
	var sh shape
	extra := 0
	add := func(b uint) {
		if t := cnt[b]; t < 4 {
			sh.m[t] |= 1 << b
		} else {
			extra++
		}
		cnt[b]++
	}
	for _, c := range p.r {
		add(bucket(c))
	}
	if !p.same {
		spaces := int32(0)
		for _, c := range p.sorted {
			if c == ' ' {
				spaces++
			}
		}
		for sp := bucket(' '); cnt[sp] < spaces; {
			add(sp)
		}
	}
	if len(p.r) >= shapeMax || extra >= shapeMax {
		sh.r = shapeMax
		return sh
	}
	sh.extra = uint16(extra)
	sh.r, sh.s, sh.set = uint16(len(p.r)), uint16(len(p.sorted)), uint16(len(p.set))
	return sh
}

// interBound returns an upper bound of the multiset intersection of the
// code points of any form of the texts behind a and b, or math.MaxInt32
// when either is unbounded.
func interBound(a, b *shape) int {
	if a.unbounded() || b.unbounded() {
		return math.MaxInt32
	}
	return interCount(a, b)
}

// interCount is interBound for bounded shapes.
func interCount(a, b *shape) int {
	return bits.OnesCount64(a.m[0]&b.m[0]) + bits.OnesCount64(a.m[1]&b.m[1]) +
		bits.OnesCount64(a.m[2]&b.m[2]) + bits.OnesCount64(a.m[3]&b.m[3]) +
		int(min(a.extra, b.extra))
}

package fuzzy

import "math/bits"

// pattern holds the match vectors of one string (the "pattern") for Hyyrö's
// bit-parallel LCS: for each distinct code point c, a bit vector with bit i
// set when pattern[i] == c, one 64-bit word per 64 code points. //
// A pattern is reusable: build clears only the entries the previous build
// set, so rebuilding for a short string is cheap.
type pattern struct {
	n  int // length of the pattern in code points
	nw int // words per bit vector: ceil(n/64)

	// low1[c] is the mask of code point c < 256 when nw == 1.
	low1 [256]uint64
	// lowIdx[c] is 1 + the distinct index of code point c < 256, 0 if absent.
	lowIdx [256]int32

	// Open-addressing table of code points >= 256 (key 0 marks a free slot).
	hkeys  []rune
	hidx   []int32
	hshift uint

	masks []uint64 // masks[id*nw+w]
	chars []rune   // distinct code points, in order of first occurrence
}

// build makes p the pattern of s, or of s reversed if rev is set.
func (p *pattern) build(s []rune, rev bool) {
	p.reset()
	n := len(s)
	p.n = n
	p.nw = (n + 63) / 64
	high := 0
	for _, c := range s {
		if uint32(c) >= 256 {
			high++
		}
	}
	if high == 0 && n <= 64 {
		// Fast path: one word, code points < 256 only; masks stays empty
		// because low1 answers every lookup.
		for i := 0; i < n; i++ {
			c := nth(s, i, rev)
			b := uint32(c) & 0xFF
			if p.lowIdx[b] == 0 {
				p.chars = append(p.chars, c)
				p.lowIdx[b] = int32(len(p.chars))
			}
			p.low1[b] |= 1 << uint(i)
		}
		return
	}
	if high > 0 {
		size := 8
		for size < 2*high {
			size *= 2
		}
		if len(p.hkeys) < size {
			p.hkeys = make([]rune, size)
			p.hidx = make([]int32, size)
		}
		p.hkeys = p.hkeys[:size]
		p.hidx = p.hidx[:size]
		p.hshift = uint(64 - bits.TrailingZeros(uint(size)))
	}
	nw := p.nw
	for i := 0; i < n; i++ {
		c := nth(s, i, rev)
		id := p.index(c)
		if id < 0 {
			id = p.add(c)
		}
		p.masks[id*nw+i/64] |= 1 << (uint(i) % 64)
	}
	if nw == 1 {
		for id, c := range p.chars {
			if uint32(c) < 256 {
				p.low1[c] = p.masks[id]
			}
		}
	}
}

// reset removes every entry of p.
func (p *pattern) reset() {
	high := false
	for _, c := range p.chars {
		if uint32(c) < 256 {
			p.low1[c] = 0
			p.lowIdx[c] = 0
		} else {
			high = true
		}
	}
	if high {
		clear(p.hkeys)
	}
	p.chars = p.chars[:0]
	p.masks = p.masks[:0]
	p.n, p.nw = 0, 0
}

// add registers the new distinct code point c and returns its index.
func (p *pattern) add(c rune) int {
	id := len(p.chars)
	p.chars = append(p.chars, c)
	for w := 0; w < p.nw; w++ {
		p.masks = append(p.masks, 0)
	}
	if uint32(c) < 256 {
		p.lowIdx[c] = int32(id + 1)
		return id
	}
	mask := len(p.hkeys) - 1
	i := int((uint64(uint32(c)) * 0x9E3779B97F4A7C15) >> p.hshift)
	for p.hkeys[i] != 0 {
		i = (i + 1) & mask
	}
	p.hkeys[i] = c
	p.hidx[i] = int32(id + 1)
	return id
}

// index returns the distinct index of c, or -1 if c is not in the pattern.
func (p *pattern) index(c rune) int {
	if uint32(c) < 256 {
		return int(p.lowIdx[uint32(c)]) - 1
	}
	if len(p.hkeys) == 0 {
		return -1
	}
	mask := len(p.hkeys) - 1
	i := int((uint64(uint32(c)) * 0x9E3779B97F4A7C15) >> p.hshift)
	for {
		k := p.hkeys[i]
		if k == c {
			return int(p.hidx[i]) - 1
		}
		if k == 0 {
			return -1
		}
		i = (i + 1) & mask
	}
}

// mask1 returns the match vector of c for a one-word pattern.
func (p *pattern) mask1(c rune) uint64 {
	if uint32(c) < 256 {
		return p.low1[uint32(c)]
	}
	return p.maskHigh(c)
}

// maskHigh is mask1 for code points >= 256.
func (p *pattern) maskHigh(c rune) uint64 {
	id := p.index(c)
	if id < 0 {
		return 0
	}
	return p.masks[id]
}

// lowMask returns a word with the lowest n%64 bits set (all bits if n%64 == 0).
func lowMask(n int) uint64 {
	if r := n % 64; r != 0 {
		return 1<<uint(r) - 1
	}
	return ^uint64(0)
}

// lcs returns the length of the longest common subsequence of the pattern and
// t. buf is scratch space for patterns longer than 64 code points.
func (p *pattern) lcs(t []rune, buf *[]uint64) int {
	switch {
	case p.n == 0 || len(t) == 0:
		return 0
	case p.nw == 1:
		return p.lcs1(t)
	}
	return p.lcsN(t, buf)
}

// lcs1 is lcs for patterns of at most 64 code points.
func (p *pattern) lcs1(t []rune) int {
	S := ^uint64(0)
	for _, c := range t {
		S = step1(S, p.mask1(c))
	}
	return bits.OnesCount64(^S & lowMask(p.n))
}

// step1 advances the one-word LCS state S by one text code point whose match
// vector is m.
func step1(S, m uint64) uint64 {
	u := S & m
	return (S + u) | (S - u)
}

// lcsN is lcs for patterns of any length, one word per 64 code points, with
// the carry of the addition propagated across words.
func (p *pattern) lcsN(t []rune, buf *[]uint64) int {
	S := p.initState(buf)
	for _, c := range t {
		p.step(S, c)
	}
	return p.count(S)
}

// initState returns an all-ones state vector for p, stored in buf.
func (p *pattern) initState(buf *[]uint64) []uint64 {
	if cap(*buf) < p.nw {
		*buf = make([]uint64, p.nw)
	}
	S := (*buf)[:p.nw]
	for i := range S {
		S[i] = ^uint64(0)
	}
	return S
}

// step advances the multi-word LCS state S by one text code point and
// reports whether c occurs in the pattern (otherwise S is unchanged).
func (p *pattern) step(S []uint64, c rune) bool {
	id := p.index(c)
	if id < 0 {
		return false // an all-zero match vector leaves S unchanged
	}
	M := p.masks[id*p.nw : id*p.nw+len(S)]
	var carry uint64
	for w, m := range M {
		s := S[w]
		u := s & m
		x, c2 := bits.Add64(s, u, carry)
		S[w] = x | (s - u)
		carry = c2
	}
	return true
}

// count returns the LCS length encoded in the state S.
func (p *pattern) count(S []uint64) int {
	n := 0
	last := len(S) - 1
	for w := 0; w < last; w++ {
		n += bits.OnesCount64(^S[w])
	}
	return n + bits.OnesCount64(^S[last]&lowMask(p.n))
}

// nth returns s[i], or s[len(s)-1-i] (s read backwards) when rev.
func nth(s []rune, i int, rev bool) rune {
	if rev {
		return s[len(s)-1-i]
	}
	return s[i]
}

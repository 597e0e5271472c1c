package vector

import "math"

// An index made by [NewHalf] stores its rows as IEEE 754 half-precision
// floats (binary16: 11 significant bits): 2 bytes a coordinate instead of
// 4. The stored row is the normalized vector with each coordinate rounded
// to the nearest half (ties to even), and everything the index does — the
// int8 codes and their error bounds, both passes of the search, Get — is
// about that stored row, so the two-pass search still returns exactly
// what a scan of the stored rows returns. Against the float32 row, a
// coordinate is off by at most 2⁻¹¹ of itself (2⁻²⁵ below 2⁻¹⁴, where
// halves are subnormal), so a score, Σ q·x over unit vectors, is off by at
// most 2⁻¹¹ + dim·2⁻²⁵ (5·10⁻⁴ at 384 dimensions), typically 10⁻⁵.

// toHalf returns the binary16 bits nearest f (ties to even); beyond the
// largest half it gives ±Inf, NaN stays NaN.
func toHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	e := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	if e == 0xff { // Inf, NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	exp := e - 127 + 15
	if exp >= 0x1f {
		return sign | 0x7c00
	}
	if exp <= 0 { // a subnormal half, or zero
		if exp < -10 {
			return sign
		}
		m := mant | 0x800000
		shift := uint32(14 - exp)
		h := m >> shift
		rem, half := m&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || rem == half && h&1 == 1 {
			h++ // may carry into the smallest normal: its encoding
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // a carry into the exponent is the next binade, or Inf
	}
	return sign | uint16(h)
}

// fromHalf returns the float32 of the binary16 bits h (exact).
func fromHalf(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch exp {
	case 0:
		v := float32(mant) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// decodeHalves sets dst[i] to the float32 of src[i].
func decodeHalves(src []uint16, dst []float32) {
	dst = dst[:len(src)]
	for i, h := range src {
		dst[i] = fromHalf(h)
	}
}

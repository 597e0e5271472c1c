package vector

import "math"

// An index whose dimension the int8 kernel takes (quantizable) keeps, next
// to each float32 row, an int8 copy with its own scale, and searches in two
// passes that return exactly what a float32 scan returns:
//
//  1. The int8 pass scores every row approximately, a quarter of the bytes
//     of the float32 scan (it is bound by memory bandwidth at 10,000 rows
//     and up), with a bound on each score's error; the k best lower bounds
//     (approximate score minus error) that pass the filter give L, which no
//     k-th best true score can be below.
//  2. The rows whose upper bound (approximate score plus error) reaches L
//     — every row that can be among the k best — are scored again in
//     float32, and the k best of those are the answer.
//
// The error bound of row x (unit) against query q (unit, quantized to int16
// with scale sq) is ‖e‖₂ + sq/2·Σ|sx·c| + slack, where c are the row's int8
// codes, sx its scale and e = x − sx·c its rounding error: the first term
// bounds Σ e·q by Cauchy–Schwarz, the second the query's rounding, the
// slack the float32 arithmetic of both passes.

// maxQuantDim bounds the dimension of the int8 kernel.
const maxQuantDim = 8192

// maxQuery is the largest magnitude of a query code: the products of two
// codes, int16 · int8, must sum within an int32 (see queryCodeMax).
const maxQuery = 16383

// queryCodeMax is the largest query code for dimension dim: dim products of
// at most 127 · queryCodeMax cannot overflow an int32, whatever the
// vectors.
func queryCodeMax(dim int) int { return min(maxQuery, math.MaxInt32/(127*dim)) }

// quantSlack covers the float32 rounding of the two passes' sums (≈ dim ×
// 2⁻²⁴ for unit vectors) with room to spare.
const quantSlack = 1e-4

// quantizeRow writes the int8 codes of the unit vector x into dst, the
// largest magnitude mapped to 127, and returns their scale, the norm of the
// rounding error ‖x − scale·codes‖₂ (rounded up) and Σ|scale·codes|.
// (Smaller scales, clipping the largest coordinates, did not lower the
// error of the builtin embedder's vectors, which have no outliers.)
func quantizeRow(x []float32, dst []int8) (scale, errNorm, l1 float32) {
	var top float32 // x holds no NaN (Set checked it)
	for _, v := range x {
		top = max(top, v, -v)
	}
	if top == 0 {
		clear(dst)
		return 0, 0, 0
	}
	s := float64(top) / 127
	var e2, sum float64
	for i, v := range x {
		c := math.Round(float64(v) / s)
		if c > 127 {
			c = 127
		} else if c < -127 {
			c = -127
		}
		d := float64(v) - s*c
		e2 += d * d
		dst[i] = int8(c)
		sum += math.Abs(c)
	}
	up := func(v float64) float32 { return math.Nextafter32(float32(v), float32(math.Inf(1))) }
	return float32(s), up(math.Sqrt(e2)), up(sum * s)
}

// quantizeQuery writes the int16 codes of q, at most queryCodeMax(len(q))
// in magnitude, into dst and returns their scale (0 for the zero vector).
func quantizeQuery(q []float32, dst []int16) float32 {
	var peak float64
	for _, v := range q {
		peak = math.Max(peak, math.Abs(float64(v)))
	}
	if peak == 0 {
		clear(dst)
		return 0
	}
	s := peak / float64(queryCodeMax(len(q)))
	for i, v := range q {
		dst[i] = int16(math.Round(float64(v) / s))
	}
	return float32(s)
}

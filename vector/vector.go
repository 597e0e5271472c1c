// Package vector holds vector math and an in-memory, exact nearest-neighbour
// index over L2-normalized float32 vectors keyed by int64 IDs.
//
// The index stores every vector in one contiguous []float32 slab (row i is
// slab[i*dim:(i+1)*dim]) so that a search streams memory sequentially; a
// deletion moves the last row into the hole. Search is exact — it returns
// what scoring every row would, score bits included — and runs on two
// goroutines once the index is large enough to pay for them.
//
// On amd64 with AVX2 and FMA, and a dimension that is a multiple of 16
// (every embedder noema ships or calls), the scan is assembly (dots_amd64.s)
// and, from 2,048 rows, takes two passes (quant.go): an int8 copy of every
// row, a quarter of the bytes, bounds each row's score, and only the rows
// that can be among the best k are scored again in float32. A scan of
// 100,000 × 384 float32 reads 150 MB and is bound by memory bandwidth; the
// int8 pass reads 38 MB. BenchmarkSearch and BenchmarkRawScan measure it;
// docs/search.md has the numbers. Elsewhere the scan runs [Dot] a row.
//
// The package has no persistence; callers rebuild the index from their
// store. It imports only the standard library.
package vector

import (
	"errors"
	"fmt"
	"math"
)

// ErrDegenerate is wrapped by errors for vectors that cannot be normalized:
// empty, all zeros, or holding NaN or ±Inf.
var ErrDegenerate = errors.New("degenerate vector")

// Dot returns the dot product of a and b over their common length. It
// accumulates in float32 over four independent lanes so the CPU can overlap
// the multiply-adds; on the reference machine (AMD EPYC, GOAMD64=v1) this is
// 1.7× the plain loop and faster than eight lanes (BenchmarkDot). The
// index's scan uses an assembly kernel where it can.
func Dot(a, b []float32) float32 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= n; i += 4 {
		aa := a[i : i+4 : i+4]
		bb := b[i : i+4 : i+4]
		s0 += aa[0] * bb[0]
		s1 += aa[1] * bb[1]
		s2 += aa[2] * bb[2]
		s3 += aa[3] * bb[3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// norm returns the Euclidean norm of v, computed in float64. It is NaN or
// +Inf when v holds a non-finite value.
func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// IsDegenerate reports whether v cannot serve as a direction: it is empty,
// holds NaN or ±Inf, or has zero norm (the builtin embedder returns the zero
// vector for text with no letters or digits). Such a vector has no
// meaningful cosine with anything; callers should report it rather than
// search with it.
func IsDegenerate(v []float32) bool {
	if len(v) == 0 {
		return true
	}
	n := norm(v)
	return n == 0 || math.IsNaN(n) || math.IsInf(n, 0)
}

// Normalize scales v in place to unit Euclidean length and reports whether it
// could. A degenerate v (see [IsDegenerate]) is left unchanged and Normalize
// returns false.
func Normalize(v []float32) bool {
	n := norm(v)
	if len(v) == 0 || n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return false
	}
	inv := 1 / n
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return true
}

// Cosine returns the cosine similarity of a and b, in [-1, 1], computed in
// float64 without modifying either. It returns 0 when the lengths differ or
// either vector is degenerate.
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) || IsDegenerate(a) || IsDegenerate(b) {
		return 0
	}
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	c := dot / (norm(a) * norm(b))
	return float32(max(-1, min(1, c)))
}

// checkVector returns an error describing why v cannot be stored in an index
// of dimension dim, or nil.
func checkVector(v []float32, dim int) error {
	if len(v) != dim {
		return fmt.Errorf("vector has dimension %d, index wants %d", len(v), dim)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: component %d is %v", ErrDegenerate, i, x)
		}
	}
	if n := norm(v); n == 0 || math.IsInf(n, 0) {
		return fmt.Errorf("%w: norm is %v", ErrDegenerate, n)
	}
	return nil
}

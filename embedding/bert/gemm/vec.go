package gemm

import "math"

// ExpShiftSum replaces each x[i] by exp(x[i]-m) and returns their sum (the
// body of a softmax with m the row's maximum). Arguments below -87.3 give
// about 1e-38 rather than 0.
func ExpShiftSum(x []float32, m float32) float32 {
	n := len(x) &^ 7
	var s float32
	if n > 0 && useVec {
		s = expShiftSumVec(x[:n], m)
	} else {
		n = 0
	}
	for i := n; i < len(x); i++ {
		e := Expf(x[i] - m)
		x[i] = e
		s += e
	}
	return s
}

// GeluErf applies the exact GELU, x·½·(1+erf(x/√2)), in place.
func GeluErf(x []float32) {
	n := len(x) &^ 7
	if n > 0 && useVec {
		geluErfVec(x[:n])
	} else {
		n = 0
	}
	for i := n; i < len(x); i++ {
		v := x[i]
		x[i] = 0.5 * v * (1 + Erff(v*0.70710678118654752))
	}
}

// Expf is exp for float32: range reduction by ln 2 and a degree-6
// polynomial (Cephes expf), within 2 ulp of math.Exp; below -87.34 it
// returns 0.
func Expf(x float32) float32 {
	if x > 88.72283 {
		return float32(math.Inf(1))
	}
	if x < -87.33654 {
		return 0
	}
	const (
		log2e = 1.44269504088896341
		c1    = 0.693359375
		c2    = -2.12194440e-4
	)
	fx := float32(math.Floor(float64(x*log2e + 0.5)))
	r := x - fx*c1
	r -= fx * c2
	r2 := r * r
	p := float32(1.9875691500e-4)
	p = p*r + 1.3981999507e-3
	p = p*r + 8.3334519073e-3
	p = p*r + 4.1665795894e-2
	p = p*r + 1.6666665459e-1
	p = p*r + 5.0000001201e-1
	y := p*r2 + r + 1
	return y * math.Float32frombits(uint32(int32(fx)+127)<<23)
}

// Erff is erf for float32 (a rational approximation on [-4, 4], as in
// Eigen), within a few ulp of math.Erf.
func Erff(x float32) float32 {
	if x > 4 {
		x = 4
	} else if x < -4 {
		x = -4
	}
	x2 := x * x
	p := float32(-2.72614225801306e-10)
	p = p*x2 + 2.77068142495902e-08
	p = p*x2 + -2.10102402082508e-06
	p = p*x2 + -5.69250639462346e-05
	p = p*x2 + -7.34990630326855e-04
	p = p*x2 + -2.95459980854025e-03
	p = p*x2 + -1.60960333262415e-02
	p *= x
	q := float32(-1.45660718464996e-05)
	q = q*x2 + -2.13374055278905e-04
	q = q*x2 + -1.68282697438203e-03
	q = q*x2 + -7.37332916720468e-03
	q = q*x2 + -1.42647390514189e-02
	return p / q
}

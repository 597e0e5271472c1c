package bert

import "math"

// expf is exp for float32: range reduction by ln 2 and a degree-6
// polynomial (Cephes expf), within 2 ulp of math.Exp over the float32
// range; below -87 it returns 0.
func expf(x float32) float32 {
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

// erff is erf for float32 (a rational approximation on [-4, 4], as in
// Eigen), within a few ulp of math.Erf.
func erff(x float32) float32 {
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

// gelu applies the exact (erf) GELU in place: x·½·(1+erf(x/√2)).
func gelu(v []float32) {
	for i, x := range v {
		v[i] = 0.5 * x * (1 + erff(x*0.70710678118654752))
	}
}

// geluTanh applies the tanh approximation of GELU in place.
func geluTanh(v []float32) {
	for i, x := range v {
		u := 0.7978845608028654 * (x + 0.044715*x*x*x)
		// tanh(u) = 1 - 2/(exp(2u)+1)
		t := 1 - 2/(expf(2*u)+1)
		v[i] = 0.5 * x * (1 + t)
	}
}

// softmax replaces the row with its softmax.
func softmax(row []float32) {
	m := row[0]
	for _, v := range row[1:] {
		if v > m {
			m = v
		}
	}
	var s float32
	for i, v := range row {
		e := expf(v - m)
		row[i] = e
		s += e
	}
	inv := 1 / s
	for i := range row {
		row[i] *= inv
	}
}

// layerNorm normalises each row of x (rows×n, contiguous) in place and
// applies gain and bias.
func layerNorm(x []float32, n int, gain, bias []float32, eps float32) {
	for off := 0; off+n <= len(x); off += n {
		row := x[off : off+n]
		var sum float64
		for _, v := range row {
			sum += float64(v)
		}
		mean := sum / float64(n)
		var ss float64
		for _, v := range row {
			d := float64(v) - mean
			ss += d * d
		}
		inv := float32(1 / math.Sqrt(ss/float64(n)+float64(eps)))
		m := float32(mean)
		for i, v := range row {
			row[i] = (v-m)*inv*gain[i] + bias[i]
		}
	}
}

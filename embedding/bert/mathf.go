package bert

import (
	"math"

	"github.com/noema-mem/noema/embedding/bert/gemm"
)

// gelu applies the exact (erf) GELU in place.
func gelu(v []float32) { gemm.GeluErf(v) }

// geluTanh applies the tanh approximation of GELU in place.
func geluTanh(v []float32) {
	for i, x := range v {
		u := 0.7978845608028654 * (x + 0.044715*x*x*x)
		// tanh(u) = 1 - 2/(exp(2u)+1)
		t := 1 - 2/(gemm.Expf(2*u)+1)
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
	inv := 1 / gemm.ExpShiftSum(row, m)
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

package gemm

import (
	"math"
	"testing"
)

func TestExpShiftSum(t *testing.T) {
	for _, n := range []int{1, 7, 8, 9, 64, 77} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(math.Sin(float64(i)*1.7)*40 - 20)
		}
		m := float32(3)
		want := make([]float64, n)
		var wsum float64
		for i, v := range x {
			want[i] = math.Exp(float64(v - m))
			wsum += want[i]
		}
		got := append([]float32(nil), x...)
		s := ExpShiftSum(got, m)
		for i := range got {
			if d := math.Abs(float64(got[i])-want[i]) / (want[i] + 1e-37); d > 1e-6 {
				t.Fatalf("n=%d x=%g: exp %g, want %g", n, x[i]-m, got[i], want[i])
			}
		}
		if math.Abs(float64(s)-wsum)/wsum > 1e-6 {
			t.Fatalf("n=%d: sum %g, want %g", n, s, wsum)
		}
	}
	x := []float32{-200, -100, -90, 0, 0, 0, 0, 0}
	ExpShiftSum(x, 0)
	if x[0] > 1e-37 || x[3] != 1 {
		t.Fatalf("%v", x)
	}
}

func TestGeluErf(t *testing.T) {
	n := 4001
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i-n/2) / 250
	}
	got := append([]float32(nil), x...)
	GeluErf(got)
	for i, v := range x {
		want := 0.5 * float64(v) * (1 + math.Erf(float64(v)/math.Sqrt2))
		if d := math.Abs(float64(got[i]) - want); d > 2e-6*(1+math.Abs(want)) {
			t.Fatalf("gelu(%g) = %g, want %g", v, got[i], want)
		}
	}
}

func BenchmarkExpShiftSum(b *testing.B) {
	x := make([]float32, 256)
	for b.Loop() {
		for i := range x {
			x[i] = float32(i%17) - 20
		}
		ExpShiftSum(x, 0)
	}
}

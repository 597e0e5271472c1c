package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDots checks the batch kernel (assembly where the CPU has it) against
// a float64 reference, for dimensions the kernel takes and the ones it
// leaves to Go, and row counts around its four-row step.
func TestDots(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{1, 7, 16, 32, 48, 384, 385, 768, 1536} {
		for _, n := range []int{0, 1, 3, 4, 5, 8, 9, 257} {
			q := make([]float32, dim)
			rows := make([]float32, n*dim)
			for i := range q {
				q[i] = float32(rng.NormFloat64())
			}
			for i := range rows {
				rows[i] = float32(rng.NormFloat64())
			}
			out := make([]float32, n)
			dots(q, rows, out)
			for i := range n {
				var want, mag float64
				for j := range dim {
					p := float64(q[j]) * float64(rows[i*dim+j])
					want += p
					mag += math.Abs(p)
				}
				if d := math.Abs(float64(out[i]) - want); d > 1e-5*mag+1e-6 {
					t.Fatalf("dim %d, %d rows: row %d = %v, want %v (|diff| %g)", dim, n, i, out[i], want, d)
				}
			}
		}
	}
}

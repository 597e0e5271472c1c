package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/noema-mem/noema/internal/cputime"
)

func naive(c []float32, ldc int, a []float32, lda, m int, b []float32, ldb, k, n int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for kk := 0; kk < k; kk++ {
				s += float64(a[i*lda+kk]) * float64(b[kk*ldb+j])
			}
			c[i*ldc+j] += float32(s)
		}
	}
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func TestMulAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{1, 5, 6, 7, 13, 64} {
		for _, n := range []int{1, 15, 16, 17, 31, 32, 33, 40, 70} {
			for _, k := range []int{0, 1, 3, 32, 100} {
				t.Run(fmt.Sprintf("m%d_n%d_k%d", m, n, k), func(t *testing.T) {
					lda, ldb, ldc := k+3, n+2, n+5
					a := randSlice(r, m*lda+1)
					b := randSlice(r, k*ldb+1)
					c0 := randSlice(r, m*ldc)
					want := append([]float32(nil), c0...)
					naive(want, ldc, a, lda, m, b, ldb, k, n)
					for _, par := range []int{1, 2, 3} {
						got := append([]float32(nil), c0...)
						MulAddParallel(got, ldc, a, lda, m, Pack(nil, b, k, n, ldb), par)
						check(t, got, want, float64(k))
						// The same through PackT of the transpose.
						bt := make([]float32, n*k)
						for kk := 0; kk < k; kk++ {
							for j := 0; j < n; j++ {
								bt[j*k+kk] = b[kk*ldb+j]
							}
						}
						got = append([]float32(nil), c0...)
						MulAdd(got, ldc, a, lda, m, PackT(nil, bt, n, k, k))
						check(t, got, want, float64(k))
					}
				})
			}
		}
	}
}

func check(t *testing.T, got, want []float32, k float64) {
	t.Helper()
	tol := 1e-5 * (k + 1)
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); d > tol*(1+math.Abs(float64(want[i]))) {
			t.Fatalf("element %d: got %g want %g", i, got[i], want[i])
		}
	}
}

// BenchmarkMulAdd reports GFLOP/s for the shapes of a MiniLM layer.
func BenchmarkMulAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range []struct{ m, k, n, workers int }{
		{256, 384, 384, 1}, {256, 384, 1536, 1}, {256, 1536, 384, 1}, {256, 384, 1536, 2}, {8, 384, 1536, 1},
	} {
		b.Run(fmt.Sprintf("%dx%dx%d/workers=%d/%s", s.m, s.k, s.n, s.workers, KernelName()), func(b *testing.B) {
			a := randSlice(r, s.m*s.k)
			w := randSlice(r, s.n*s.k)
			p := PackT(nil, w, s.n, s.k, s.k)
			c := make([]float32, s.m*s.n)
			b.ResetTimer()
			cpu0 := cputime.Process()
			for b.Loop() {
				MulAddParallel(c, s.n, a, s.k, s.m, p, s.workers)
			}
			flops := 2 * float64(s.m*s.k*s.n) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			// Per CPU-second: what the kernel does when it has the core, on a
			// machine shared with other work.
			if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(flops/cpu/1e9, "GFLOP/cpu-s")
			}
		})
	}
}

//go:build !purego

package gemm

var (
	mr         = goMR
	panelWidth = NR
)

//go:noescape
func kernel6x16NEON(k int, a *float32, lda int, b *float32, c *float32, ldc int)

func kernel(k int, a []float32, lda int, panel []float32, c []float32, ldc int) {
	_ = a[(goMR-1)*lda+k-1]
	_ = panel[k*NR-1]
	_ = c[(goMR-1)*ldc+NR-1]
	kernel6x16NEON(k, &a[0], lda, &panel[0], &c[0], ldc)
}

// Accelerated reports whether an assembly kernel is in use.
func Accelerated() bool { return true }

// KernelName names the micro-kernel in use.
func KernelName() string { return "neon 6x16" }

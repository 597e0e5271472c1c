//go:build !purego

package gemm

import "golang.org/x/sys/cpu"

var (
	useAVX2    = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	useAVX512  = cpu.X86.HasAVX512F && useAVX2 && !noAVX512
	mr         = goMR
	panelWidth = NR
)

func init() {
	if useAVX512 {
		mr, panelWidth = 12, maxNR
	}
}

//go:noescape
func kernel6x16AVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int)

//go:noescape
func kernel12x32AVX512(k int, a *float32, lda int, b *float32, c *float32, ldc int)

func kernel(k int, a []float32, lda int, panel []float32, c []float32, ldc int) {
	switch {
	case useAVX512:
		_ = a[(12-1)*lda+k-1]
		_ = panel[k*maxNR-1]
		_ = c[(12-1)*ldc+maxNR-1]
		kernel12x32AVX512(k, &a[0], lda, &panel[0], &c[0], ldc)
	case useAVX2:
		_ = a[(goMR-1)*lda+k-1]
		_ = panel[k*NR-1]
		_ = c[(goMR-1)*ldc+NR-1]
		kernel6x16AVX2(k, &a[0], lda, &panel[0], &c[0], ldc)
	default:
		kernelGo(k, a, lda, panel, c, ldc)
	}
}

// Accelerated reports whether an assembly kernel is in use.
func Accelerated() bool { return useAVX2 }

// KernelName names the micro-kernel in use.
func KernelName() string {
	switch {
	case useAVX512:
		return "avx512 12x32"
	case useAVX2:
		return "avx2-fma 6x16"
	}
	return "go"
}

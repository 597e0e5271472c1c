//go:build !purego

package gemm

import "golang.org/x/sys/cpu"

var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func kernel6x16AVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int)

func kernel(k int, a []float32, lda int, panel []float32, c []float32, ldc int) {
	if useAVX2 {
		_ = a[(MR-1)*lda+k-1]
		_ = panel[k*NR-1]
		_ = c[(MR-1)*ldc+NR-1]
		kernel6x16AVX2(k, &a[0], lda, &panel[0], &c[0], ldc)
		return
	}
	kernelGo(k, a, lda, panel, c, ldc)
}

// Accelerated reports whether an assembly kernel is in use.
func Accelerated() bool { return useAVX2 }

// KernelName names the micro-kernel in use.
func KernelName() string {
	if useAVX2 {
		return "avx2-fma 6x16"
	}
	return "go"
}

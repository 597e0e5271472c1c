//go:build (!amd64 && !arm64) || purego

package gemm

// KernelName names the micro-kernel in use.
func KernelName() string { return "go" }

var (
	mr         = goMR
	panelWidth = NR
)

func kernel(k int, a []float32, lda int, panel []float32, c []float32, ldc int) {
	kernelGo(k, a, lda, panel, c, ldc)
}

// Accelerated reports whether an assembly kernel is in use.
func Accelerated() bool { return false }

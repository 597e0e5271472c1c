//go:build !purego

package gemm

var useVec = useAVX2

//go:noescape
func expShiftSumAVX2(x *float32, n int, m float32) float32

//go:noescape
func geluErfAVX2(x *float32, n int)

func expShiftSumVec(x []float32, m float32) float32 { return expShiftSumAVX2(&x[0], len(x), m) }
func geluErfVec(x []float32)                        { geluErfAVX2(&x[0], len(x)) }

//go:build !noavx512

package gemm

const noAVX512 = false

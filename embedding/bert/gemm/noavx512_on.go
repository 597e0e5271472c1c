//go:build noavx512

package gemm

// noAVX512 (build tag noavx512) keeps the AVX2 kernel on CPUs that have
// AVX-512, for comparisons.
const noAVX512 = true

//go:build !purego

package vector

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel of dots.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dots4AVX2(q *float32, rows *float32, dim int, out *float32)

// dots sets out[i] to the dot product of q with row i of rows (rows holds
// len(out) rows of len(q) values each).
func dots(q, rows, out []float32) {
	dim := len(q)
	if !useAVX2 || dim == 0 || dim%16 != 0 {
		dotsGo(q, rows, out)
		return
	}
	n := len(out)
	if n == 0 {
		return
	}
	_ = rows[n*dim-1]
	i := 0
	for ; i+4 <= n; i += 4 {
		dots4AVX2(&q[0], &rows[i*dim], dim, &out[i])
	}
	for ; i < n; i++ {
		out[i] = Dot(q, rows[i*dim:(i+1)*dim])
	}
}

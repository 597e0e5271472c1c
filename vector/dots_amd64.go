//go:build !purego

package vector

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel of dots.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dots4AVX2(q *float32, rows *float32, dim int, out *float32)

//go:noescape
func dot1AVX2(q *float32, row *float32, dim int) float32

//go:noescape
func dots4I8AVX2(q *int16, rows *int8, dim int, out *int32)

// fits reports whether the float32 kernels take dimension dim.
func fits(dim int) bool { return useAVX2 && dim > 0 && dim%16 == 0 }

// quantizable reports whether an index of dimension dim keeps int8 copies
// of its rows for a first, approximate pass (see quant.go): the CPU has the
// kernel and the dimension fits it.
func quantizable(dim int) bool { return fits(dim) && dim <= maxQuantDim }

// dot1 is the dot product of q with row, with the kernel dots uses, so a
// row scores the same whichever of them computes it.
func dot1(q, row []float32) float32 {
	dim := len(q)
	if !fits(dim) {
		return Dot(q, row)
	}
	_ = row[dim-1]
	return dot1AVX2(&q[0], &row[0], dim)
}

// dotsI8 sets out[i] to the dot product of q with int8 row i of rows; the
// caller checked quantizable(len(q)).
func dotsI8(q []int16, rows []int8, out []int32) {
	if len(out) == 0 {
		return
	}
	dim := len(q)
	_ = rows[len(out)*dim-1]
	inFours(len(out), func(i int) { dots4I8AVX2(&q[0], &rows[i*dim], dim, &out[i]) },
		func(i int) { dotsI8Go(q, rows[i*dim:(i+1)*dim], out[i:i+1]) })
}

// dots sets out[i] to the dot product of q with row i of rows (rows holds
// len(out) rows of len(q) values each).
func dots(q, rows, out []float32) {
	dim := len(q)
	if !fits(dim) || len(out) == 0 {
		dotsGo(q, rows, out)
		return
	}
	_ = rows[len(out)*dim-1]
	inFours(len(out), func(i int) { dots4AVX2(&q[0], &rows[i*dim], dim, &out[i]) },
		func(i int) { out[i] = dot1AVX2(&q[0], &rows[i*dim], dim) })
}

// inFours calls four(i) for i = 0, 4, 8, … while four rows from i remain of
// n, then one(i) for each row left.
func inFours(n int, four, one func(i int)) {
	i := 0
	for ; i+4 <= n; i += 4 {
		four(i)
	}
	for ; i < n; i++ {
		one(i)
	}
}

package vector

import (
	"math/rand/v2"
	"testing"
)

// TestGrowReservesRows: after Grow(n), n Sets reallocate none of the
// index's storage (a reload of a million concept vectors holds them once),
// and the index answers as one grown row by row.
func TestGrowReservesRows(t *testing.T) {
	const dim, n = 64, 1000
	r := rand.New(rand.NewPCG(1, 2))
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = float32(r.NormFloat64())
		}
	}
	for _, mk := range []func(int) *Index{New, NewHalf} {
		x, y := mk(dim), mk(dim)
		x.Grow(n)
		slab, hslab, ids := cap(x.slab), cap(x.hslab), cap(x.ids)
		for i, v := range vecs {
			if err := x.Set(int64(i), v); err != nil {
				t.Fatal(err)
			}
			if err := y.Set(int64(i), v); err != nil {
				t.Fatal(err)
			}
		}
		if cap(x.slab) != slab || cap(x.hslab) != hslab || cap(x.ids) != ids || cap(x.ids) < n {
			t.Errorf("half=%v: storage reallocated after Grow(%d): ids cap %d -> %d", x.half, n, ids, cap(x.ids))
		}
		for i := range 20 {
			a, b := x.Search(vecs[i], 5, nil), y.Search(vecs[i], 5, nil)
			if len(a) != len(b) || a[0] != b[0] {
				t.Errorf("half=%v: grown index answers %v, want %v", x.half, a, b)
			}
		}
	}
}

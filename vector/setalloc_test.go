package vector_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/noema-mem/noema/vector"
)

// TestGrowLoadsWithoutGarbage: after Grow(n), storing n vectors allocates
// nothing (no copy of the row, no growth of the storage), in float32 and
// half indexes, and the index holds what a plain one holds.
func TestGrowLoadsWithoutGarbage(t *testing.T) {
	const dim, n = 384, 64
	r := rand.New(rand.NewPCG(7, 0))
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = randomVector(r, dim)
	}
	for _, mk := range []func(int) *vector.Index{vector.New, vector.NewHalf} {
		plain, grown := mk(dim), mk(dim)
		for i, v := range vecs {
			if err := plain.Set(int64(i), v); err != nil {
				t.Fatal(err)
			}
		}
		grown.Grow(n)
		i := 0
		allocs := testing.AllocsPerRun(n-1, func() {
			if err := grown.Set(int64(i), vecs[i]); err != nil {
				t.Fatal(err)
			}
			i++
		})
		// AllocsPerRun runs the function once more before measuring.
		if allocs != 0 {
			t.Errorf("Set after Grow: %.1f allocations a vector, want 0", allocs)
		}
		if grown.Len() != n {
			t.Fatalf("grown index holds %d vectors, want %d", grown.Len(), n)
		}
		for id := range int64(n) {
			a, _ := plain.Get(id)
			b, _ := grown.Get(id)
			if !slices.Equal(a, b) {
				t.Fatalf("vector %d differs between a grown and a plain index", id)
			}
		}
		q := randomVector(r, dim)
		if a, b := plain.Search(q, 10, nil), grown.Search(q, 10, nil); !slices.Equal(a, b) {
			t.Errorf("search: grown %v, plain %v", b, a)
		}
		// Replacing a vector allocates nothing either.
		if allocs := testing.AllocsPerRun(10, func() { _ = grown.Set(3, vecs[5]) }); allocs != 0 {
			t.Errorf("replacing a vector: %.1f allocations, want 0", allocs)
		}
	}
}

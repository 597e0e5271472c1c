package vector

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// clustered returns n unit-ish vectors around a few centres, so that many
// rows score close to each other and to the k-th best: the hard case for
// the two-pass search.
func clustered(r *rand.Rand, n, dim, centres int, spread float64) [][]float32 {
	cs := make([][]float64, centres)
	for i := range cs {
		cs[i] = make([]float64, dim)
		for j := range cs[i] {
			cs[i][j] = r.NormFloat64()
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := cs[r.IntN(centres)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(c[j] + spread*r.NormFloat64())
		}
		if i%97 == 0 { // a few spiky rows, whose other coordinates round coarsely
			v[r.IntN(dim)] *= 40
		}
		out[i] = v
	}
	return out
}

// TestQuantizedSearchIsExact checks that the two-pass int8 route returns
// exactly what the float32 scan returns (same rows, same score bits, same
// order), with replacements, deletions, filters and k from 1 to past n.
func TestQuantizedSearchIsExact(t *testing.T) {
	if !quantizable(384) {
		t.Skip("no int8 kernel on this CPU/architecture")
	}
	for _, tc := range []struct {
		n, dim, centres int
		spread          float64
	}{
		{2700, 384, 3, 0.3},
		{5000, 384, 8, 1},
		{20000, 384, 20, 0.5}, // the parallel path
		{3000, 768, 4, 0.2},
		{3200, 16, 2, 0.5},
	} {
		r := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.dim)))
		quant, plain := New(tc.dim), New(tc.dim)
		plain.quant = false
		vs := clustered(r, tc.n, tc.dim, tc.centres, tc.spread)
		for i, v := range vs {
			id := int64(i)
			if i%5 == 4 { // replace an earlier row
				id = int64(r.IntN(i))
			}
			for _, x := range []*Index{quant, plain} {
				if err := x.Set(id, v); err != nil {
					t.Fatal(err)
				}
			}
			if i%11 == 0 {
				del := int64(r.IntN(i + 1))
				if quant.Delete(del) != plain.Delete(del) {
					t.Fatal("Delete disagrees")
				}
			}
		}
		if quant.Len() < quantMinRows {
			t.Fatalf("n=%d: only %d rows, below the two-pass size", tc.n, quant.Len())
		}
		even := func(id int64) bool { return id%2 == 0 }
		rare := func(id int64) bool { return id%500 == 0 }
		queries := clustered(r, 12, tc.dim, tc.centres, tc.spread)
		for qi, q := range queries {
			for _, k := range []int{1, 10, 800, tc.n + 5} {
				for fi, filter := range []func(int64) bool{nil, even, rare} {
					got := quant.Search(q, k, filter)
					want := plain.Search(q, k, filter)
					if len(got) != len(want) {
						t.Fatalf("n=%d dim=%d q%d k=%d filter %d: %d hits, want %d", tc.n, tc.dim, qi, k, fi, len(got), len(want))
					}
					for i := range got {
						if got[i].ID != want[i].ID || math.Float32bits(got[i].Score) != math.Float32bits(want[i].Score) {
							t.Fatalf("n=%d dim=%d q%d k=%d filter %d, hit %d: %v, want %v", tc.n, tc.dim, qi, k, fi, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestQuantErrorBound checks the bound the two-pass search relies on: the
// approximate score of a row is within errBound of its float32 score.
func TestQuantErrorBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dim := range []int{16, 384, 1536} {
		x := New(dim)
		x.quant = true
		rows := clustered(r, 300, dim, 3, 0.5)
		for i, v := range rows {
			if err := x.Set(int64(i), v); err != nil {
				t.Fatal(err)
			}
		}
		qi := make([]int16, dim)
		sums := make([]int32, 1)
		worst := 0.0
		for _, q := range clustered(r, 30, dim, 3, 0.5) {
			qn := slices.Clone(q)
			Normalize(qn)
			sq := quantizeQuery(qn, qi)
			for row := range x.Len() {
				dotsI8Go(qi, x.codes[row*dim:(row+1)*dim], sums)
				approx := float64(float32(sums[0]) * sq * x.scale[row])
				var exact float64
				for j, v := range x.slab[row*dim : (row+1)*dim] {
					exact += float64(v) * float64(qn[j])
				}
				off := math.Abs(approx - exact)
				if b := float64(x.errBound(row, sq)); off > b {
					t.Fatalf("dim %d row %d: approximate score off by %g, bound %g", dim, row, off, b)
				} else {
					worst = max(worst, off/b)
				}
			}
		}
		t.Logf("dim %d: the largest error is %.0f%% of its bound", dim, 100*worst)
	}
}

// TestDotsI8 checks the int8 kernel against the Go loop, with the extreme
// codes.
func TestDotsI8(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{16, 384, 8192} {
		for _, n := range []int{1, 4, 7, 9} {
			q := make([]int16, dim)
			rows := make([]int8, n*dim)
			qmax := queryCodeMax(dim)
			for i := range q {
				q[i] = int16(r.IntN(2*qmax+1) - qmax)
			}
			for i := range rows {
				rows[i] = int8(r.IntN(255) - 127)
			}
			if dim == 8192 { // the worst case for overflow
				for i := range q {
					q[i] = int16(qmax)
				}
				for i := range rows {
					rows[i] = -127
				}
			}
			got, want := make([]int32, n), make([]int32, n)
			if quantizable(dim) {
				dotsI8(q, rows, got)
			} else {
				dotsI8Go(q, rows, got)
			}
			for i := range want {
				var s int64
				for j, c := range rows[i*dim : (i+1)*dim] {
					s += int64(c) * int64(q[j])
				}
				if s != int64(int32(s)) {
					t.Fatalf("dim %d: the sum %d overflows an int32", dim, s)
				}
				want[i] = int32(s)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("dim %d, %d rows: %v, want %v", dim, n, got, want)
			}
		}
	}
}

package vector_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/noema-mem/noema/vector"
)

func TestDot(t *testing.T) {
	for n := range 40 {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range n {
			a[i], b[i] = float32(i+1), float32(n-i)
			want += float64(a[i]) * float64(b[i])
		}
		if got := vector.Dot(a, b); float64(got) != want {
			t.Errorf("Dot(len %d) = %v, want %v", n, got, want)
		}
	}
	if got := vector.Dot([]float32{1, 2, 3}, []float32{4, 5}); got != 14 {
		t.Errorf("Dot over the common length = %v, want 14", got)
	}
}

func TestNormalizeAndDegenerate(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	scenarios := []struct {
		Name       string
		V          []float32
		Degenerate bool
	}{
		{"nil", nil, true},
		{"empty", []float32{}, true},
		{"zero", []float32{0, 0, 0}, true},
		{"NaN", []float32{1, nan, 0}, true},
		{"+Inf", []float32{1, inf, 0}, true},
		{"-Inf", []float32{-inf, 0, 0}, true},
		{"unit", []float32{0, 1, 0}, false},
		{"tiny", []float32{1e-30, 0, 0}, false},
		{"huge", []float32{3e38, 3e38, 0}, false},
		{"negative", []float32{-3, 4}, false},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			if got := vector.IsDegenerate(sc.V); got != sc.Degenerate {
				t.Fatalf("IsDegenerate = %v, want %v", got, sc.Degenerate)
			}
			v := slices.Clone(sc.V)
			ok := vector.Normalize(v)
			if ok == sc.Degenerate {
				t.Fatalf("Normalize = %v, want %v", ok, !sc.Degenerate)
			}
			if !ok {
				if !slices.EqualFunc(v, sc.V, func(a, b float32) bool { return a == b || a != a && b != b }) {
					t.Fatalf("Normalize changed a degenerate vector: %v", v)
				}
				return
			}
			var s float64
			for _, x := range v {
				s += float64(x) * float64(x)
			}
			if math.Abs(s-1) > 1e-6 {
				t.Fatalf("norm² after Normalize = %v", s)
			}
		})
	}
}

func TestCosine(t *testing.T) {
	scenarios := []struct {
		Name string
		A, B []float32
		Want float32
	}{
		{"same direction", []float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{"opposite", []float32{1, 0}, []float32{-5, 0}, -1},
		{"orthogonal", []float32{1, 0}, []float32{0, 3}, 0},
		{"45 degrees", []float32{1, 0}, []float32{1, 1}, float32(math.Sqrt2 / 2)},
		{"length mismatch", []float32{1, 0}, []float32{1, 0, 0}, 0},
		{"degenerate", []float32{0, 0}, []float32{1, 0}, 0},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			if got := vector.Cosine(sc.A, sc.B); math.Abs(float64(got-sc.Want)) > 1e-6 {
				t.Fatalf("Cosine = %v, want %v", got, sc.Want)
			}
		})
	}
}

func TestIndexSetErrors(t *testing.T) {
	x := vector.New(3)
	scenarios := []struct {
		Name       string
		V          []float32
		WantErr    string
		Degenerate bool
	}{
		{"short", []float32{1, 2}, "dimension 2, index wants 3", false},
		{"long", []float32{1, 2, 3, 4}, "dimension 4, index wants 3", false},
		{"zero", []float32{0, 0, 0}, "norm is 0", true},
		{"NaN", []float32{0, float32(math.NaN()), 1}, "component 1 is NaN", true},
		{"Inf", []float32{float32(math.Inf(-1)), 0, 1}, "component 0 is -Inf", true},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			err := x.Set(7, sc.V)
			if err == nil || !strings.Contains(err.Error(), sc.WantErr) || !strings.Contains(err.Error(), "set 7") {
				t.Fatalf("Set = %v, want an error mentioning id 7 and %q", err, sc.WantErr)
			}
			if got := errors.Is(err, vector.ErrDegenerate); got != sc.Degenerate {
				t.Fatalf("errors.Is(err, ErrDegenerate) = %v, want %v", got, sc.Degenerate)
			}
			if x.Len() != 0 {
				t.Fatalf("a rejected Set changed the index")
			}
		})
	}
}

func TestIndexSetGetDelete(t *testing.T) {
	x := vector.New(2)
	in := []float32{3, 4}
	if err := x.Set(1, in); err != nil {
		t.Fatal(err)
	}
	if in[0] != 3 || in[1] != 4 {
		t.Fatalf("Set modified its argument: %v", in)
	}
	got, ok := x.Get(1)
	if !ok || math.Abs(float64(got[0])-0.6) > 1e-7 || math.Abs(float64(got[1])-0.8) > 1e-7 {
		t.Fatalf("Get(1) = %v, %v; want normalized [0.6 0.8]", got, ok)
	}
	got[0] = 99 // a copy: must not reach the index
	if again, _ := x.Get(1); again[0] == 99 {
		t.Fatal("Get returned the index's storage, not a copy")
	}
	if err := x.Set(1, []float32{0, -2}); err != nil { // replace
		t.Fatal(err)
	}
	if x.Len() != 1 {
		t.Fatalf("Len after replace = %d, want 1", x.Len())
	}
	if v, _ := x.Get(1); v[0] != 0 || v[1] != -1 {
		t.Fatalf("replaced vector = %v, want [0 -1]", v)
	}
	if _, ok := x.Get(2); ok {
		t.Fatal("Get(2) found a missing id")
	}
	if x.Delete(2) {
		t.Fatal("Delete(2) reported a missing id as deleted")
	}
	if !x.Delete(1) || x.Len() != 0 {
		t.Fatal("Delete(1) did not remove the only vector")
	}
	if hits := x.Search([]float32{0, 1}, 3, nil); hits != nil {
		t.Fatalf("Search on an empty index = %v", hits)
	}
}

// model is a map-based reference implementation the index is checked against.
type model map[int64][]float32

func (m model) search(q []float32, k int, filter func(int64) bool) []vector.Hit {
	var hits []vector.Hit
	for id, v := range m {
		if filter == nil || filter(id) {
			qn := slices.Clone(q)
			vector.Normalize(qn)
			hits = append(hits, vector.Hit{ID: id, Score: vector.Dot(qn, v)})
		}
	}
	slices.SortFunc(hits, func(a, b vector.Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return int(a.ID - b.ID)
	})
	return hits[:min(k, len(hits))]
}

// randomVector returns a vector with coordinates from a small set, so that
// exact score ties are common.
func randomVector(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.IntN(3) - 1)
	}
	if vector.IsDegenerate(v) {
		v[0] = 1
	}
	return v
}

func TestIndexMatchesModel(t *testing.T) {
	for _, n := range []int{0, 1, 5, 100, 20000} { // 20000 takes the parallel path
		r := rand.New(rand.NewPCG(uint64(n), 1))
		const dim = 8
		x, m := vector.New(dim), model{}
		for i := range n {
			id := int64(r.IntN(2*n + 1))
			v := randomVector(r, dim)
			if err := x.Set(id, v); err != nil {
				t.Fatal(err)
			}
			vector.Normalize(v)
			m[id] = v
			if i%3 == 0 { // interleave deletions to exercise swap-delete
				del := int64(r.IntN(2*n + 1))
				_, had := m[del]
				if x.Delete(del) != had {
					t.Fatalf("Delete(%d) disagrees with the model", del)
				}
				delete(m, del)
			}
		}
		if x.Len() != len(m) {
			t.Fatalf("n=%d: Len = %d, model has %d", n, x.Len(), len(m))
		}
		for id, want := range m {
			got, ok := x.Get(id)
			if !ok || !slices.Equal(got, want) {
				t.Fatalf("n=%d: Get(%d) = %v, %v; want %v", n, id, got, ok, want)
			}
		}
		even := func(id int64) bool { return id%2 == 0 }
		for _, k := range []int{1, 3, 10, 50, n + 5} {
			for _, filter := range []func(int64) bool{nil, even} {
				q := randomVector(r, dim)
				q[0] *= 3 // not normalized
				got := x.Search(q, k, filter)
				want := m.search(q, k, filter)
				if !equalHits(got, want) {
					t.Fatalf("n=%d k=%d filter=%v:\n got %v\nwant %v", n, k, filter != nil, head(got), head(want))
				}
			}
		}
	}
}

func equalHits(a, b []vector.Hit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || math.Abs(float64(a[i].Score-b[i].Score)) > 1e-6 {
			return false
		}
	}
	return true
}

func head(h []vector.Hit) []vector.Hit { return h[:min(len(h), 8)] }

func TestSearchOrdering(t *testing.T) {
	x := vector.New(2)
	for id, v := range map[int64][]float32{
		5: {1, 0}, 3: {2, 0}, 9: {1, 0}, // three exact ties at score 1
		4: {1, 1}, 8: {0, 1}, 1: {-1, 0},
	} {
		if err := x.Set(id, v); err != nil {
			t.Fatal(err)
		}
	}
	got := x.Search([]float32{10, 0}, 10, nil)
	wantIDs := []int64{3, 5, 9, 4, 8, 1}
	var ids []int64
	for _, h := range got {
		ids = append(ids, h.ID)
	}
	if !slices.Equal(ids, wantIDs) {
		t.Fatalf("Search order = %v, want %v (score desc, then id asc)", ids, wantIDs)
	}
	if got[0].Score != 1 || got[5].Score != -1 {
		t.Fatalf("scores = %v, want cosine 1 … -1", got)
	}
	if top := x.Search([]float32{1, 0}, 2, nil); len(top) != 2 || top[0].ID != 3 || top[1].ID != 5 {
		t.Fatalf("top 2 of tied = %v, want ids 3, 5", top)
	}
	onlyOdd := x.Search([]float32{1, 0}, 2, func(id int64) bool { return id%2 == 1 })
	if len(onlyOdd) != 2 || onlyOdd[0].ID != 3 || onlyOdd[1].ID != 5 {
		t.Fatalf("filtered = %v, want ids 3, 5", onlyOdd)
	}
	none := x.Search([]float32{1, 0}, 2, func(int64) bool { return false })
	if len(none) != 0 {
		t.Fatalf("filter rejecting all = %v", none)
	}
	for name, q := range map[string][]float32{"wrong dim": {1, 0, 0}, "zero": {0, 0}, "NaN": {float32(math.NaN()), 1}} {
		if h := x.Search(q, 3, nil); h != nil {
			t.Errorf("Search(%s) = %v, want nil", name, h)
		}
	}
	if h := x.Search([]float32{1, 0}, 0, nil); h != nil {
		t.Errorf("Search(k=0) = %v, want nil", h)
	}
}

func TestIndexConcurrent(t *testing.T) {
	const dim = 16
	x := vector.New(dim)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 10000 {
		if err := x.Set(int64(i), randomVector(r, dim)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 3))
			for range 20 {
				hits := x.Search(randomVector(r, dim), 5, func(id int64) bool { return id%3 != 0 })
				if len(hits) != 5 {
					t.Errorf("got %d hits", len(hits))
					return
				}
				x.Get(int64(r.IntN(10000)))
				x.Len()
			}
		})
	}
	wg.Go(func() { // one writer
		r := rand.New(rand.NewPCG(9, 9))
		for i := range 500 {
			id := int64(r.IntN(12000))
			if i%2 == 0 {
				x.Delete(id)
			} else if err := x.Set(id, randomVector(r, dim)); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
}

func TestNewPanicsOnBadDim(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New(0) did not panic")
		}
	}()
	vector.New(0)
}

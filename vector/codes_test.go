package vector

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCodesSearchIsExact checks that an index keeping only int8 codes,
// searched with SearchRows from the exact rows, returns exactly what a
// float32 index of the same vectors returns (same ids, same score bits,
// same order), with replacements, deletions, filters and k from 1 to past
// n; that it asks for a small share of the rows; and that it holds no
// float rows.
func TestCodesSearchIsExact(t *testing.T) {
	if !quantizable(384) {
		t.Skip("no int8 kernel on this CPU")
	}
	const n, dim = 5000, 384
	r := rand.New(rand.NewPCG(3, 4))
	vecs := clustered(r, n, dim, 6, 0.35)
	exact, codes := New(dim), NewCodes(dim)
	if !codes.CodesOnly() {
		t.Fatal("NewCodes(384) keeps rows")
	}
	stored := map[int64][]float32{}
	put := func(id int64, v []float32) {
		if err := exact.Set(id, v); err != nil {
			t.Fatal(err)
		}
		if err := codes.Set(id, v); err != nil {
			t.Fatal(err)
		}
		stored[id] = v
	}
	for i, v := range vecs {
		put(int64(i+1), v)
	}
	for i := range 200 { // replacements
		put(int64(i*13+1), vecs[(i*7+5)%n])
	}
	for i := range 100 { // deletions
		exact.Delete(int64(i*31 + 2))
		codes.Delete(int64(i*31 + 2))
		delete(stored, int64(i*31+2))
	}
	if len(codes.hslab)+len(codes.slab) != 0 {
		t.Fatalf("a codes index holds %d halves and %d floats", len(codes.hslab), len(codes.slab))
	}
	asked := 0
	rows := func(ids []int64, fn func(int64, []float32)) error {
		asked += len(ids)
		for _, id := range ids {
			if v, ok := stored[id]; ok {
				fn(id, v)
			}
		}
		return nil
	}
	odd := func(id int64) bool { return id%2 == 1 }
	searches := 0
	for qi := range 40 {
		q := vecs[(qi*101)%n]
		if qi%3 == 0 {
			q = clustered(r, 1, dim, 1, 1)[0]
		}
		for _, k := range []int{1, 10, 41, 500, n + 10} {
			for _, filter := range []func(int64) bool{nil, odd} {
				want := exact.Search(q, k, filter)
				got, err := codes.SearchRows(q, k, filter, rows)
				if err != nil {
					t.Fatal(err)
				}
				searches++
				if !slices.Equal(got, want) {
					t.Fatalf("query %d, k %d: codes %v…, exact %v…", qi, k, got[:min(3, len(got))], want[:min(3, len(want))])
				}
			}
		}
	}
	t.Logf("rows asked per search: %.0f of %d", float64(asked)/float64(searches), len(stored))
	// k = 10 needs few rows.
	asked = 0
	for qi := range 20 {
		if _, err := codes.SearchRows(vecs[qi*37], 10, nil, rows); err != nil {
			t.Fatal(err)
		}
	}
	if per := asked / 20; per > n/10 {
		t.Errorf("k=10 asked %d rows a search, want a small share of %d", per, n)
	}
	// A failing source is an error, not a wrong answer.
	boom := errors.New("boom")
	if _, err := codes.SearchRows(vecs[0], 10, nil, func([]int64, func(int64, []float32)) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("failing rows: %v, want boom", err)
	}
	if _, ok := codes.Get(1); ok {
		t.Error("Get on a codes index returned a row")
	}
}

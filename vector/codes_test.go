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

// TestBoundsBoundScores checks, for every kind of index (float32 rows,
// halves, codes only; below and above the size of the two-pass search),
// that Bounds bounds every row's score from above, that Scores gives
// the very score bits Search (SearchRows) gives, and that both honour
// the filter and deleted rows.
func TestBoundsBoundScores(t *testing.T) {
	const dim = 384
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{300, 3000} {
		vecs := clustered(r, n, dim, 4, 0.35)
		for name, mk := range map[string]func(int) *Index{"float": New, "half": NewHalf, "codes": NewCodes} {
			x := mk(dim)
			stored := map[int64][]float32{}
			for i, v := range vecs {
				if err := x.Set(int64(i+1), v); err != nil {
					t.Fatal(err)
				}
				stored[int64(i+1)] = v
			}
			x.Delete(7)
			delete(stored, 7)
			rows := func(ids []int64, fn func(int64, []float32)) error {
				for _, id := range ids {
					if v, ok := stored[id]; ok {
						fn(id, v)
					}
				}
				return nil
			}
			filter := func(id int64) bool { return id%5 != 0 }
			q := vecs[r.IntN(n)]
			ids, upper := x.Bounds(q, filter)
			if len(ids) != len(upper) || len(ids) != n-1-n/5 {
				t.Fatalf("%s n=%d: %d ids, %d bounds, want %d", name, n, len(ids), len(upper), n-1-n/5)
			}
			want, err := x.SearchRows(q, n, filter, rows)
			if err != nil {
				t.Fatal(err)
			}
			got, err := x.Scores(q, append(slices.Clone(ids), 7), rows)
			if err != nil {
				t.Fatal(err)
			}
			score := map[int64]float32{}
			for _, h := range got {
				score[h.ID] = h.Score
			}
			if len(got) != len(want) {
				t.Fatalf("%s n=%d: Scores gave %d rows, Search %d", name, n, len(got), len(want))
			}
			for _, h := range want {
				if score[h.ID] != h.Score {
					t.Fatalf("%s n=%d: row %d scores %v, Search %v", name, n, h.ID, score[h.ID], h.Score)
				}
			}
			for i, id := range ids {
				if upper[i] < score[id] {
					t.Fatalf("%s n=%d: row %d bound %v below its score %v", name, n, id, upper[i], score[id])
				}
			}
		}
	}
}

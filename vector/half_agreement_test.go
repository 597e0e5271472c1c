package vector_test

import (
	"testing"

	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/internal/benchdata"
	"github.com/noema-mem/noema/vector"
)

// TestHalfRankingAgreement measures what half rows change in the answers
// of find_similar_concepts: the builtin embedder's vectors of 20,000
// benchdata labels, the top 10 of 300 other labels as queries, in a half
// and a float32 index. docs/embeddings.md gives the figures.
func TestHalfRankingAgreement(t *testing.T) {
	labels := benchdata.Labels(20_300)
	full, half := vector.New(builtin.Dimension), vector.NewHalf(builtin.Dimension)
	for i, l := range labels[:20_000] {
		v := builtin.Vector(l)
		if vector.IsDegenerate(v) {
			continue
		}
		if err := full.Set(int64(i), v); err != nil {
			t.Fatal(err)
		}
		if err := half.Set(int64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	const k = 10
	var overlap, same, queries int
	var worst float64
	for _, l := range labels[20_000:] {
		q := builtin.Vector(l)
		if vector.IsDegenerate(q) {
			continue
		}
		queries++
		a, b := full.Search(q, k, nil), half.Search(q, k, nil)
		in := map[int64]bool{}
		for _, h := range a {
			in[h.ID] = true
		}
		eq := len(a) == len(b)
		for i, h := range b {
			if in[h.ID] {
				overlap++
			}
			if i < len(a) {
				eq = eq && a[i].ID == h.ID
				worst = max(worst, float64(a[i].Score-h.Score), float64(h.Score-a[i].Score))
			}
		}
		if eq {
			same++
		}
	}
	agree := float64(overlap) / float64(k*queries)
	t.Logf("%d queries: top-%d overlap %.4f, identical order %d/%d, largest score difference at a rank %.2g", queries, k, agree, same, queries, worst)
	if agree < 0.99 {
		t.Fatalf("top-%d overlap of half and float32 rows %.4f < 0.99", k, agree)
	}
}

package semantic_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/noema-mem/noema/semantic"
)

// vectorsIndex records how a refresh reads the cached vectors.
type vectorsIndex struct {
	semantic.Index
	asked, streamed int // hashes asked of Embeddings; vectors streamed by EachEmbedding
}

func (v *vectorsIndex) Embeddings(ctx context.Context, model string, hashes []string) (map[string][]float32, error) {
	v.asked += len(hashes)
	return v.Index.Embeddings(ctx, model, hashes)
}

func (v *vectorsIndex) EachEmbedding(ctx context.Context, model string, hashes []string, fn func(string, []float32) error) error {
	return v.Index.EachEmbedding(ctx, model, hashes, func(h string, vec []float32) error {
		v.streamed++
		return fn(h, vec)
	})
}

// TestFreshRefreshStreamsVectors: a server's first refresh (issue 21: a
// million concepts at start) streams the cached vectors into its index
// instead of loading them all as float32 beside it, and the index holds
// each concept's cached vector, normalized, to half precision; a second
// service answers find_similar_concepts as the first.
func TestFreshRefreshStreamsVectors(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	const notes, per = 25, 100 // 2,500 concepts: the sequential-scan path
	for n := range notes {
		var sb strings.Builder
		for i := range per {
			fmt.Fprintf(&sb, "- [[Topic %d of batch %d]]\n", i, n)
		}
		write(t, a, fmt.Sprintf("Batch %d", n), "", sb.String())
	}
	if err := a.Semantic.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	vi := &vectorsIndex{Index: a.Semantic.DB}
	fresh := semantic.New(vi, builtinAgain(t, a), a.Semantic.Decay, nil)
	fresh.Now = a.Semantic.Now
	if err := fresh.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if p := fresh.Progress(); p.Concepts != notes*per || p.Embedded != notes*per {
		t.Fatalf("fresh refresh: %d of %d embedded, want %d of %d", p.Embedded, p.Concepts, notes*per, notes*per)
	}
	if vi.asked > 0 || vi.streamed != notes*per {
		t.Errorf("fresh refresh asked Embeddings for %d vectors and streamed %d, want 0 and %d", vi.asked, vi.streamed, notes*per)
	}
	_, got, err := fresh.ConceptVectors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := a.Semantic.ConceptVectors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d concept vectors, want %d", len(got), len(want))
	}
	for id, w := range want {
		g := got[id]
		if len(g) != len(w) {
			t.Fatalf("%s: %d dimensions, want %d", id, len(g), len(w))
		}
		for i := range w {
			if math.Abs(float64(g[i]-w[i])) > 1e-3*math.Abs(float64(w[i]))+1e-7 {
				t.Fatalf("%s[%d] = %v, want %v", id, i, g[i], w[i])
			}
		}
	}
	for _, q := range []string{"Topic 7 of batch 3", "Topic 42 of batch 11", "batch"} {
		f, w := findWith(t, fresh, q), findWith(t, a.Semantic, q)
		if fmt.Sprint(f) != fmt.Sprint(w) {
			t.Errorf("%q: fresh service %v, want %v", q, f, w)
		}
	}
}

func findWith(t *testing.T, s *semantic.Service, q string) []string {
	t.Helper()
	res, err := s.FindSimilar(context.Background(), semantic.SimilarInput{Concept: q, MaxResults: 10})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res.Results {
		out = append(out, fmt.Sprintf("%s %.4f", r.Label, r.Similarity))
	}
	return out
}

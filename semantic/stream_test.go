package semantic_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/semantic"
	"github.com/noema-mem/noema/vector"
)

// vectorsIndex records how a refresh reads the cached vectors.
type vectorsIndex struct {
	noema.SemanticIndex
	asked, streamed int // hashes asked of Embeddings; vectors streamed by EachEmbedding
}

func (v *vectorsIndex) Embeddings(ctx context.Context, model string, hashes []string) (map[string][]float32, error) {
	v.asked += len(hashes)
	return v.SemanticIndex.Embeddings(ctx, model, hashes)
}

func (v *vectorsIndex) EachEmbedding(ctx context.Context, model string, hashes []string, fn func(string, []float32) error) error {
	return v.SemanticIndex.EachEmbedding(ctx, model, hashes, func(h string, vec []float32) error {
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
	vi := &vectorsIndex{SemanticIndex: a.Semantic.DB}
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

// countingEmbedder counts the texts it embeds.
type countingEmbedder struct {
	noema.Embedder
	texts int
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts += len(texts)
	return c.Embedder.Embed(ctx, texts)
}

// TestEmbedWithoutIndexOnlyCaches: `sync --embed` in a process that holds
// no index (issue 21: a million concepts' index is 1.2 GB, dropped on
// exit) embeds every concept's text into the cache without reading a
// vector back, says so in its progress and saved status, and a server
// started next embeds nothing.
func TestEmbedWithoutIndexOnlyCaches(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	for n := range 3 {
		var sb strings.Builder
		for i := range 50 {
			fmt.Fprintf(&sb, "- [[Topic %d of batch %d]]\n", i, n)
		}
		write(t, a, fmt.Sprintf("Batch %d", n), "", sb.String())
	}
	vi := &vectorsIndex{SemanticIndex: a.Semantic.DB}
	ce := &countingEmbedder{Embedder: builtinAgain(t, a)}
	cli := semantic.New(vi, ce, a.Semantic.Decay, nil)
	if err := cli.Embed(ctx); err != nil {
		t.Fatal(err)
	}
	if ce.texts != 150 || vi.asked+vi.streamed != 0 {
		t.Errorf("Embed embedded %d texts and read %d vectors back, want 150 and 0", ce.texts, vi.asked+vi.streamed)
	}
	if p := cli.Progress(); p.Concepts != 150 || p.Embedded != 150 || p.Running {
		t.Errorf("progress %+v, want 150 of 150 embedded", p)
	}
	server := semantic.New(a.Semantic.DB, &countingEmbedder{Embedder: builtinAgain(t, a)}, a.Semantic.Decay, nil)
	if p := server.Status(ctx); p.Concepts != 150 || p.Embedded != 150 {
		t.Errorf("saved status %d of %d embedded, want 150 of 150", p.Embedded, p.Concepts)
	}
	if err := server.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if n := server.Embedder.(*countingEmbedder).texts; n != 0 {
		t.Errorf("the server embedded %d texts after sync --embed, want 0", n)
	}
	if p := server.Progress(); p.Embedded != 150 {
		t.Errorf("the server's index holds %d vectors, want 150", p.Embedded)
	}
	// A process that holds the index keeps it in step.
	write(t, a, "Late", "", "about [[Late Topic]]")
	if err := server.Embed(ctx); err != nil {
		t.Fatal(err)
	}
	if p := server.Progress(); p.Embedded != 151 {
		t.Errorf("after Embed in a server: %d vectors in its index, want 151", p.Embedded)
	}
}

// TestConceptIndexMemory checks issue 21's bound on what a server holds
// per concept for find_similar_concepts: the vectors as int8 codes
// (vector.NewCodes, about 450 B at 384 dimensions) and the concept and
// text hash of each vector id in a slice, not two more maps of strings —
// at most 620 B a concept in all (555 measured; 690 with the maps,
// about 1.5 KB with half-precision rows). Where the int8 kernel does not
// run (-tags purego, a CPU without AVX2) NewCodes keeps half-precision
// rows instead, 2 B a dimension: the bound is then those rows plus the
// same 224 B of bookkeeping (927 B measured with purego).
func TestConceptIndexMemory(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	const notes, per = 80, 100 // 8,000 concepts
	for n := range notes {
		var sb strings.Builder
		for i := range per {
			fmt.Fprintf(&sb, "- [[Subject %d of series %d]]\n", i, n)
		}
		write(t, a, fmt.Sprintf("Series %d", n), "", sb.String())
	}
	if err := a.Semantic.Embed(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := semantic.New(a.Semantic.DB, builtinAgain(t, a), a.Semantic.Decay, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := fresh.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if p := fresh.Progress(); p.Embedded != notes*per {
		t.Fatalf("%d concepts embedded, want %d", p.Embedded, notes*per)
	}
	per1 := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / (notes * per)
	t.Logf("%d B a concept", per1)
	limit := int64(620)
	if dim := a.Semantic.Embedder.Dimension(); !vector.NewCodes(dim).CodesOnly() {
		limit = int64(2*dim+4) + 224
	}
	if per1 > limit {
		t.Errorf("the concept index holds %d B a concept, want at most %d", per1, limit)
	}
	runtime.KeepAlive(fresh)
}

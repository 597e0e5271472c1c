// Package embeddingtest is the conformance suite every noema.Embedder
// must pass. A backend's tests call [Run] with a ready embedder (for network
// backends, one pointed at an httptest server that speaks the wire format).
package embeddingtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vector"
)

// Texts returns n distinct, deterministic short texts for tests.
func Texts(n int) []string {
	words := []string{"gradient", "checkpoint", "memory", "vector", "index", "graph", "decay", "concept", "note", "link", "search", "token"}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s %s %d", words[i%len(words)], words[(i/len(words)+i*7)%len(words)], i)
	}
	return out
}

// sameDirection is the cosine above which two vectors count as the same
// answer. Model backends (GPU kernels, batching) are not bit-exact from one
// call to the next; the builtin backend is, and checks that separately.
const sameDirection = 0.999

// Run runs the conformance suite against e: naming, empty input, dimension,
// normalization, batch order, determinism, distinct texts, Unicode,
// concurrent use and context cancellation.
func Run(t *testing.T, e noema.Embedder) {
	t.Helper()
	ctx := context.Background()

	t.Run("Name", func(t *testing.T) {
		backend, model, ok := strings.Cut(e.Name(), "/")
		if !ok || backend == "" || model == "" {
			t.Fatalf("Name() = %q, want backend/model", e.Name())
		}
	})

	t.Run("EmptyInput", func(t *testing.T) {
		for _, in := range [][]string{nil, {}} {
			vecs, err := e.Embed(ctx, in)
			if err != nil || len(vecs) != 0 {
				t.Fatalf("Embed(%#v) = %d vectors, %v; want 0, nil", in, len(vecs), err)
			}
		}
	})

	t.Run("DimensionAndNorm", func(t *testing.T) {
		texts := []string{"gradient checkpointing", "Memory Consolidation", "a"}
		vecs := mustEmbed(t, e, texts)
		dim := e.Dimension()
		if dim <= 0 {
			t.Fatalf("Dimension() = %d after a successful Embed", dim)
		}
		for i, v := range vecs {
			if len(v) != dim {
				t.Fatalf("vector %d has length %d, Dimension() = %d", i, len(v), dim)
			}
			if vector.IsDegenerate(v) {
				t.Fatalf("vector %d (%q) is degenerate", i, texts[i])
			}
			if n := norm(v); math.Abs(n-1) > 1e-4 {
				t.Fatalf("vector %d has norm %v, want 1", i, n)
			}
		}
	})

	t.Run("BatchOrder", func(t *testing.T) {
		texts := Texts(150)
		all := mustEmbed(t, e, texts)
		for _, i := range []int{0, 1, 2, 63, 64, 65, 100, 149} {
			one := mustEmbed(t, e, texts[i:i+1])
			if c := vector.Cosine(all[i], one[0]); c < sameDirection {
				t.Fatalf("text %d embedded in a batch differs from alone (cosine %v): order not preserved", i, c)
			}
			if i > 0 {
				if c := vector.Cosine(all[i], all[i-1]); c >= sameDirection {
					t.Fatalf("texts %d and %d (%q, %q) have the same vector", i-1, i, texts[i-1], texts[i])
				}
			}
		}
	})

	t.Run("Deterministic", func(t *testing.T) {
		texts := []string{"knowledge graph", "recency decay"}
		a, b := mustEmbed(t, e, texts), mustEmbed(t, e, texts)
		for i := range texts {
			if c := vector.Cosine(a[i], b[i]); c < sameDirection {
				t.Fatalf("%q embedded twice: cosine %v", texts[i], c)
			}
		}
	})

	t.Run("DistinctTexts", func(t *testing.T) {
		v := mustEmbed(t, e, []string{"photosynthesis in plants", "kernel scheduler latency"})
		if c := vector.Cosine(v[0], v[1]); c > 0.95 {
			t.Fatalf("unrelated texts have cosine %v", c)
		}
	})

	t.Run("Unicode", func(t *testing.T) {
		texts := []string{"Café crème", "東京の地下鉄", "Ωμέγα", "emoji 🚀 rocket", "naïve\tcoöperation\n"}
		vecs := mustEmbed(t, e, texts)
		for i, v := range vecs {
			if len(v) != e.Dimension() || vector.IsDegenerate(v) {
				t.Fatalf("%q: length %d (want %d), degenerate %v", texts[i], len(v), e.Dimension(), vector.IsDegenerate(v))
			}
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		texts := Texts(20)
		want := mustEmbed(t, e, texts)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				lo := g * 5
				got, err := e.Embed(ctx, texts[lo:lo+5])
				if err != nil {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
				for i, v := range got {
					if c := vector.Cosine(v, want[lo+i]); c < sameDirection {
						t.Errorf("goroutine %d text %d: cosine %v with the sequential answer", g, lo+i, c)
					}
				}
			})
		}
		wg.Wait()
	})

	t.Run("Cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		vecs, err := e.Embed(cctx, Texts(3))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Embed with a cancelled context: err = %v, want context.Canceled", err)
		}
		if vecs != nil {
			t.Fatalf("Embed with a cancelled context returned %d vectors, want none", len(vecs))
		}
	})
}

// Golden returns the content of the golden file at path, first rewriting
// it with got when update is set (a test's -update flag).
func Golden(t testing.TB, path, got string, update bool) string {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	return string(want)
}

func mustEmbed(t *testing.T, e noema.Embedder, texts []string) [][]float32 {
	t.Helper()
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed(%d texts): %v", len(texts), err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("Embed(%d texts) returned %d vectors", len(texts), len(vecs))
	}
	return vecs
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

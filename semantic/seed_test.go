package semantic_test

import (
	"context"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/semantic"
)

// Seed details: saturation is checked on the top min(10, n) once n >= 3,
// its warning names tools that exist, and free text says resolved: false.
func TestSaturationOfFewAndResolved(t *testing.T) {
	a := openApp(t)
	write(t, a, "Topics", "", "[[Topic Alpha]] [[Topic Bravo]] [[Topic Charlie]] [[Topic Delta]] [[Topic Echo]] [[Topic Foxtrot]]")
	a.Semantic.Embedder = constant{dim: 4}
	res := find(t, a, "Topic Alpha", 5)
	if len(res.Results) != 5 || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "saturated") {
		t.Fatalf("five identical results: %+v", res)
	}
	if !strings.Contains(res.Warnings[0], "build_context or search_notes") || !res.Resolved {
		t.Errorf("warning %q, resolved %v", res.Warnings[0], res.Resolved)
	}
	if res := find(t, a, "Topic", 2); len(res.Warnings) != 0 {
		t.Errorf("two results are never saturated: %v", res.Warnings)
	}
	if res := find(t, a, "something else entirely", 3); res.Resolved || res.ConceptID != "" {
		t.Errorf("free text: resolved %v concept %q", res.Resolved, res.ConceptID)
	}
}

// down is an embedder whose backend cannot be reached.
type down struct{}

func (down) Name() string   { return "test/down" }
func (down) Dimension() int { return 4 }
func (down) Embed(context.Context, []string) ([][]float32, error) {
	return nil, noema.Errorf(noema.EUNAVAILABLE, "connection refused")
}

// With the embedder unreachable and nothing cached, find_similar_concepts
// answers with fuzzy candidates marked as such, and status shows the error.
func TestFuzzyFallback(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	write(t, a, "Topics", "", "[[Gradient Descent]] [[Gradient Boosting]] [[Zebra]]")
	a.Semantic.Embedder = down{}
	if _, err := a.Semantic.FindSimilar(ctx, semantic.SimilarInput{Concept: "Gradient Descent"}); noema.ErrorCode(err) != noema.EUNAVAILABLE {
		t.Fatalf("without a fallback: %v", err)
	}
	fuzzy := func(ctx context.Context, q string, k int) ([]semantic.Similar, error) {
		return []semantic.Similar{{ID: "x1", Label: "Gradient Descent", Score: 100}, {ID: "x2", Label: "Gradient Boosting", Score: 70}}, nil
	}
	res, err := a.Semantic.FindSimilarOr(ctx, semantic.SimilarInput{Concept: "gradient descnt"}, fuzzy)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fallback != "fuzzy" || len(res.Results) != 2 || res.Results[0].Score != 1 || res.Results[1].Band != "fuzzy fallback" {
		t.Errorf("fallback: %+v", res)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "connection refused") {
		t.Errorf("warnings: %v", res.Warnings)
	}
	if st := a.Semantic.Status(ctx); !strings.Contains(st.LastError, "connection refused") {
		t.Errorf("status: %+v", st)
	}
}

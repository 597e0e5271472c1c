package semantic

import (
	"context"
	"fmt"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vector"
)

// Similarity returns the cosine similarity of two concepts' embeddings
// (their label, aliases and description, as [ConceptText] puts them) and
// the name of the embedder. Both texts are embedded now, so it works
// before the background embedding has run.
func (s *Service) Similarity(ctx context.Context, a, b *noema.Concept) (float64, string, error) {
	vecs, err := s.Embedder.Embed(ctx, []string{
		ConceptText(a.Label, a.Aliases, a.Description),
		ConceptText(b.Label, b.Aliases, b.Description),
	})
	if err != nil {
		return 0, s.Embedder.Name(), fmt.Errorf("embed with %s: %w", s.Embedder.Name(), err)
	}
	if len(vecs) != 2 {
		return 0, s.Embedder.Name(), fmt.Errorf("embed with %s: %d vectors for 2 texts", s.Embedder.Name(), len(vecs))
	}
	return float64(vector.Cosine(vecs[0], vecs[1])), s.Embedder.Name(), nil
}

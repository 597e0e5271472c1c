package semantic

import (
	"context"
	"strings"

	"github.com/noema-mem/noema/vault"
)

// SimilarByScan is find_similar_concepts as it was defined before the
// bounds (docs/embeddings.md, "Decay without a scan"): every concept
// scored exactly, its decay from its notes, ranked by score, similarity,
// label and id; the results rank's must equal.
func (s *Service) SimilarByScan(ctx context.Context, in SimilarInput) ([]Similar, error) {
	q := strings.TrimSpace(in.Concept)
	k := in.MaxResults
	if k <= 0 {
		k = DefaultMaxResults
	}
	k = min(k, MaxMaxResults)
	useDecay := in.Decay == nil || *in.Decay
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	var qv []float32
	s.mu.RLock()
	idx, model := s.idx, s.model
	s.mu.RUnlock()
	var filter func(int64) bool
	if id, err := s.DB.ConceptNamed(ctx, q, vault.Key(q)); err == nil && id != "" {
		if qv, err = s.vectorOf(ctx, id); err != nil {
			return nil, err
		}
		s.mu.RLock()
		vid, ok := s.rows[id]
		s.mu.RUnlock()
		if ok {
			filter = func(x int64) bool { return x != vid }
		}
	}
	if qv == nil {
		vecs, err := s.Embedder.Embed(ctx, []string{q})
		if err != nil {
			return nil, err
		}
		qv = vecs[0]
	}
	hits, err := idx.SearchRows(qv, idx.Len()+1, filter, s.rowsOf(ctx, model))
	if err != nil {
		return nil, err
	}
	var decayOf decayFunc
	if useDecay {
		decayOf = s.conceptDecay // every concept's notes' rows
	}
	all, err := s.score(ctx, hits, s.Now(), decayOf)
	if err != nil {
		return nil, err
	}
	sortHits(all)
	return unrelated(all[:min(k, len(all))]), nil
}

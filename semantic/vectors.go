package semantic

import (
	"context"
	"fmt"
	"slices"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vector"
)

// ConceptVectors returns the embedder's name and every concept's
// normalized vector by concept id, as the in-memory index holds them
// after a refresh (analyze_duplicates compares them pairwise). Concepts
// without a vector are absent. When the refresh fails, the vectors already
// cached are returned with the error, so a caller can go on without the
// missing ones and say why. The map is shared between calls until the
// index changes: callers must not modify it or its vectors.
func (s *Service) ConceptVectors(ctx context.Context) (string, map[string][]float32, error) {
	name := s.Embedder.Name()
	refreshErr := s.Refresh(ctx)
	if refreshErr != nil && noema.ErrorCode(refreshErr) != noema.EUNAVAILABLE {
		return name, map[string][]float32{}, fmt.Errorf("refresh concept vectors: %w", refreshErr)
	}
	s.mu.RLock()
	if s.vecs != nil && s.vecsGen == s.gen {
		out := s.vecs
		s.mu.RUnlock()
		return name, out, refreshErr
	}
	s.mu.RUnlock()
	// The index keeps only codes: read the vectors from the cache, by
	// text (concepts sharing a text share the vector).
	s.mu.RLock()
	gen, model := s.gen, s.model
	byHash := make(map[string][]string, len(s.rows))
	hashes := make([]string, 0, len(s.rows))
	for id, vid := range s.rows {
		h := s.byVID[vid].hash.String()
		if _, ok := byHash[h]; !ok {
			hashes = append(hashes, h)
		}
		byHash[h] = append(byHash[h], id)
	}
	s.mu.RUnlock()
	out := make(map[string][]float32, len(byHash))
	err := s.DB.EachEmbedding(ctx, model, hashes, func(h string, v []float32) error {
		u := slices.Clone(v)
		if !vector.Normalize(u) {
			return nil
		}
		for _, id := range byHash[h] {
			out[id] = u
		}
		return nil
	})
	if err != nil {
		return name, map[string][]float32{}, fmt.Errorf("read concept vectors: %w", err)
	}
	s.mu.Lock()
	if s.gen == gen {
		s.vecs, s.vecsGen = out, gen
	}
	s.mu.Unlock()
	return name, out, refreshErr
}

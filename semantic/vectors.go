package semantic

import (
	"context"
	"fmt"

	"github.com/noema-mem/noema"
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
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][]float32, len(s.rows))
	if s.idx == nil {
		return name, out, refreshErr
	}
	for id, vid := range s.rows {
		if v, ok := s.idx.Get(vid); ok {
			out[id] = v
		}
	}
	s.vecs, s.vecsGen = out, s.gen
	return name, out, refreshErr
}

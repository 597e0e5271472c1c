package semantic

import (
	"context"
	"encoding/json"
)

// stateKey is the meta key holding the last refresh's counts, so that any
// process (a CLI `status`) can report them without embedding anything.
const stateKey = "embeddings_state"

// saveState records the current counts for other processes.
func (s *Service) saveState(ctx context.Context) {
	p := s.Progress()
	b, _ := json.Marshal(p)
	_ = s.DB.PutMeta(ctx, stateKey, string(b))
}

// Status returns this process's progress, or, when it has not embedded
// anything yet, the counts the last refresh (by any process) recorded for
// the current embedder.
func (s *Service) Status(ctx context.Context) Progress {
	p := s.Progress()
	if p.Running || !p.UpdatedAt.IsZero() {
		return p
	}
	v, err := s.DB.GetMeta(ctx, stateKey)
	if err != nil || v == "" {
		return p
	}
	var saved Progress
	if json.Unmarshal([]byte(v), &saved) != nil || saved.Embedder != p.Embedder {
		return p
	}
	saved.Running = false
	return saved
}

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
//
// The chunk counts are taken now (see countChunks) in either case; when
// counting fails they are those of the last count.
func (s *Service) Status(ctx context.Context) Progress {
	p := s.Progress()
	if !p.Running && p.UpdatedAt.IsZero() {
		if saved, ok := s.savedState(ctx, p.Embedder); ok {
			p = saved
		}
	}
	_ = s.countChunks(ctx, &p)
	return p
}

// savedState is the progress the last refresh (by any process) recorded
// for embedder.
func (s *Service) savedState(ctx context.Context, embedder string) (Progress, bool) {
	v, err := s.DB.GetMeta(ctx, stateKey)
	if err != nil || v == "" {
		return Progress{}, false
	}
	var saved Progress
	if json.Unmarshal([]byte(v), &saved) != nil || saved.Embedder != embedder {
		return Progress{}, false
	}
	saved.Running = false
	return saved, true
}

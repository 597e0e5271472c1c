package search

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vector"
)

// semHit is a note found by meaning: its best chunk's cosine.
type semHit struct {
	id    int64
	score float64
	chunk noema.ChunkVector
}

// NoEmbeddedNotes is the warning of a search ranking by meaning when no
// note chunk has a vector yet: a server embeds them in the background; the
// command line does when asked.
const NoEmbeddedNotes = "no note has been embedded yet, so ranking by meaning found nothing: run `noema sync --embed` (a running server embeds notes in the background)"

// VectorsLoading is the warning of a hybrid search answered while the
// note chunks' vectors are still being loaded (a server loads them in the
// background when it starts): it ranks by full text alone rather than wait.
const VectorsLoading = "the note vectors are still being loaded (the server started moments ago), so this answer ranks by full text alone; ask again in a few seconds for the ranking by meaning"

// chunkCache keeps the note chunks' vectors in memory, refreshed when the
// index's chunks version moves. The vectors are kept in half precision
// (vector.NewHalf): 3 bytes a dimension with the int8 codes, against 5.
type chunkCache struct {
	mu      sync.RWMutex // held to write during a refresh
	version int64
	key     string // the chunks' key: model and scheme (chunk.Scheme.Key)
	loaded  bool
	idx     *vector.Index
	hashes  map[int64]string // note id -> chunked hash loaded
	counts  map[int64]int    // note id -> chunks in idx
	spans   map[int64]noema.ChunkVector
	// triedSnapshot is set once the first load has looked for a snapshot
	// (snapshot.go); fromIndex counts the notes read from the index since
	// (or since the load began without one); saveDue asks SaveVectors to
	// write one.
	triedSnapshot bool
	fromIndex     int
	saveDue       atomic.Bool
	// warming is set while Warm loads the vectors: a search that need
	// not wait for them (hybrid) answers without them meanwhile.
	warming atomic.Bool
}

// semantic ranks notes by the cosine of the query's embedding with their
// best chunk, scanning the vectors on at most workers goroutines. An
// embedder that is missing or fails is an unavailable error. While Warm
// is loading the vectors, it waits for them only with wait; without, it
// returns no hits and the VectorsLoading warning.
func (s *Service) semantic(ctx context.Context, raw string, f noema.SearchFilter, workers, depth int, wait bool) (hits []semHit, warnings []string, err error) {
	if !wait && s.chunks.warming.Load() {
		return nil, []string{VectorsLoading}, nil
	}
	if s.Embedder == nil {
		return nil, nil, noema.Errorf(noema.EUNAVAILABLE, "no embedder is configured")
	}
	vecs, err := s.Embedder.Embed(ctx, []string{raw})
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		var ne *noema.Error
		if errors.As(err, &ne) && ne.Code == noema.EUNAVAILABLE {
			return nil, nil, err
		}
		return nil, nil, noema.WrapError(err, noema.EUNAVAILABLE, "embedder %s failed: %s", s.Embedder.Name(), noema.ErrorMessage(err))
	}
	if len(vecs) != 1 {
		return nil, nil, noema.Errorf(noema.EUNAVAILABLE, "embedder %s returned %d vectors for 1 text", s.Embedder.Name(), len(vecs))
	}
	q := vecs[0]
	if vector.IsDegenerate(q) {
		return nil, []string{"the query has nothing the embedder can represent; semantic ranking skipped"}, nil
	}
	if err := s.refreshChunks(ctx); err != nil {
		return nil, nil, err
	}
	// The first load of a process that did not warm (a command) keeps
	// what it read for the next; a failure to write it fails nothing.
	_ = s.SaveVectors(ctx)
	var allowed map[int64]bool
	if !f.IsZero() {
		if allowed, err = s.DB.SearchFilterIDs(ctx, f); err != nil {
			return nil, nil, err
		}
	}
	c := &s.chunks
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.idx == nil || c.idx.Len() == 0 {
		return nil, []string{NoEmbeddedNotes}, nil
	}
	if len(q) != c.idx.Dim() {
		return nil, nil, noema.Errorf(noema.EUNAVAILABLE, "embedder %s returned a %d-dimensional vector, the index holds %d", s.Embedder.Name(), len(q), c.idx.Dim())
	}
	var filter func(int64) bool
	if allowed != nil {
		filter = func(id int64) bool { return allowed[noteOf(id)] }
	}
	// A note may have several chunks among the best: ask for more chunks
	// than notes wanted, keep each note's best.
	seen := map[int64]bool{}
	var out []semHit
	for _, h := range c.idx.SearchWorkers(q, 4*depth, filter, workers) {
		note := noteOf(h.ID)
		if seen[note] {
			continue
		}
		seen[note] = true
		out = append(out, semHit{id: note, score: float64(h.Score), chunk: c.spans[h.ID]})
		if len(out) == depth {
			break
		}
	}
	return out, nil, nil
}

// refreshChunks brings the in-memory chunk vectors in step with the index:
// nothing when the chunks version has not moved; else only the notes whose
// chunks changed are reloaded.
func (s *Service) refreshChunks(ctx context.Context) error {
	version, err := s.DB.SearchChunksVersion(ctx)
	if err != nil {
		return err
	}
	model := s.Embedder.Name()
	_, key := s.Chunking.ForEmbedder(s.Embedder)
	c := &s.chunks
	c.mu.RLock()
	fresh := c.loaded && c.version == version && c.key == key
	c.mu.RUnlock()
	if fresh {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded && c.version == version && c.key == key {
		return nil
	}
	states, err := s.DB.SearchChunkStates(ctx, key)
	if err != nil {
		return err
	}
	if c.key != key || c.idx == nil {
		c.idx, c.hashes, c.counts, c.spans = nil, make(map[int64]string, len(states)), make(map[int64]int, len(states)), map[int64]noema.ChunkVector{}
		c.fromIndex = 0
		if !c.triedSnapshot {
			// The first load starts from the snapshot when there is one of
			// this index, model and build; what changed since is read
			// below as by any refresh.
			c.triedSnapshot = true
			if snap := s.loadChunkSnapshot(ctx, key, states); snap != nil {
				c.idx, c.hashes, c.counts, c.spans = snap.idx, snap.hashes, snap.counts, snap.spans
			}
		}
	}
	first := !c.loaded
	drop := func(note int64) {
		for i := range c.counts[note] {
			id := chunkID(note, i)
			if c.idx != nil {
				c.idx.Delete(id)
			}
			delete(c.spans, id)
		}
		delete(c.counts, note)
		delete(c.hashes, note)
	}
	var load []int64
	for note := range c.hashes {
		if h, ok := states[note]; !ok || h != c.hashes[note] {
			drop(note)
		}
	}
	for note, h := range states {
		if _, ok := c.hashes[note]; !ok {
			load = append(load, note)
			c.hashes[note] = h
		}
	}
	grow := 0
	if c.idx == nil && len(load) > 0 {
		// The first load: room for every chunk at once (a capacity hint;
		// chunks without a vector are few).
		if grow, err = s.DB.SearchChunkCount(ctx); err != nil {
			c.loaded = false
			return err
		}
		c.spans = make(map[int64]noema.ChunkVector, grow)
	}
	var setErr error
	err = s.DB.SearchChunkVectors(ctx, model, load, func(cv noema.ChunkVector) {
		if c.idx == nil {
			if len(cv.Vec) == 0 {
				return
			}
			c.idx = vector.NewHalf(len(cv.Vec))
			c.idx.Grow(grow)
		}
		id := chunkID(cv.NoteID, cv.Idx)
		if err := c.idx.Set(id, cv.Vec); err != nil {
			if !errors.Is(err, vector.ErrDegenerate) && setErr == nil {
				setErr = err
			}
			return
		}
		c.counts[cv.NoteID] = max(c.counts[cv.NoteID], cv.Idx+1)
		cv.Vec = nil
		c.spans[id] = cv
	})
	if err != nil {
		c.loaded = false
		return err
	}
	if setErr != nil {
		c.loaded = false
		return noema.WrapError(setErr, noema.EINTERNAL, "load note vectors: %v", setErr)
	}
	c.version, c.key, c.loaded = version, key, true
	c.fromIndex += len(load)
	if first && s.VectorsFile != "" && c.idx != nil && c.idx.Len() >= cmp.Or(s.snapshotMin, snapshotMinChunks) && c.fromIndex > len(c.hashes)/20 {
		c.saveDue.Store(true)
	}
	return nil
}

// Warm loads now what the first search would otherwise load: the concept
// names the query's words are matched against, the notes' rows (when the
// index can keep them in memory: rowKeeper), then the note chunks'
// vectors. While it runs, a hybrid search answers without the vectors
// rather than wait (see VectorsLoading). It is optional; a server uses
// Warming instead.
func (s *Service) Warm(ctx context.Context) error {
	return s.Warming()(ctx)
}

// rowKeeper is an index that can keep every note's row (path, title,
// dates) in memory for the searches, as sqlite.SearchIndex.KeepNoteRows
// does: the full-text ranking then joins none of its candidates to their
// rows in SQL. Worth it for a process that answers many searches (a
// server: Warming), not for one search.
type rowKeeper interface {
	KeepNoteRows(ctx context.Context) error
}

// Warming is Warm in two steps, for a server starting: from the moment it
// returns, hybrid searches answer without the vectors (see
// VectorsLoading) until load, which the caller runs in the background,
// has loaded them (or failed). A server calls it before it serves its
// first request, which then never waits for the load.
func (s *Service) Warming() (load func(ctx context.Context) error) {
	if s.Embedder != nil {
		s.chunks.warming.Store(true)
	}
	return func(ctx context.Context) error {
		defer s.chunks.warming.Store(false)
		if _, err := s.namesFor(ctx, true, nil); err != nil {
			return err
		}
		// The rows kept only save work: their failure does not keep the
		// vectors from loading (searches then join the rows in SQL).
		var rowsErr error
		if k, ok := s.DB.(rowKeeper); ok {
			rowsErr = k.KeepNoteRows(ctx)
		}
		if s.Embedder == nil {
			return rowsErr
		}
		if err := s.refreshChunks(ctx); err != nil {
			return errors.Join(rowsErr, err)
		}
		// Loaded: searches use the vectors while they are written.
		s.chunks.warming.Store(false)
		return errors.Join(rowsErr, s.SaveVectors(ctx))
	}
}

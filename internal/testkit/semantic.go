package testkit

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema"
)

// Semantic is an in-memory semantic index ([noema.SemanticIndex]): the
// concepts of a [Concepts] read as text to embed, the notes (their text
// and activity) whose chunks it stores, the embedding cache and the meta
// values.
type Semantic struct {
	concepts *Concepts

	mu      sync.Mutex
	notes   map[int64]*semNote
	vecs    map[string]map[string][]float32 // model -> text hash -> vector
	chunked map[int64]chunkState
	version int64 // SearchChunksVersion
	meta    map[string]string
}

var _ noema.SemanticIndex = (*Semantic)(nil)

// semNote is a note as the semantic index reads it.
type semNote struct {
	path, title, body, hash string
	modified, accessed      time.Time
}

// chunkState is a note's stored chunks: the model they were cut for and
// the content hash they were cut from.
type chunkState struct {
	model, hash string
	chunks      []noema.StoredChunk
}

// NewSemantic returns an empty semantic index over the concepts and links
// of concepts.
func NewSemantic(concepts *Concepts) *Semantic {
	return &Semantic{concepts: concepts, notes: map[int64]*semNote{}, vecs: map[string]map[string][]float32{},
		chunked: map[int64]chunkState{}, meta: map[string]string{}}
}

// AddNote adds (or replaces) the note with the row id, its text and its
// activity; its hash is its body's.
func (s *Semantic) AddNote(id int64, path, title, body string, modified, accessed time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := sha256.Sum256([]byte(title + "\x00" + body))
	s.notes[id] = &semNote{path: path, title: title, body: body, hash: hex.EncodeToString(sum[:]), modified: modified, accessed: accessed}
}

// ConceptsVersion returns the registry's version.
func (s *Semantic) ConceptsVersion(ctx context.Context) (string, error) {
	return s.concepts.ConceptsVersion(ctx)
}

// EachConceptSince calls fn for every concept added or changed after the
// names revision rev (every one for 0), by id, and returns the revision
// and the deletion count it read at.
func (s *Semantic) EachConceptSince(ctx context.Context, rev int64, fn func(id, label string, aliases []string, description string)) (at, deleted int64, err error) {
	since, at, deleted := s.concepts.since(rev)
	slices.SortFunc(since, func(a, b noema.Concept) int { return cmp.Compare(a.ID, b.ID) })
	for _, c := range since {
		fn(c.ID, c.Label, slices.Clone(c.Aliases), c.Description)
	}
	return at, deleted, ctx.Err()
}

// ConceptNames calls fn with the label and aliases of each concept among
// ids that exists.
func (s *Semantic) ConceptNames(ctx context.Context, ids []string, fn func(id, label string, aliases []string)) error {
	f := s.concepts
	f.mu.Lock()
	var found []noema.Concept
	for _, id := range ids {
		if r, ok := f.concepts[id]; ok {
			found = append(found, r.c)
		}
	}
	f.mu.Unlock()
	for _, c := range found {
		fn(c.ID, c.Label, slices.Clone(c.Aliases))
	}
	return ctx.Err()
}

// ConceptNamed returns the id of the concept with the id, else of the one
// owning the key; "" when there is none.
func (s *Semantic) ConceptNamed(ctx context.Context, id, key string) (string, error) {
	c, err := s.concepts.Concept(ctx, id, key)
	if c == nil || err != nil {
		return "", err
	}
	return c.ID, nil
}

// ConceptNotes calls fn for each concept among ids with each note that
// links it, and with its page, dated by their activity.
func (s *Semantic) ConceptNotes(ctx context.Context, ids []string, fn func(id, path string, modified, accessed time.Time)) error {
	f := s.concepts
	type call struct {
		id, path string
	}
	var calls []call
	f.mu.Lock()
	for _, id := range ids {
		r, ok := f.concepts[id]
		if !ok {
			continue
		}
		paths, _ := f.linking(f.keysOf(&r.c))
		if r.c.Page != "" {
			paths = append(paths, strings.TrimPrefix(r.c.Page, noema.URIScheme)+".md")
		}
		for _, p := range slices.Compact(slices.Sorted(slices.Values(paths))) {
			calls = append(calls, call{id, p})
		}
	}
	f.mu.Unlock()
	s.mu.Lock()
	byPath := map[string]*semNote{}
	for _, n := range s.notes {
		byPath[n.path] = n
	}
	s.mu.Unlock()
	for _, c := range calls {
		if n := byPath[c.path]; n != nil {
			fn(c.id, c.path, n.modified, n.accessed)
		}
	}
	return ctx.Err()
}

// EmbeddedAmong returns those of hashes with a cached vector of model.
func (s *Semantic) EmbeddedAmong(ctx context.Context, model string, hashes []string) (map[string]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]bool{}
	for _, h := range hashes {
		if _, ok := s.vecs[model][h]; ok {
			out[h] = true
		}
	}
	return out, ctx.Err()
}

// PutEmbeddings caches vecs[i] for the text hashes[i] under model.
func (s *Semantic) PutEmbeddings(ctx context.Context, model string, dim int, hashes []string, vecs [][]float32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vecs[model] == nil {
		s.vecs[model] = map[string][]float32{}
	}
	for i, h := range hashes {
		s.vecs[model][h] = slices.Clone(vecs[i][:dim])
	}
	return ctx.Err()
}

// Embeddings returns the cached vectors of model for the hashes.
func (s *Semantic) Embeddings(ctx context.Context, model string, hashes []string) (map[string][]float32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]float32{}
	for _, h := range hashes {
		if v, ok := s.vecs[model][h]; ok {
			out[h] = slices.Clone(v)
		}
	}
	return out, ctx.Err()
}

// EachEmbedding calls fn with the cached vector of model of each of
// hashes that has one, once a hash.
func (s *Semantic) EachEmbedding(ctx context.Context, model string, hashes []string, fn func(hash string, vec []float32) error) error {
	found, err := s.Embeddings(ctx, model, hashes)
	if err != nil {
		return err
	}
	for _, h := range slices.Sorted(maps.Keys(found)) {
		if err := fn(h, found[h]); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// NotesToChunk calls fn, by id, for every note whose chunks are missing,
// stale or cut for another model.
func (s *Semantic) NotesToChunk(ctx context.Context, model string, fn func(id int64, title, hash string)) error {
	s.mu.Lock()
	var todo []int64
	for id, n := range s.notes {
		if st, ok := s.chunked[id]; !ok || st.hash != n.hash || st.model != model {
			todo = append(todo, id)
		}
	}
	slices.Sort(todo)
	notes := make([]semNote, len(todo))
	for i, id := range todo {
		notes[i] = *s.notes[id]
	}
	s.mu.Unlock()
	for i, id := range todo {
		fn(id, notes[i].title, notes[i].hash)
	}
	return ctx.Err()
}

// NoteBody returns a note's text; ok is false when it is gone.
func (s *Semantic) NoteBody(ctx context.Context, id int64) (body string, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.notes[id]; n != nil {
		return n.body, true, ctx.Err()
	}
	return "", false, ctx.Err()
}

// PutChunks stores notes' chunks, skipping the notes changed (or gone)
// since they were cut.
func (s *Semantic) PutChunks(ctx context.Context, model string, notes []noema.ChunkedNote) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cn := range notes {
		if n := s.notes[cn.ID]; n != nil && n.hash == cn.Hash {
			s.chunked[cn.ID] = chunkState{model: model, hash: cn.Hash, chunks: slices.Clone(cn.Chunks)}
		}
	}
	s.version++
	return ctx.Err()
}

// CountChunks counts the stored chunks and those with a vector of model.
func (s *Semantic) CountChunks(ctx context.Context, model string) (total, embedded int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.chunked {
		for _, c := range st.chunks {
			total++
			if _, ok := s.vecs[model][c.TextHash]; ok {
				embedded++
			}
		}
	}
	return total, embedded, ctx.Err()
}

// SearchChunksVersion returns a counter that moves with every change of
// the chunks.
func (s *Semantic) SearchChunksVersion(ctx context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version, ctx.Err()
}

// GetMeta returns the meta value under key, "" for none.
func (s *Semantic) GetMeta(ctx context.Context, key string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meta[key], ctx.Err()
}

// PutMeta sets the meta value under key.
func (s *Semantic) PutMeta(ctx context.Context, key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.meta[key] = value
	return ctx.Err()
}

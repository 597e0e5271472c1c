package noema

import (
	"context"
	"time"
)

// This file holds the ports of the semantic service (package semantic): the
// concepts it embeds, the embedding cache, the note chunks it cuts and
// embeds, and the types those carry.

// SemanticIndex is the index the semantic service reads concepts and notes
// from and caches vectors and chunks in; sqlite.SemanticIndex implements it.
type SemanticIndex interface {
	SemanticConceptIndex
	EmbeddingCache
	ChunkIndex

	// GetMeta and PutMeta read and write a meta value.
	GetMeta(ctx context.Context, key string) (string, error)
	PutMeta(ctx context.Context, key, value string) error
}

// SemanticConceptIndex reads the concept registry as text to embed: the
// concepts changed since a revision, their names, and the notes that
// weigh them by recency.
type SemanticConceptIndex interface {
	// ConceptsVersion returns the counter of changes to the concept
	// registry.
	ConceptsVersion(ctx context.Context) (string, error)
	// EachConceptSince calls fn for every concept added or changed after
	// the names revision rev (every concept for 0), and returns the
	// revision and the deletion count it read at.
	EachConceptSince(ctx context.Context, rev int64, fn func(id, label string, aliases []string, description string)) (at, deleted int64, err error)
	// ConceptNames calls fn with the label and aliases of each concept
	// among ids that exists.
	ConceptNames(ctx context.Context, ids []string, fn func(id, label string, aliases []string)) error
	// ConceptNamed returns the id of the concept with the id, else of the
	// one owning the key; "" when there is none.
	ConceptNamed(ctx context.Context, id, key string) (string, error)
	// ConceptNotes calls fn for each concept among ids with each note
	// that mentions it and with its page.
	ConceptNotes(ctx context.Context, ids []string, fn func(id, path string, modified, accessed time.Time)) error
}

// EmbeddingCache holds the vectors of embedded texts, keyed by model and
// text hash, so that a text is embedded once per model.
type EmbeddingCache interface {
	// EmbeddedAmong returns those of hashes that have a cached vector for
	// model.
	EmbeddedAmong(ctx context.Context, model string, hashes []string) (map[string]bool, error)
	// PutEmbeddings caches vecs[i] for the text hashes[i] under model.
	PutEmbeddings(ctx context.Context, model string, dim int, hashes []string, vecs [][]float32) error
	// Embeddings returns the cached vectors of model for the hashes.
	Embeddings(ctx context.Context, model string, hashes []string) (map[string][]float32, error)
	// EachEmbedding calls fn with the cached vector of model of each of
	// hashes that has one, once a hash; vec is valid only during the
	// call.
	EachEmbedding(ctx context.Context, model string, hashes []string, fn func(hash string, vec []float32) error) error
}

// ChunkIndex stores the chunks notes are cut into for embedding.
type ChunkIndex interface {
	// NotesToChunk calls fn for every note whose chunks are missing,
	// stale, or stored under another key than key. A key names the model
	// and the chunking scheme (package semantic/chunk, Scheme.Key); the
	// index only compares keys.
	NotesToChunk(ctx context.Context, key string, fn func(id int64, title, hash string)) error
	// NoteBody returns a note's indexed text; ok false when it is gone.
	NoteBody(ctx context.Context, id int64) (body string, ok bool, err error)
	// PutChunks stores notes' chunks under key (see NotesToChunk),
	// skipping notes changed since.
	PutChunks(ctx context.Context, key string, notes []ChunkedNote) error
	// CountChunks counts chunks and those with a vector for model.
	CountChunks(ctx context.Context, model string) (total, embedded int, err error)
	// SearchChunksVersion returns a counter that moves whenever any
	// note's chunks change.
	SearchChunksVersion(ctx context.Context) (int64, error)
}

// ChunkedNote is one note's chunks as the index stores them: cut from the
// note (its index row id) at content hash Hash.
type ChunkedNote struct {
	ID     int64
	Hash   string
	Chunks []StoredChunk
}

// StoredChunk is one chunk of a note as the index stores it.
type StoredChunk struct {
	// Heading is the path of headings above the chunk ("Setup > Linux").
	Heading string
	// Start and End are the chunk's byte range in the note's body.
	Start, End int
	// TextHash is the hash of the chunk's embedded text: the key of its
	// vector in the [EmbeddingCache].
	TextHash string
}

// ConceptFreshnessReader is what a [SemanticConceptIndex] may also offer so
// that find_similar_concepts can bound every concept's decay in memory
// instead of asking for each candidate's notes (package semantic keeps the
// bound in step with what this reports). sqlite.SemanticIndex implements it.
type ConceptFreshnessReader interface {
	// ConceptFreshness reads, in one snapshot, the notes and concept
	// mentions that changed after the change-log position since (all of
	// them for since < 0, or when the log no longer reaches back to since,
	// or when so much changed that reading everything costs less: then
	// full is true), and returns the position it read at.
	//
	// Every note read is passed to v.Note first, then every concept whose
	// notes were read in full to v.Concept, then, when not full, every
	// concept a changed note now links to v.Touch. A concept is read in
	// full when full, and otherwise when it is new or relabelled, when a
	// key moved to it, or when its page is, or (oldPages: the concepts
	// whose page the caller last saw the note be) was, a changed note.
	ConceptFreshness(ctx context.Context, since int64, oldPages func(note int64) []string, v FreshnessVisitor) (at int64, full bool, err error)
	// ConceptNoteIDs calls fn for each concept among ids that exists with
	// the row ids of the notes that mention it and of its page (the notes
	// ConceptNotes reads, without reading them).
	ConceptNoteIDs(ctx context.Context, ids []string, fn func(id string, notes []int64)) error
}

// FreshnessVisitor receives what [ConceptFreshnessReader.ConceptFreshness]
// reads.
type FreshnessVisitor struct {
	// Note gives a note's path, modification time and last explicit
	// access as Unix nanoseconds (0: never read), as ConceptNotes gives
	// them. live is false for a note deleted since.
	Note func(id int64, path string, modified, accessed int64, live bool)
	// Concept gives every note of a concept: those linking it under any
	// of its keys and its page (page: its row id, 0 when none).
	Concept func(id string, notes []int64, page int64)
	// Touch gives a concept that a changed note links now.
	Touch func(id string, note int64)
}

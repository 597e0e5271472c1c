package noema

import (
	"context"
	"time"
)

// The mention index: what build_context (package recall) reads, the
// mention graph above all — every note with its activity and the concepts
// it links, every concept with the notes that link it.

// MentionIndex is what build_context reads from the index. Every method
// reads committed data and writes nothing.
type MentionIndex interface {
	// MentionGraph returns the mention graph as the index holds it now:
	// prev itself when nothing changed since it was built, else a graph
	// refreshed from prev (built from scratch when prev is nil or was not
	// returned by this index).
	MentionGraph(ctx context.Context, prev MentionGraph) (MentionGraph, error)
	// NoteBodies returns the indexed Markdown body (after the front
	// matter) of each note among the row ids, by row id; notes without
	// indexed text are absent.
	NoteBodies(ctx context.Context, ids []int64) (map[int64]string, error)
	// ConceptRelations returns the typed relations declared by the
	// concept's page or pointing at it, each once, resolved as
	// [GraphReader.Relations] resolves them.
	ConceptRelations(ctx context.Context, id string) ([]GraphEdge, error)
}

// MentionGraph is an immutable copy of the mention graph: the notes and
// the concepts they link, numbered densely. A note's Concepts and a
// concept's Notes hold numbers of the other kind. A deleted note or
// concept may keep its number as a hole (its Deleted set). A graph is
// never modified once returned, so callers may read it without locks, and
// must not modify what its accessors return.
type MentionGraph interface {
	// NumNotes returns how many notes are numbered, deleted ones included.
	NumNotes() int
	// NoteAt returns the note numbered i (0 ≤ i < NumNotes).
	NoteAt(i int32) *MentionNote
	// NumConcepts returns how many concepts are numbered, deleted ones
	// included.
	NumConcepts() int
	// ConceptAt returns the concept numbered j (0 ≤ j < NumConcepts).
	ConceptAt(j int32) *MentionConcept
	// Concept returns the number of the live concept with the id.
	Concept(id string) (int32, bool)
	// Note returns the number of the live note with the row id.
	Note(id int64) (int32, bool)
}

// MentionNote is a note of a [MentionGraph].
type MentionNote struct {
	// ID is the note's row id in the index.
	ID    int64
	Path  string
	Title string
	// Modified is the front matter `modified`, else the file's mtime.
	Modified time.Time
	// Accessed is the latest explicit read (zero when never read).
	Accessed time.Time
	// Concepts are the numbers of the concepts the note links, each
	// once, ascending.
	Concepts []int32
	// Order holds the same concepts in the order of their first link
	// (links at one place: by concept id): the note joins those within
	// graph.CooccurrenceWindow places of each other (see graph.Window).
	Order []int32
	// Deleted marks the number of a deleted note: it has no path and
	// links nothing.
	Deleted bool
}

// MentionConcept is a concept of a [MentionGraph].
type MentionConcept struct {
	ID    string
	Label string
	// Notes are the numbers of the notes that link the concept (under any
	// key), ascending.
	Notes []int32
	// At is, for each of Notes, the concept's place in that note's Order.
	At []int32
	// Deleted marks the number of a deleted concept: no id resolves to it
	// and no note links it.
	Deleted bool
}

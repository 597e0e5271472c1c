package noema

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
)

// The concept index: what concept and relation operations (packages
// concepts and relations) read of the concept registry and the relations.
// Their writes are changes to files, indexed through [IndexSync].

// ConceptIndex is what concept operations read of the concept registry.
type ConceptIndex interface {
	// Concept returns the concept with id, else the one owning key; nil
	// when there is none.
	Concept(ctx context.Context, id, key string) (*Concept, error)
	// KeyOwner returns the concept a key names.
	KeyOwner(ctx context.Context, key string) (id, label string, ok bool, err error)
	// MentionCounts returns how many times notes link each concept of ids.
	MentionCounts(ctx context.Context, ids []string) (map[string]int, error)
	// EachConceptByLabelSince calls fn, by label, for every concept added
	// or renamed after the names revision rev (every concept for 0), and
	// returns the revision and the deletion count it read at.
	EachConceptByLabelSince(ctx context.Context, rev int64, fn func(id, label string, aliases []string)) (at, deleted int64, err error)
	// ListConcepts returns one page of the concepts with a key matching
	// keyPattern (SQL LIKE), newest first, and how many match.
	ListConcepts(ctx context.Context, keyPattern string, offset, limit int) (total int, concepts []Concept, err error)
	// ConceptIDUsed reports whether a concept has the id.
	ConceptIDUsed(ctx context.Context, id string) (bool, error)
	// NotesLinking returns the paths of the notes linking a concept.
	NotesLinking(ctx context.Context, conceptID string) ([]string, error)
	// ConceptsVersion changes whenever the registry does.
	ConceptsVersion(ctx context.Context) (string, error)
	// NoteConcepts returns the concepts the note at path links.
	NoteConcepts(ctx context.Context, path string) ([]NoteConcept, error)
	// FilesRelatingTo returns the paths of the files declaring a relation
	// to any of refs (vault.RelationRef forms).
	FilesRelatingTo(ctx context.Context, refs []string) ([]string, error)
}

// IndexIdentity is offered by a [ConceptIndex] that can name the index it
// reads: an id fixed for the index's life and new for an index created
// anew (a deleted index rebuilt from the files restarts its revisions).
// Files kept beside the index and derived from it, such as find_concepts'
// names snapshot, carry it so that they are never taken for another
// index's.
type IndexIdentity interface {
	IndexID(ctx context.Context) (string, error)
}

// DuplicateIndex is what analyze_duplicates reads of a [ConceptIndex]
// besides the names, when the index offers it.
type DuplicateIndex interface {
	// DuplicateStats calls fn with the mention count, page path and whether
	// it is explicit, created time (Unix ns) and neighbours (ascending ids
	// comparable across concepts: notes linking it, its relations' other
	// ends) of each concept among ids, all concepts when ids is nil.
	DuplicateStats(ctx context.Context, ids []string, fn func(id string, mentions int, page string, explicit bool, created int64, neighbors []int64)) error
	// ConceptsSharingNotes calls fn with every concept linked from a note
	// that links the concept id, with the number of such notes.
	ConceptsSharingNotes(ctx context.Context, id string, fn func(other string, notes int)) error
}

// ConceptContextIndex gives the keys linked beside concepts, when a
// [ConceptIndex] offers it (analyze_duplicates).
type ConceptContextIndex interface {
	// ConceptContexts calls fn with each concept among ids and the other
	// keys linked from the notes of at most maxLinks links that link it.
	ConceptContexts(ctx context.Context, ids []string, maxLinks int, fn func(id string, keys []string)) error
}

// NoteTextIndex gives the text of the notes that write a phrase, when a
// [ConceptIndex] offers it: analyze_duplicates reads there the
// abbreviations notes spell out ("Transport Layer Security (TLS)").
type NoteTextIndex interface {
	// NotesWriting calls fn with the row id and body of the notes whose
	// text has each of phrases (its words in order) and a parenthesis or
	// a link's bar, at most limit notes a phrase.
	NotesWriting(ctx context.Context, phrases []string, limit int, fn func(id int64, body string)) error
}

// DistinctMarkIndex gives the pairs a person marked as two things, when a
// [ConceptIndex] offers it (analyze_duplicates): a concept's metadata key
// [DistinctFromKey] names the concepts it is not a duplicate of.
type DistinctMarkIndex interface {
	// DistinctMarks calls fn with each concept whose metadata holds
	// [DistinctFromKey] and that key's value as stored (a JSON string or
	// array of names).
	DistinctMarks(ctx context.Context, fn func(id string, value string)) error
}

// DistinctFromKey is the concept metadata key listing the names of the
// concepts a person judged not to be duplicates of it ("Not a duplicate"
// in the web view's review, or update_concept's metadata by hand).
const DistinctFromKey = "distinct_from"

// RelationIndex is what relation operations read of the indexed
// relations.
type RelationIndex interface {
	// Relation returns the indexed relation with the id (both ends as
	// node ids; a target key that names no concept stays
	// "concept:<key>") and the vault path of the file that declares it.
	// No relation with the id is an ENOTFOUND error.
	Relation(ctx context.Context, id string) (*Relation, string, error)
}

// ConceptsDir is the folder whose notes are concept pages.
const ConceptsDir = "concepts/"

// RelationID derives the stable id of a relation declared without one in
// the file at path, of type typ, to toRef ("concept:<key>" or
// "note:<path>").
func RelationID(path, typ, toRef string) string {
	sum := sha256.Sum256([]byte(path + "\x00" + typ + "\x00" + toRef))
	return "r_" + hex.EncodeToString(sum[:8])
}

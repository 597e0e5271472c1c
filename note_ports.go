package noema

import "context"

// NoteIndex is what note operations (package notes) read of the index,
// and the explicit reads they record. Their writes are changes to files,
// indexed through [IndexSync].
type NoteIndex interface {
	// NoteByTitle returns the path of the note titled title, else of a
	// note whose title has the key keyOf(title), the first by path either
	// way; "" when there is none.
	NoteByTitle(ctx context.Context, title string, keyOf func(string) string) (string, error)
	// ListNotes returns one page of the notes q selects, in its order, and
	// the number of notes it selects over all pages.
	ListNotes(ctx context.Context, q NoteQuery) (total int, notes []NoteSummary, err error)
	// LogAccess records an explicit read of the note at path without
	// waiting behind a writer.
	LogAccess(ctx context.Context, path string)
	// NotesLinkingKeys returns the paths of the notes linking any of keys.
	NotesLinkingKeys(ctx context.Context, keys []string) ([]string, error)
	// FilesRelatingTo returns the paths of the files declaring a relation
	// to any of refs (vault.RelationRef forms).
	FilesRelatingTo(ctx context.Context, refs []string) ([]string, error)
	// PageOfKey returns the path of the page of the concept key names, "".
	PageOfKey(ctx context.Context, key string) (string, error)
	// NotesNamed returns, in path order, the paths of the notes whose
	// title or file name (without .md) has the key keyOf(name) gives.
	NotesNamed(ctx context.Context, key string, keyOf func(string) string) ([]string, error)
}

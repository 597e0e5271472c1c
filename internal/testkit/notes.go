package testkit

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema"
)

// Notes is an in-memory index of notes: what package notes reads
// ([noema.NoteIndex]). The links and relations notes make live in a
// [Concepts], which answers NotesLinkingKeys, FilesRelatingTo and
// PageOfKey. LogAccess records a read at Now.
type Notes struct {
	links *Concepts
	now   func() time.Time

	mu    sync.Mutex
	notes map[string]noema.NoteSummary // by path
}

var _ noema.NoteIndex = (*Notes)(nil)

// NewNotes returns an empty note index whose links live in links and
// whose reads are dated by now.
func NewNotes(links *Concepts, now func() time.Time) *Notes {
	return &Notes{links: links, now: now, notes: map[string]noema.NoteSummary{}}
}

// Put adds (or replaces) a note; its URI is set from its path, and an
// access it records is kept unless n has a newer one.
func (f *Notes) Put(n noema.NoteSummary) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n.URI = noema.NoteURI(n.Path)
	n.Tags = append([]string{}, n.Tags...)
	if old, ok := f.notes[n.Path]; ok && old.Accessed.After(n.Accessed) {
		n.Accessed = old.Accessed
	}
	f.notes[n.Path] = n
}

// Get returns the note at path as the index holds it.
func (f *Notes) Get(path string) (noema.NoteSummary, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.notes[path]
	return n, ok
}

// lastActive is a note's latest activity: modification or explicit read.
func lastActive(n noema.NoteSummary) time.Time {
	if n.Accessed.After(n.Modified) {
		return n.Accessed
	}
	return n.Modified
}

// ListNotes returns one page of the notes q selects, in its order, and
// how many it selects.
func (f *Notes) ListNotes(ctx context.Context, q noema.NoteQuery) (total int, notes []noema.NoteSummary, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var match []noema.NoteSummary
	for _, n := range f.notes {
		switch {
		case q.Folder != "" && !strings.HasPrefix(n.Path, q.Folder+"/"):
		case q.Tag != "" && !slices.ContainsFunc(n.Tags, func(t string) bool { return strings.EqualFold(t, q.Tag) }):
		case q.Since != nil && lastActive(n).Before(*q.Since):
		default:
			n.Tags = slices.Clone(n.Tags)
			match = append(match, n)
		}
	}
	slices.SortFunc(match, func(a, b noema.NoteSummary) int {
		if q.ByActivity {
			if c := lastActive(b).Compare(lastActive(a)); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.Path, b.Path)
	})
	notes = []noema.NoteSummary{}
	if q.Offset < len(match) {
		notes = match[q.Offset:min(len(match), q.Offset+q.Limit)]
	}
	return len(match), notes, ctx.Err()
}

// NoteByTitle returns the path of the note titled title, else of a note
// whose title has the key keyOf(title), the first by path either way; ""
// when there is none.
func (f *Notes) NoteByTitle(ctx context.Context, title string, keyOf func(string) string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	paths := f.sortedPaths()
	for _, p := range paths {
		if f.notes[p].Title == title {
			return p, ctx.Err()
		}
	}
	key := keyOf(title)
	for _, p := range paths {
		if key != "" && keyOf(f.notes[p].Title) == key {
			return p, ctx.Err()
		}
	}
	return "", ctx.Err()
}

// NotesNamed returns, in path order, the notes whose title or file name
// (without .md) has the key.
func (f *Notes) NotesNamed(ctx context.Context, key string, keyOf func(string) string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, p := range f.sortedPaths() {
		if key != "" && (keyOf(f.notes[p].Title) == key || keyOf(strings.TrimSuffix(path.Base(p), ".md")) == key) {
			out = append(out, p)
		}
	}
	return out, ctx.Err()
}

// LogAccess records an explicit read of the note at path, now.
func (f *Notes) LogAccess(ctx context.Context, path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.notes[path]; ok {
		n.Accessed = f.now().UTC()
		f.notes[path] = n
	}
}

// NotesLinkingKeys returns, in path order, the notes linking any of keys.
func (f *Notes) NotesLinkingKeys(ctx context.Context, keys []string) ([]string, error) {
	return f.links.NotesLinkingKeys(ctx, keys)
}

// FilesRelatingTo returns, in path order, the files declaring a relation
// to any of refs.
func (f *Notes) FilesRelatingTo(ctx context.Context, refs []string) ([]string, error) {
	return f.links.FilesRelatingTo(ctx, refs)
}

// PageOfKey returns the vault path of the page of the concept key names.
func (f *Notes) PageOfKey(ctx context.Context, key string) (string, error) {
	return f.links.PageOfKey(ctx, key)
}

func (f *Notes) sortedPaths() []string {
	paths := make([]string, 0, len(f.notes))
	for p := range f.notes {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// NoteSync indexes the files an operation changed into a [Notes]
// ([noema.IndexSync]): a synced path's note is replaced by the one derive
// reads from the file (the indexer's parse step, given by the test:
// testkit reads no vault), or removed when ok is false (no file).
type NoteSync struct {
	notes  *Notes
	derive func(path string) (n noema.NoteSummary, ok bool, err error)
}

var _ noema.IndexSync = (*NoteSync)(nil)

// Sync returns the IndexSync that indexes files into f with derive.
func (f *Notes) Sync(derive func(path string) (n noema.NoteSummary, ok bool, err error)) *NoteSync {
	return &NoteSync{notes: f, derive: derive}
}

// SyncFiles re-derives the notes at paths; renamedFrom's note goes.
func (s *NoteSync) SyncFiles(ctx context.Context, paths []string, renamedFrom string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f := s.notes
	for _, p := range paths {
		n, ok, err := s.derive(p)
		if err != nil {
			return err
		}
		f.mu.Lock()
		delete(f.notes, renamedFrom)
		if !ok {
			delete(f.notes, p)
		}
		f.mu.Unlock()
		if ok {
			n.Path = p
			f.Put(n) // keeps the reads the index recorded
		}
	}
	return nil
}

// SyncWritten is SyncFiles for files just written: a failure says the
// files changed but the index is behind.
func (s *NoteSync) SyncWritten(ctx context.Context, paths []string, renamedFrom string) error {
	if err := s.SyncFiles(ctx, paths, renamedFrom); err != nil {
		return noema.IndexBehind(paths, err)
	}
	return nil
}

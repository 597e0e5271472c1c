package testkit

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/noema-mem/noema"
)

// Concepts is an in-memory concept registry and the links notes make to
// it: the index package concepts reads (noema.ConceptIndex). A concept owns
// the keys of its label and aliases; a note links keys, so it links the
// concept owning one. Key is the normalization of names into keys the
// vault uses (vault.Key), given by the test: testkit imports no adapter.
type Concepts struct {
	key func(string) string

	mu       sync.Mutex
	concepts map[string]*registered     // by id
	links    map[string]map[string]int  // note path -> key -> link count
	rels     map[string]map[string]bool // declaring file -> relation refs
	rev      int64                      // the names revision
	deleted  int64                      // concepts deleted so far
	version  int
}

var _ noema.ConceptIndex = (*Concepts)(nil)

// registered is a concept and the names revision of its last change.
type registered struct {
	c   noema.Concept
	rev int64
}

// NewConcepts returns an empty registry whose keys key gives (vault.Key).
func NewConcepts(key func(string) string) *Concepts {
	return &Concepts{key: key, concepts: map[string]*registered{}, links: map[string]map[string]int{}, rels: map[string]map[string]bool{}}
}

// Put adds the concept, or replaces the one with its id (a rename when
// its names change). Its Key is set from its label; its Page is a
// memory:// URI as the index gives it; its Mentions are read from the
// links.
func (f *Concepts) Put(c noema.Concept) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.put(c)
}

// put is Put with f.mu held.
func (f *Concepts) put(c noema.Concept) {
	c.Key = f.key(c.Label)
	c.Aliases = append([]string{}, c.Aliases...)
	f.rev++
	f.concepts[c.ID] = &registered{c: c, rev: f.rev}
	f.version++
}

// Delete removes the concept with the id.
func (f *Concepts) Delete(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.concepts[id]; ok {
		delete(f.concepts, id)
		f.deleted++
		f.version++
	}
}

// Link records that the note at path links name count more times.
func (f *Concepts) Link(path, name string, count int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.links[path] == nil {
		f.links[path] = map[string]int{}
	}
	f.links[path][f.key(name)] += count
	f.version++
}

// Relate records that the file at path declares a relation to ref (a
// vault.RelationRef form: "concept:<key>" or "note:<path>").
func (f *Concepts) Relate(path, ref string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rels[path] == nil {
		f.rels[path] = map[string]bool{}
	}
	f.rels[path][ref] = true
}

// owner returns the concept owning key, nil for none.
func (f *Concepts) owner(key string) *noema.Concept {
	for _, r := range f.concepts {
		if r.c.Key == key || slices.ContainsFunc(r.c.Aliases, func(a string) bool { return f.key(a) == key }) {
			return &r.c
		}
	}
	return nil
}

// keysOf returns the keys c owns.
func (f *Concepts) keysOf(c *noema.Concept) []string {
	keys := []string{c.Key}
	for _, a := range c.Aliases {
		keys = append(keys, f.key(a))
	}
	return keys
}

// linking returns, in path order, the notes linking any of keys, and
// the links they make to them in all.
func (f *Concepts) linking(keys []string) (paths []string, links int) {
	for _, p := range slices.Sorted(maps.Keys(f.links)) {
		n := 0
		for _, k := range keys {
			n += f.links[p][k]
		}
		if n > 0 {
			paths, links = append(paths, p), links+n
		}
	}
	return paths, links
}

// view returns a copy of c with its mention count.
func (f *Concepts) view(c *noema.Concept) *noema.Concept {
	out := *c
	out.Aliases = slices.Clone(c.Aliases)
	out.Metadata = maps.Clone(c.Metadata)
	_, out.Mentions = f.linking(f.keysOf(c))
	return &out
}

// Concept returns the concept with id, else the one owning key; nil when
// there is none.
func (f *Concepts) Concept(ctx context.Context, id, key string) (*noema.Concept, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.concepts[id]; ok {
		return f.view(&r.c), ctx.Err()
	}
	if c := f.owner(key); c != nil {
		return f.view(c), ctx.Err()
	}
	return nil, ctx.Err()
}

// KeyOwner returns the concept a key names.
func (f *Concepts) KeyOwner(ctx context.Context, key string) (id, label string, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.owner(key); c != nil {
		return c.ID, c.Label, true, ctx.Err()
	}
	return "", "", false, ctx.Err()
}

// MentionCounts returns how many times notes link each linked concept of
// ids.
func (f *Concepts) MentionCounts(ctx context.Context, ids []string) (map[string]int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for _, id := range ids {
		if r, ok := f.concepts[id]; ok {
			if _, n := f.linking(f.keysOf(&r.c)); n > 0 {
				out[id] = n
			}
		}
	}
	return out, ctx.Err()
}

// EachConceptByLabelSince calls fn, by label then id, for every concept
// added or renamed after the names revision rev (every one for 0), and
// returns the revision and the deletion count it read at.
func (f *Concepts) EachConceptByLabelSince(ctx context.Context, rev int64, fn func(id, label string, aliases []string)) (at, deleted int64, err error) {
	since, at, deleted := f.since(rev)
	slices.SortFunc(since, func(a, b noema.Concept) int { return cmp.Or(cmp.Compare(a.Label, b.Label), cmp.Compare(a.ID, b.ID)) })
	for _, c := range since {
		fn(c.ID, c.Label, slices.Clone(c.Aliases))
	}
	return at, deleted, ctx.Err()
}

// since returns copies of the concepts added or changed after the names
// revision rev, and the revision and the deletion count it read at.
func (f *Concepts) since(rev int64) (since []noema.Concept, at, deleted int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.concepts {
		if r.rev > rev {
			c := r.c
			c.Aliases = slices.Clone(c.Aliases)
			since = append(since, c)
		}
	}
	return since, f.rev, f.deleted
}

// ListConcepts returns one page of the concepts with a key matching
// keyPattern (SQL LIKE with \ escaping; "" matches all), newest first
// (by creation, then label and id), and how many match.
func (f *Concepts) ListConcepts(ctx context.Context, keyPattern string, offset, limit int) (total int, concepts []noema.Concept, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var match []noema.Concept
	for _, r := range f.concepts {
		if keyPattern == "" || slices.ContainsFunc(f.keysOf(&r.c), func(k string) bool { return Like(keyPattern, k) }) {
			match = append(match, *f.view(&r.c))
		}
	}
	slices.SortFunc(match, func(a, b noema.Concept) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(a.Label, b.Label), cmp.Compare(a.ID, b.ID))
	})
	concepts = []noema.Concept{}
	if offset < len(match) {
		concepts = match[offset:min(len(match), offset+limit)]
	}
	return len(match), concepts, ctx.Err()
}

// ConceptIDUsed reports whether a concept has the id.
func (f *Concepts) ConceptIDUsed(ctx context.Context, id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.concepts[id]
	return ok, ctx.Err()
}

// NotesLinking returns, in path order, the notes linking any key of the
// concept.
func (f *Concepts) NotesLinking(ctx context.Context, conceptID string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.concepts[conceptID]
	if !ok {
		return nil, ctx.Err()
	}
	paths, _ := f.linking(f.keysOf(&r.c))
	return paths, ctx.Err()
}

// NotesLinkingKeys returns, in path order, the notes linking any of keys.
func (f *Concepts) NotesLinkingKeys(ctx context.Context, keys []string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	paths, _ := f.linking(keys)
	return paths, ctx.Err()
}

// ConceptsVersion returns a value that changes with every change to the
// registry or the links.
func (f *Concepts) ConceptsVersion(ctx context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strconv.Itoa(f.version), ctx.Err()
}

// NoteConcepts returns the concepts the note at path links, by label then
// id, each with how many notes link it (counted up to 2).
func (f *Concepts) NoteConcepts(ctx context.Context, path string) ([]noema.NoteConcept, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []noema.NoteConcept
	for _, r := range f.concepts {
		keys := f.keysOf(&r.c)
		if !slices.ContainsFunc(keys, func(k string) bool { return f.links[path][k] > 0 }) {
			continue
		}
		notes, _ := f.linking(keys)
		out = append(out, noema.NoteConcept{ID: r.c.ID, Label: r.c.Label, Notes: min(2, len(notes)), HasPage: r.c.Page != ""})
	}
	slices.SortFunc(out, func(a, b noema.NoteConcept) int {
		return cmp.Or(cmp.Compare(a.Label, b.Label), cmp.Compare(a.ID, b.ID))
	})
	return out, ctx.Err()
}

// FilesRelatingTo returns, in path order, the files declaring a relation
// to any of refs.
func (f *Concepts) FilesRelatingTo(ctx context.Context, refs []string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, p := range slices.Sorted(maps.Keys(f.rels)) {
		if slices.ContainsFunc(refs, func(r string) bool { return f.rels[p][r] }) {
			out = append(out, p)
		}
	}
	return out, ctx.Err()
}

// PageOfKey returns the vault path of the page of the concept key names,
// "" when none (or it has no page).
func (f *Concepts) PageOfKey(ctx context.Context, key string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.owner(key); c != nil && c.Page != "" {
		return strings.TrimPrefix(c.Page, noema.URIScheme) + ".md", ctx.Err()
	}
	return "", ctx.Err()
}

// Like reports whether s matches the SQL LIKE pattern (% any run, _ any
// one character, \ escaping the next), comparing runes exactly: keys are
// already folded.
func Like(pattern, s string) bool {
	p, r := []rune(pattern), []rune(s)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(p) {
			switch c := p[i]; {
			case c == '%':
				for k := j; k <= len(r); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			case j >= len(r):
				return false
			case c == '_':
			case c == '\\' && i+1 < len(p):
				i++
				if p[i] != r[j] {
					return false
				}
			case c != r[j]:
				return false
			}
			i, j = i+1, j+1
		}
		return j == len(r)
	}
	return match(0, 0)
}

// ConceptFile is what a file tells the concept registry: the concept its
// front matter declares it the page of (nil for none), and how many
// times its links use each name.
type ConceptFile struct {
	Concept *noema.Concept
	Links   map[string]int
}

// ConceptSync indexes the files an operation changed into a [Concepts]
// ([noema.IndexSync]): a synced file's links replace those indexed for
// it, and the concept it is the page of replaces the one indexed there
// (which goes when it declares none). derive reads the file (the
// indexer's parse step, given by the test: testkit reads no vault); ok
// is false when no file is at the path.
type ConceptSync struct {
	concepts *Concepts
	derive   func(path string) (cf ConceptFile, ok bool, err error)
}

var _ noema.IndexSync = (*ConceptSync)(nil)

// Sync returns the IndexSync that indexes files into f with derive.
func (f *Concepts) Sync(derive func(path string) (cf ConceptFile, ok bool, err error)) *ConceptSync {
	return &ConceptSync{concepts: f, derive: derive}
}

// SyncFiles re-derives the files at paths; renamedFrom's links and page
// go.
func (s *ConceptSync) SyncFiles(ctx context.Context, paths []string, renamedFrom string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	files := make([]ConceptFile, len(paths))
	for i, p := range paths {
		cf, _, err := s.derive(p)
		if err != nil {
			return err
		}
		files[i] = cf
	}
	f := s.concepts
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, p := range append(slices.Clone(paths), renamedFrom) {
		if p == "" {
			continue
		}
		var cf ConceptFile
		if i < len(files) {
			cf = files[i]
		}
		page := noema.NoteURI(p)
		for id, r := range f.concepts {
			if r.c.Page == page && (cf.Concept == nil || cf.Concept.ID != id) {
				delete(f.concepts, id)
				f.deleted++
			}
		}
		delete(f.links, p)
		if len(cf.Links) > 0 {
			f.links[p] = map[string]int{}
			for name, n := range cf.Links {
				f.links[p][f.key(name)] += n
			}
		}
		if c := cf.Concept; c != nil {
			c.Page = page
			if old, ok := f.concepts[c.ID]; ok && c.CreatedAt.IsZero() {
				c.CreatedAt = old.c.CreatedAt
			}
			f.put(*c)
		}
		f.version++
	}
	return nil
}

// SyncWritten is SyncFiles for files just written: a failure says the
// files changed but the index is behind.
func (s *ConceptSync) SyncWritten(ctx context.Context, paths []string, renamedFrom string) error {
	if err := s.SyncFiles(ctx, paths, renamedFrom); err != nil {
		return noema.IndexBehind(paths, err)
	}
	return nil
}

package testkit

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/semantic/chunk"
)

// Search is an in-memory search index ([noema.SearchIndex]): notes with
// their text, tags and links, the concepts they link, and the chunk
// vectors an embedder made of them.
//
// Full text is matched as the query sanitiser of package search writes
// it: OR or AND of column-filtered clauses ({title body} or cjk), each a
// quoted phrase, a prefix ("word" *) or NEAR("a" "b", n). Words are
// matched case-insensitively but not stemmed (SQLite's porter tokenizer
// would also match "indexes" to "index"); the cjk column matches a run as
// a substring of the title or body. Hits are ranked by FTS5's bm25 with
// the query's column weights.
type Search struct {
	key func(string) string

	mu       sync.Mutex
	notes    map[int64]*searchNote
	concepts map[string]*searchConcept // by id
	text     int64                     // SearchTextVersion
	chunks   int64                     // SearchChunksVersion
	names    int                       // SearchConceptsVersion
}

var _ noema.SearchIndex = (*Search)(nil)

// searchNote is a note as the search index holds it.
type searchNote struct {
	note   noema.SearchNote
	tags   []string
	body   string
	links  map[string]bool // keys the note links
	hash   string          // the content its chunks were cut from
	model  string          // the embedder of its chunks
	key    string          // what its chunks are stored under (chunk.Scheme.Key)
	chunks []noema.ChunkVector
}

// searchConcept is a concept and the note that is its page (0: none).
type searchConcept struct {
	c    noema.SearchConcept
	page int64
}

// NewSearch returns an empty search index; key normalizes names into
// concept keys (vault.Key).
func NewSearch(key func(string) string) *Search {
	return &Search{key: key, notes: map[int64]*searchNote{}, concepts: map[string]*searchConcept{}}
}

// AddNote adds (or replaces) the note n.ID with its tags and body; links
// are the names its [[links]] use.
func (s *Search) AddNote(n noema.SearchNote, tags []string, body string, links ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sn := &searchNote{note: n, tags: slices.Clone(tags), body: body, links: map[string]bool{}}
	for _, l := range links {
		sn.links[s.key(l)] = true
	}
	if old := s.notes[n.ID]; old != nil {
		sn.hash, sn.model, sn.key, sn.chunks = old.hash, old.model, old.key, old.chunks
	}
	s.notes[n.ID] = sn
	s.text++
	s.names++
}

// AddConcept adds the concept with the id, label and aliases; page is the
// id of the note that is its page, 0 for none.
func (s *Search) AddConcept(id, label string, page int64, aliases ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := noema.SearchConcept{ID: id, Label: label, Keys: []string{s.key(label)}}
	for _, a := range aliases {
		c.Keys = append(c.Keys, s.key(a))
	}
	s.concepts[id] = &searchConcept{c: c, page: page}
	s.names++
}

// SetChunks stores the chunks of the note noteID as cut from the content
// with the hash and embedded by e, under the key the semantic service
// stores them under for e (chunk.For, Scheme.Key); their NoteID is set.
func (s *Search) SetChunks(noteID int64, e noema.Embedder, hash string, chunks ...noema.ChunkVector) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notes[noteID]
	if n == nil {
		panic(fmt.Sprintf("testkit: chunks of note %d, which was not added", noteID))
	}
	n.model, n.hash, n.chunks = e.Name(), hash, nil
	_, n.key = chunk.Scheme{}.ForEmbedder(e)
	for _, c := range chunks {
		c.NoteID, c.Vec = noteID, slices.Clone(c.Vec)
		n.chunks = append(n.chunks, c)
	}
	s.chunks++
}

// admits reports whether f admits n.
func admits(f noema.SearchFilter, n *searchNote) bool {
	if f.Folder != "" && !strings.HasPrefix(n.note.Path, f.Folder+"/") {
		return false
	}
	for _, want := range f.Tags {
		want = strings.ToLower(want)
		if !slices.ContainsFunc(n.tags, func(t string) bool {
			t = strings.ToLower(t)
			return t == want || strings.HasPrefix(t, want+"/")
		}) {
			return false
		}
	}
	if !f.Since.IsZero() {
		last := n.note.Modified
		if n.note.Accessed.After(last) {
			last = n.note.Accessed
		}
		if last.Before(f.Since) {
			return false
		}
	}
	return true
}

// SearchText returns the best q.Limit notes matching q.Match or q.Bonus
// that q.Filter admits: those matching q.All first, then by bm25, then by
// path.
func (s *Search) SearchText(ctx context.Context, q noema.TextQuery) ([]noema.TextHit, error) {
	match, err := parseFTS(q.Match)
	if err != nil {
		return nil, err
	}
	bonus, err := parseFTS(q.Bonus)
	if err != nil {
		return nil, err
	}
	all, err := parseFTS(q.All)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.corpus()
	either := ftsExpr{clauses: append(slices.Clone(match.clauses), bonus.clauses...)}
	var hits []noema.TextHit
	for _, n := range s.notes {
		d := st.docs[n.note.ID]
		if !admits(q.Filter, n) || !(match.matches(d) || bonus.matches(d)) {
			continue
		}
		hits = append(hits, noema.TextHit{ID: n.note.ID, All: all.matches(d), BM25: st.bm25(either, d, q.Weights), Note: n.note})
	}
	slices.SortFunc(hits, func(a, b noema.TextHit) int {
		if a.All != b.All {
			if a.All {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.BM25, b.BM25), cmp.Compare(a.Note.Path, b.Note.Path))
	})
	hits = hits[:min(len(hits), q.Limit)]
	for i := range hits[:min(len(hits), q.Bodies)] {
		hits[i].Body, hits[i].HasBody = s.notes[hits[i].ID].body, true
	}
	if q.Versions != nil {
		*q.Versions = noema.IndexVersions{Text: s.text, Concepts: fmt.Sprint(s.names), Read: len(hits) > 0}
	}
	return hits, ctx.Err()
}

// SearchTermDocs returns how many notes match each expression, and how
// many notes there are.
func (s *Search) SearchTermDocs(ctx context.Context, exprs []string) (docs []int, total int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.corpus()
	for _, e := range exprs {
		x, err := parseFTS(e)
		if err != nil {
			return nil, 0, err
		}
		n := 0
		for _, d := range st.docs {
			if x.matches(d) {
				n++
			}
		}
		docs = append(docs, n)
	}
	return docs, len(s.notes), ctx.Err()
}

// SearchTextVersion returns a number that changes with every note's text.
func (s *Search) SearchTextVersion(ctx context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text, ctx.Err()
}

// SearchBodies returns the body of each note among ids.
func (s *Search) SearchBodies(ctx context.Context, ids []int64) (map[int64]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64]string{}
	for _, id := range ids {
		if n := s.notes[id]; n != nil {
			out[id] = n.body
		}
	}
	return out, ctx.Err()
}

// SearchBodyTerms returns, for each note among ids whose body holds any
// of terms, those it holds, a bit each: each term matched against the
// note's body in the title and body columns' place, and against its cjk
// text (title and body, as the index's cjk column holds both).
func (s *Search) SearchBodyTerms(ctx context.Context, terms []string, ids []int64) (map[int64]uint64, error) {
	xs := make([]ftsExpr, len(terms))
	for i, t := range terms {
		x, err := parseFTS(t)
		if err != nil {
			return nil, err
		}
		xs[i] = x
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64]uint64{}
	st := s.corpus()
	for _, id := range ids {
		d := st.docs[id]
		if d == nil {
			continue
		}
		body := &ftsDoc{cols: [2][]string{nil, d.cols[1]}, raw: d.raw, cjk: d.cjk}
		for i, x := range xs {
			if x.matches(body) {
				out[id] |= 1 << i
			}
		}
	}
	return out, ctx.Err()
}

// SearchNotes returns each note among ids that exists, by id.
func (s *Search) SearchNotes(ctx context.Context, ids []int64) (map[int64]noema.SearchNote, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64]noema.SearchNote{}
	for _, id := range ids {
		if n := s.notes[id]; n != nil {
			out[id] = n.note
		}
	}
	return out, ctx.Err()
}

// SearchFilterIDs returns the ids of the notes f admits.
func (s *Search) SearchFilterIDs(ctx context.Context, f noema.SearchFilter) (map[int64]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64]bool{}
	for id, n := range s.notes {
		if admits(f, n) {
			out[id] = true
		}
	}
	return out, ctx.Err()
}

// SearchChunksVersion returns a number that changes with every note's
// chunks.
func (s *Search) SearchChunksVersion(ctx context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chunks, ctx.Err()
}

// SearchChunkStates returns, by note id, the hash the chunks of each note
// stored under key were cut from.
func (s *Search) SearchChunkStates(ctx context.Context, key string) (map[int64]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64]string{}
	for id, n := range s.notes {
		if n.key == key && len(n.chunks) > 0 {
			out[id] = n.hash
		}
	}
	return out, ctx.Err()
}

// SearchChunkVectors calls fn with every chunk with a vector of model of
// the notes among ids.
func (s *Search) SearchChunkVectors(ctx context.Context, model string, ids []int64, fn func(noema.ChunkVector)) error {
	s.mu.Lock()
	var out []noema.ChunkVector
	for _, id := range ids {
		if n := s.notes[id]; n != nil && n.model == model {
			for _, c := range n.chunks {
				if len(c.Vec) > 0 {
					c.Vec = slices.Clone(c.Vec)
					out = append(out, c)
				}
			}
		}
	}
	s.mu.Unlock()
	for _, c := range out {
		fn(c)
	}
	return ctx.Err()
}

// SearchChunkCount returns how many chunks the index holds.
func (s *Search) SearchChunkCount(ctx context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, sn := range s.notes {
		n += len(sn.chunks)
	}
	return n, ctx.Err()
}

// SearchConcept returns the concept owning key.
func (s *Search) SearchConcept(ctx context.Context, key string) (noema.SearchConcept, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(s.concepts)) {
		if c := s.concepts[id].c; slices.Contains(c.Keys, key) {
			c.Keys = slices.Clone(c.Keys)
			return c, true, ctx.Err()
		}
	}
	return noema.SearchConcept{}, false, ctx.Err()
}

// SearchConceptNotes returns the notes f admits that link the concept or
// are its page.
func (s *Search) SearchConceptNotes(ctx context.Context, conceptID string, f noema.SearchFilter) ([]noema.SearchNote, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.concepts[conceptID]
	if c == nil {
		return nil, ctx.Err()
	}
	var out []noema.SearchNote
	for id, n := range s.notes {
		links := slices.ContainsFunc(c.c.Keys, func(k string) bool { return n.links[k] })
		if (links || id == c.page) && admits(f, n) {
			out = append(out, n.note)
		}
	}
	return out, ctx.Err()
}

// SearchConceptsVersion returns a value that changes with the registry.
func (s *Search) SearchConceptsVersion(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprint(s.names), ctx.Err()
}

// SearchConceptKeys calls fn with every key of every concept.
func (s *Search) SearchConceptKeys(ctx context.Context, fn func(key, conceptID string)) error {
	s.mu.Lock()
	var pairs [][2]string
	for id, c := range s.concepts {
		for _, k := range c.c.Keys {
			pairs = append(pairs, [2]string{k, id})
		}
	}
	s.mu.Unlock()
	for _, p := range pairs {
		fn(p[0], p[1])
	}
	return ctx.Err()
}

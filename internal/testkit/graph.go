package testkit

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema"
)

// Graph is an in-memory graph index: the notes, concepts, mentions and
// relations a test adds, read through [noema.GraphReader] as the SQLite
// index reads them. Its version changes with every change.
type Graph struct {
	mu        sync.Mutex
	notes     map[string]noema.GraphNode // by vault path
	activity  map[string]*activity       // by vault path
	nextRow   int64
	concepts  map[string]noema.GraphNode // by id
	mentions  []mention
	relations []relation
	version   int
	reads     int
}

var (
	_ noema.GraphSource = (*Graph)(nil)
	_ noema.GraphReader = (*graphReader)(nil)
)

// activity is what the index keeps of a note besides its node: its row
// id, its last explicit read and its indexed body.
type activity struct {
	row      int64
	accessed time.Time
	body     string
}

// mention is count links from the note at path to a concept, the first at
// pos among the note's links.
type mention struct {
	path, concept string
	count         float64
	pos           int
}

// relation is a relation as declared: its source node, and the node id or
// ref ("concept:<key>", a missing note's URI) it points at.
type relation struct {
	id, from, typ, to string
	weight            *float64
}

// NewGraph returns an empty graph index.
func NewGraph() *Graph {
	return &Graph{notes: map[string]noema.GraphNode{}, concepts: map[string]noema.GraphNode{}, activity: map[string]*activity{}}
}

// AddNote adds (or replaces) the note at the vault path (with .md), titled
// title; its id is [noema.NoteURI] of the path. A new note gets the next
// row id.
func (g *Graph) AddNote(path, title string, tags ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.notes[path] = noema.GraphNode{ID: noema.NoteURI(path), Kind: noema.NodeNote, Label: title, Path: path,
		Aliases: []string{}, Tags: append([]string{}, tags...)}
	if g.activity[path] == nil {
		g.nextRow++
		g.activity[path] = &activity{row: g.nextRow}
	}
	g.version++
}

// NoteActivity sets the modification time, the last explicit read (zero:
// never) and the indexed body of the note at path, added before.
func (g *Graph) NoteActivity(path string, modified, accessed time.Time, body string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.notes[path]
	if !ok {
		panic("testkit: NoteActivity of " + path + ", which was not added")
	}
	n.Modified = modified
	g.notes[path] = n
	a := g.activity[path]
	a.accessed, a.body = accessed, body
	g.version++
}

// Row returns the row id of the note at path, 0 for none.
func (g *Graph) Row(path string) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if a := g.activity[path]; a != nil {
		return a.row
	}
	return 0
}

// AddConcept adds (or replaces) the concept with the id, label and
// aliases; its key is the label lowercased. page, when not "", is the
// vault path of its page.
func (g *Graph) AddConcept(id, label, page string, aliases ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := noema.GraphNode{ID: id, Kind: noema.NodeConcept, Label: label, Key: strings.ToLower(label),
		Aliases: append([]string{}, aliases...), Metadata: []byte("{}")}
	if page != "" {
		n.Page = noema.NoteURI(page)
	}
	g.concepts[id] = n
	g.version++
}

// Mention records count links from the note at path to the concept, the
// first at position pos among the note's distinct link spellings. Links
// to a concept or from a note that is not (or no longer) there make no
// edge, as links to no concept make none in the index.
func (g *Graph) Mention(path, conceptID string, count float64, pos int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.mentions = append(g.mentions, mention{path, conceptID, count, pos})
	g.version++
}

// Relate declares a relation with the id from the node from (a note's URI,
// or a concept id for a relation its page declares) of type typ to the
// node to: a node id, or "concept:<key>" (resolved through the concepts'
// keys and aliases) — a target that names no node makes a dangling edge.
// weight may be nil.
func (g *Graph) Relate(id, from, typ, to string, weight *float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.relations = append(g.relations, relation{id, from, typ, to, weight})
	g.version++
}

// Reads returns how many times ReadGraph ran: how often a cache above the
// index read it.
func (g *Graph) Reads() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reads
}

// GraphVersion returns the version, changed by every change.
func (g *Graph) GraphVersion(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return strconv.Itoa(g.version), nil
}

// ReadGraph runs fn with a reader of the graph as it is now; changes made
// while fn runs wait for it (one consistent snapshot).
func (g *Graph) ReadGraph(ctx context.Context, fn func(r noema.GraphReader) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reads++
	return fn(&graphReader{g: g})
}

// graphReader reads g, whose lock its ReadGraph holds.
type graphReader struct{ g *Graph }

// HasNote reports whether a note is at the vault path.
func (r *graphReader) HasNote(ctx context.Context, path string) (bool, error) {
	_, ok := r.g.notes[path]
	return ok, ctx.Err()
}

// HasConcept reports whether a concept has the id.
func (r *graphReader) HasConcept(ctx context.Context, id string) (bool, error) {
	_, ok := r.g.concepts[id]
	return ok, ctx.Err()
}

// Notes returns the notes at paths (unknown ones skipped), every note for
// nil.
func (r *graphReader) Notes(ctx context.Context, paths []string) ([]noema.GraphNode, error) {
	return pick(r.g.notes, paths), ctx.Err()
}

// Concepts returns the concepts with the ids (unknown ones skipped), every
// concept for nil.
func (r *graphReader) Concepts(ctx context.Context, ids []string) ([]noema.GraphNode, error) {
	return pick(r.g.concepts, ids), ctx.Err()
}

// pick returns copies of the nodes under keys, all for nil, in key order.
func pick(m map[string]noema.GraphNode, keys []string) []noema.GraphNode {
	if keys == nil {
		keys = make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
	}
	out := []noema.GraphNode{}
	for _, k := range slices.Compact(slices.Clone(keys)) {
		if n, ok := m[k]; ok {
			n.Aliases, n.Tags = slices.Clone(n.Aliases), slices.Clone(n.Tags)
			out = append(out, n)
		}
	}
	return out
}

// AllMentions returns every mentions edge.
func (r *graphReader) AllMentions(ctx context.Context) ([]noema.GraphEdge, error) {
	return r.g.mentionEdges(func(path, concept string) bool { return true }), ctx.Err()
}

// Mentions returns the mentions edges from the notes at paths or to the
// concepts, each once; with induced, from one of the notes to one of the
// concepts.
func (r *graphReader) Mentions(ctx context.Context, paths, concepts []string, induced bool) ([]noema.GraphEdge, error) {
	return r.g.mentionEdges(func(path, concept string) bool {
		inNotes, inConcepts := slices.Contains(paths, path), slices.Contains(concepts, concept)
		if induced {
			return inNotes && inConcepts
		}
		return inNotes || inConcepts
	}), ctx.Err()
}

// mentionEdges returns the mentions edges keep accepts: one per note and
// concept, weighing the sum of its links, at the position of the first.
func (g *Graph) mentionEdges(keep func(path, concept string) bool) []noema.GraphEdge {
	out := []noema.GraphEdge{}
	at := map[[2]string]int{}
	for _, m := range g.mentions {
		if _, ok := g.notes[m.path]; !ok {
			continue
		}
		if _, ok := g.concepts[m.concept]; !ok || !keep(m.path, m.concept) {
			continue
		}
		k := [2]string{m.path, m.concept}
		if i, ok := at[k]; ok {
			*out[i].Weight += m.count
			out[i].Position = min(out[i].Position, m.pos)
			continue
		}
		at[k] = len(out)
		w, src := m.count, noema.NoteURI(m.path)
		out = append(out, noema.GraphEdge{ID: "m:" + src + "->" + m.concept, Kind: noema.EdgeMentions, Type: noema.TypeMentions,
			Source: src, Target: m.concept, Weight: &w, Position: m.pos})
	}
	return out
}

// AllRelations returns every relation edge, dangling ones included.
func (r *graphReader) AllRelations(ctx context.Context) ([]noema.GraphEdge, error) {
	out := []noema.GraphEdge{}
	for _, rel := range r.g.relations {
		out = append(out, r.g.relationEdge(rel))
	}
	return out, ctx.Err()
}

// Relations returns the relation edges declared by the notes at paths
// (a concept's page declares for its concept) or by the concepts, and
// unless declaredOnly those pointing at them, each once.
func (r *graphReader) Relations(ctx context.Context, paths, concepts []string, declaredOnly bool) ([]noema.GraphEdge, error) {
	ids := slices.Clone(concepts)
	for _, p := range paths {
		ids = append(ids, noema.NoteURI(p))
	}
	out := []noema.GraphEdge{}
	for _, rel := range r.g.relations {
		e := r.g.relationEdge(rel)
		if slices.Contains(ids, e.Source) || !declaredOnly && !e.Dangling && slices.Contains(ids, e.Target) {
			out = append(out, e)
		}
	}
	return out, ctx.Err()
}

// relationEdge resolves a declared relation's ends: a note that is a
// concept's page declares for the concept; the target is the node it
// names, the concept owning a "concept:<key>", else dangling.
func (g *Graph) relationEdge(rel relation) noema.GraphEdge {
	e := noema.GraphEdge{ID: rel.id, Kind: noema.EdgeRelation, Type: rel.typ, Source: rel.from, Target: rel.to, Metadata: []byte("{}")}
	if rel.weight != nil {
		w := *rel.weight
		e.Weight = &w
	}
	for _, c := range g.concepts {
		if c.Page != "" && c.Page == rel.from {
			e.Source = c.ID
		}
	}
	switch {
	case g.concepts[rel.to].ID != "":
	case strings.HasPrefix(rel.to, noema.URIScheme):
		_, ok := g.notes[strings.TrimPrefix(rel.to, noema.URIScheme)+".md"]
		e.Dangling = !ok
	default:
		key, _ := strings.CutPrefix(rel.to, "concept:")
		e.Dangling = true
		for _, c := range g.concepts {
			if c.Key == key || slices.ContainsFunc(c.Aliases, func(a string) bool { return strings.ToLower(a) == key }) {
				e.Target, e.Dangling = c.ID, false
			}
		}
	}
	return e
}

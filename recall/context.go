package recall

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/timeline"
)

// Limits of build_context.
const (
	// DefaultDepth is the depth the front ends default to.
	DefaultDepth = 2
	// MaxDepth is the deepest expansion; deeper requests are clamped.
	MaxDepth = 4
	// DefaultMaxEntities bounds related concepts (and listed notes) when
	// MaxEntities is 0.
	DefaultMaxEntities = 20
	// MaxMaxEntities is the largest MaxEntities; larger ones are clamped.
	MaxMaxEntities = 200
	// MaxExcerptRunes bounds an excerpt, ellipses included.
	MaxExcerptRunes = 400
	// Candidates is how many find_concepts candidates a not_found error
	// names.
	Candidates = 5
)

// Input asks for the context around a concept.
//
// The front ends fill in the defaults of the `default` tags; called
// directly, a zero Depth means depth 0 (only the concept, its relations
// and notes), a zero MaxEntities means DefaultMaxEntities and a nil Decay
// means true.
type Input struct {
	// Concept names the concept: its id, label or any alias.
	Concept string `json:"concept" jsonschema:"the concept: id, label or any alias" cli:"arg"`
	// Depth is how many hops of co-occurrence to expand (0-4).
	Depth int `json:"depth,omitempty" jsonschema:"hops of co-occurring concepts to expand breadth first; 0 is the concept, its relations and notes alone (default 2, 0-4)" default:"2" minimum:"0" maximum:"4"`
	// MaxEntities bounds Related and, separately, Notes (1-200).
	MaxEntities int `json:"max_entities,omitempty" jsonschema:"how many related concepts, and how many notes, to return (default 20, max 200)" default:"20" minimum:"1" maximum:"200"`
	// IncludeContent adds each note's Excerpt.
	IncludeContent bool `json:"include_content,omitempty" jsonschema:"add to each note the paragraph around its first mention of the concept, at most 400 characters (default false)" default:"false"`
	// Decay weights notes by recency; nil means true.
	Decay *bool `json:"decay,omitempty" jsonschema:"weight notes by recency (default true); false weighs every note 1 and orders notes by last activity" default:"true" cli:"negate" negated:"weigh every note 1 and order notes by last activity, ignoring recency"`
	// AsOf answers from the notes valid at that date (docs/time.md).
	AsOf string `json:"as_of,omitempty" jsonschema:"answer as of this date (2026-01-02: the end of that day) or time (RFC 3339): notes written after it are left out (of the notes and of co-occurrence), a note superseded after it is current, one whose valid_until is before it has expired, and decay counts from it (default: now, leaving nothing out)"`
}

// Result is the context around one concept.
type Result struct {
	// Concept is the concept the name resolved to.
	Concept Concept `json:"concept"`
	// Relations are the concept's typed relations, outgoing first.
	Relations []Relation `json:"relations"`
	// Related are the co-occurring concepts, nearest and heaviest first.
	Related []Related `json:"related"`
	// Notes mention the concept, freshest first.
	Notes []Note `json:"notes"`
	// Community is the concept's community in the concept graph
	// (analyze_graph communities: Louvain, resolution 1, seed 1) and its
	// top siblings by PageRank; absent when unknown.
	Community *graph.ConceptCommunity `json:"community,omitempty"`
	// Warnings say what was cut short and why.
	Warnings []string `json:"warnings"`
}

// Concept is the concept the context is built around.
type Concept struct {
	// ID, Label, Aliases and Description are the concept's, as
	// get_node and list_concepts show them.
	ID          string   `json:"id"`
	Label       string   `json:"label"`
	Aliases     []string `json:"aliases"`
	Description string   `json:"description"`
	// Page is the memory:// URI of the concept's page, "" when it has none.
	Page string `json:"page"`
}

// Relation is one typed relation at the concept.
type Relation struct {
	// ID is the relation's stable id.
	ID string `json:"id"`
	// Type is the relation's type (part_of, depends_on, …).
	Type string `json:"type"`
	// Direction is "out" when the concept (its page) declares the
	// relation, "in" when another node's relation points at the concept.
	Direction string `json:"direction"`
	// Other is the node at the other end: a concept id or a note's
	// memory:// URI (for a dangling "out" relation, "concept:<key>" or
	// the missing note's URI). A relation from the concept to itself is
	// listed once, "out", with Other the concept's own id.
	Other string `json:"other"`
	// OtherLabel names the other end: the concept's label or the note's
	// title; empty when the end is dangling.
	OtherLabel string `json:"other_label,omitempty"`
}

// Related is a concept that co-occurs with the concept the context is
// built around, directly (distance 1) or through others.
type Related struct {
	// ID and Label are the related concept's.
	ID    string `json:"id"`
	Label string `json:"label"`
	// Count is the number of notes that link both this concept and Via
	// near each other (graph.Window).
	Count int `json:"count"`
	// Weight is the sum of those notes' decay weights (each in [0, 1];
	// 1 per note when decay is off), so Weight ≤ Count.
	Weight float64 `json:"weight"`
	// Distance is the number of co-occurrence hops from the concept: 1
	// for a concept sharing a note with it, 2 for one sharing a note with
	// a distance-1 concept but none with the concept, and so on.
	Distance int `json:"distance"`
	// Via is the id of the concept it was reached through: the concept
	// itself at distance 1, else a Related entry at Distance − 1 (the one
	// it co-occurs with most heavily).
	Via string `json:"via"`
}

// Note is a note that mentions the concept.
type Note struct {
	// URI is the note's memory:// URI; Title its title.
	URI   string `json:"uri"`
	Title string `json:"title"`
	// Decay is the note's recency weight in [0, 1] (a very old note's
	// may underflow to 0); 1 when decay is off.
	Decay float64 `json:"decay"`
	// Modified is the note's front matter `modified`, else its file's
	// modification time.
	Modified time.Time `json:"modified"`
	// Excerpt is the paragraph around the note's first link to the
	// concept, at most MaxExcerptRunes characters (only with
	// include_content).
	Excerpt string `json:"excerpt,omitempty"`
	// Place says what supersedes the note, or that it expired (absent
	// for a note that holds and replaces nothing).
	timeline.Place
}

// call is the state of one BuildContext call.
type call struct {
	s     *Service
	ctx   context.Context
	g     noema.MentionGraph
	now   time.Time
	decay bool
	// weights caches each note's decay weight (by note index; < 0 until
	// computed).
	weights []float64
	// view is the timeline at the answer's time; gone marks, with as_of,
	// the notes (by index) not written yet, which the answer leaves out.
	view timeline.View
	gone []bool
}

// weight returns the decay weight of the note at index i: 1 when decay is
// off, else the weight of its reference time (the latest of its
// modification and its last explicit read).
func (k *call) weight(i int32) float64 {
	if w := k.weights[i]; w >= 0 {
		return w
	}
	w := 1.0
	if k.decay {
		n := k.g.NoteAt(i)
		w = k.s.Decay.Weight(n.Path, reference(n), k.now)
	}
	k.weights[i] = w
	return w
}

// reference returns a note's decay reference time.
func reference(n *noema.MentionNote) time.Time {
	if n.Accessed.After(n.Modified) {
		return n.Accessed
	}
	return n.Modified
}

// BuildContext returns the context around in.Concept: the concept, its
// relations, its co-occurring concepts expanded breadth first to in.Depth
// hops (at most in.MaxEntities of them) and the notes that mention it
// (the freshest in.MaxEntities). An empty name is invalid_argument; a name
// that resolves to no concept is not_found, and the message names the
// closest find_concepts candidates rather than guessing one.
//
// BuildContext records no access: building context does not refresh any
// note's decay.
func (s *Service) BuildContext(ctx context.Context, in Input) (*Result, error) {
	name := strings.TrimSpace(in.Concept)
	if name == "" {
		return nil, noema.Errorf(noema.EINVALID, "concept is required")
	}
	if strings.TrimSpace(in.AsOf) != "" {
		if _, err := noema.ParseAsOf(in.AsOf); err != nil {
			return nil, err
		}
	}
	if in.Depth < 0 {
		return nil, noema.Errorf(noema.EINVALID, "depth must be between 0 and %d", MaxDepth)
	}
	if in.MaxEntities < 0 {
		return nil, noema.Errorf(noema.EINVALID, "max_entities must be between 1 and %d", MaxMaxEntities)
	}
	depth := min(in.Depth, MaxDepth)
	limit := in.MaxEntities
	if limit == 0 {
		limit = DefaultMaxEntities
	}
	limit = min(limit, MaxMaxEntities)

	c, err := s.Concepts.Get(ctx, name)
	if noema.ErrorCode(err) == noema.ENOTFOUND {
		return nil, s.notFound(ctx, name)
	}
	if err != nil {
		return nil, err
	}
	g, err := s.graph(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	k := &call{s: s, ctx: ctx, g: g, now: now(), decay: in.Decay == nil || *in.Decay,
		weights: make([]float64, g.NumNotes())}
	for i := range k.weights {
		k.weights[i] = -1
	}
	if err := k.overTime(in.AsOf); err != nil {
		return nil, err
	}
	res := &Result{
		Concept:  Concept{ID: c.ID, Label: c.Label, Aliases: c.Aliases, Description: c.Description, Page: c.Page},
		Related:  []Related{},
		Notes:    []Note{},
		Warnings: []string{},
	}
	if res.Concept.Aliases == nil {
		res.Concept.Aliases = []string{}
	}
	if res.Relations, err = k.relations(c.ID); err != nil {
		return nil, err
	}
	// A concept the graph lacks (created after the graph's snapshot) has
	// no notes yet.
	root, ok := g.Concept(c.ID)
	if !ok {
		return res, nil
	}
	if res.Notes, err = k.listNotes(g.ConceptAt(root).Notes, limit, &res.Warnings, c, in.IncludeContent); err != nil {
		return nil, err
	}
	res.Related = k.expand(root, depth, limit, &res.Warnings)
	if s.Community != nil {
		cc, err := s.Community(ctx, c.ID, CommunitySiblings)
		switch {
		case err == nil:
			res.Community = cc
		case noema.ErrorCode(err) == noema.ENOTFOUND:
			// Not in the graph's snapshot yet: no community to tell.
		default:
			res.Warnings = append(res.Warnings, "community unknown: "+noema.ErrorMessage(err))
		}
	}
	return res, nil
}

// CommunitySiblings is how many siblings of the concept's community
// build_context lists.
const CommunitySiblings = 5

// relations lists the concept's relations, outgoing first, then by type,
// other end and id.
func (k *call) relations(id string) ([]Relation, error) {
	edges, err := k.s.Index.ConceptRelations(k.ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]Relation, 0, len(edges))
	var titles map[string]string // note URI -> title, built at the first note end
	for _, e := range edges {
		r := Relation{ID: e.ID, Type: e.Type, Direction: "out", Other: e.Target}
		if e.Source != id {
			r.Direction, r.Other = "in", e.Source
		}
		if i, ok := k.g.Concept(r.Other); ok {
			r.OtherLabel = k.g.ConceptAt(i).Label
		} else if strings.HasPrefix(r.Other, noema.URIScheme) {
			if titles == nil {
				titles = make(map[string]string, k.g.NumNotes())
				for i := range k.g.NumNotes() {
					if n := k.g.NoteAt(int32(i)); !n.Deleted {
						titles[noema.NoteURI(n.Path)] = n.Title
					}
				}
			}
			r.OtherLabel = titles[r.Other]
		} else if c, err := k.s.Concepts.Get(k.ctx, r.Other); err == nil && c.ID == r.Other {
			r.OtherLabel = c.Label // newer than the graph's snapshot
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Relation) int {
		return cmp.Or(cmp.Compare(b.Direction, a.Direction), // "out" before "in"
			cmp.Compare(a.Type, b.Type), cmp.Compare(a.Other, b.Other), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// fresher reports whether the note at index a comes before the one at b
// in the notes list: a note that holds before one that no longer holds
// (see compareTime), then by decay weight, then latest activity
// (modification or explicit read), then path.
func (k *call) fresher(a, b int32) bool {
	na, nb := k.g.NoteAt(a), k.g.NoteAt(b)
	return cmp.Or(k.compareTime(a, b), cmp.Compare(k.weight(b), k.weight(a)), reference(nb).Compare(reference(na)),
		cmp.Compare(na.Path, nb.Path)) < 0
}

// listNotes lists the notes (indexes into the graph) mentioning the
// concept freshest first (see fresher), the first limit of them.
func (k *call) listNotes(notes []int32, limit int, warnings *[]string, c *noema.Concept, content bool) ([]Note, error) {
	// The first limit by insertion into a short sorted list: a hub has
	// thousands of notes, of which twenty are wanted.
	notes = k.existing(notes)
	top := make([]int32, 0, min(limit, len(notes)))
	for _, i := range notes {
		if len(top) == limit && !k.fresher(i, top[limit-1]) {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, i, func(have, want int32) int {
			if k.fresher(have, want) {
				return -1
			}
			return 1
		})
		if len(top) == limit {
			top = top[:limit-1]
		}
		top = slices.Insert(top, at, i)
	}
	if len(notes) > limit {
		*warnings = append(*warnings, fmt.Sprintf("%d notes mention %q; the freshest %d are listed (raise max_entities to see more)",
			len(notes), c.Label, limit))
	}
	k.belowSuccessors(top)
	var bodies map[int64]string
	if content && len(top) > 0 {
		ids := make([]int64, len(top))
		for j, i := range top {
			ids[j] = k.g.NoteAt(i).ID
		}
		var err error
		if bodies, err = k.s.Index.NoteBodies(k.ctx, ids); err != nil {
			return nil, err
		}
	}
	keys := conceptKeys(c)
	out := make([]Note, 0, len(top))
	for _, i := range top {
		n := k.g.NoteAt(i)
		note := Note{URI: noema.NoteURI(n.Path), Title: n.Title, Decay: k.weight(i), Modified: n.Modified,
			Place: k.view.Place(k.view.Status(n.ID))}
		if body, ok := bodies[n.ID]; ok {
			note.Excerpt = Excerpt(body, keys, MaxExcerptRunes)
		}
		out = append(out, note)
	}
	return out, nil
}

// pair is the co-occurrence of a candidate with one frontier concept.
type pair struct {
	count  int
	weight float64
}

// candidate is a concept reached at the current level.
type candidate struct {
	c    int32 // concept index
	via  int32 // concept index of the best frontier concept
	best pair
}

// expand walks co-occurrence breadth first from the concept at index
// root, level by level, keeping at most limit concepts in all. At each
// level, every concept sharing a note with a frontier concept and not seen
// at a lower level (nor the concept itself) is a candidate; its count and
// weight are those with the frontier concept it co-occurs with most
// heavily (by weight, then count, then that concept's rank), which becomes
// its via. Candidates are ordered by weight, then count, then label, then
// id; the first ones up to the remaining budget are kept and become the
// next frontier. Every candidate is marked visited, kept or not, so a
// concept is always listed at its true distance.
func (k *call) expand(root int32, depth, limit int, warnings *[]string) []Related {
	out := []Related{}
	if depth == 0 {
		return out
	}
	g := k.g
	visited := make([]bool, g.NumConcepts())
	visited[root] = true
	sums := make([]pair, g.NumConcepts())   // with the current frontier concept
	level := make([]int32, g.NumConcepts()) // index+1 into cands, 0 when not a candidate yet
	frontier := []int32{root}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		budget := limit - len(out)
		if budget <= 0 {
			*warnings = append(*warnings, fmt.Sprintf("max_entities (%d) was reached before depth %d; raise it to expand further", limit, d))
			break
		}
		var cands []candidate
		var touched []int32
		for _, f := range frontier {
			// Notes in index order: a fixed summation order, so weights
			// are reproducible to the bit.
			fc := g.ConceptAt(f)
			for at, ni := range fc.Notes {
				if k.gone != nil && k.gone[ni] {
					continue // not written yet as of the answer's time
				}
				w := k.weight(ni)
				// The concepts near f in the note (graph.Window), as the
				// concept graph joins them.
				for _, o := range graph.Window(g.NoteAt(ni).Order, int(fc.At[at])) {
					if visited[o] {
						continue
					}
					if sums[o].count == 0 {
						touched = append(touched, o)
					}
					sums[o].count++
					sums[o].weight += w
				}
			}
			for _, o := range touched {
				p := sums[o]
				sums[o] = pair{}
				if at := level[o]; at == 0 {
					cands = append(cands, candidate{c: o, via: f, best: p})
					level[o] = int32(len(cands))
				} else if cd := &cands[at-1]; p.weight > cd.best.weight || (p.weight == cd.best.weight && p.count > cd.best.count) {
					cd.via, cd.best = f, p
				}
			}
			touched = touched[:0]
		}
		if len(cands) == 0 {
			break
		}
		total := len(cands)
		for _, cd := range cands {
			visited[cd.c] = true
			level[cd.c] = 0
		}
		// Rank by weight and count first; labels decide only among the
		// candidates that can still make the cut: the first budget ones
		// and any tied with the last of them.
		heavier := func(a, b candidate) int {
			return cmp.Or(cmp.Compare(b.best.weight, a.best.weight), cmp.Compare(b.best.count, a.best.count))
		}
		slices.SortFunc(cands, heavier)
		if len(cands) > budget {
			cut := budget
			for cut < len(cands) && heavier(cands[cut], cands[budget-1]) == 0 {
				cut++
			}
			cands = cands[:cut]
		}
		slices.SortFunc(cands, func(a, b candidate) int {
			ca, cb := g.ConceptAt(a.c), g.ConceptAt(b.c)
			return cmp.Or(heavier(a, b), cmp.Compare(ca.Label, cb.Label), cmp.Compare(ca.ID, cb.ID))
		})
		if total > budget {
			*warnings = append(*warnings, fmt.Sprintf("%d concepts are at distance %d; the %d heaviest are listed (raise max_entities to see more)",
				total, d, budget))
			cands = cands[:budget]
		}
		next := make([]int32, 0, len(cands))
		for _, cd := range cands {
			c := g.ConceptAt(cd.c)
			out = append(out, Related{ID: c.ID, Label: c.Label, Count: cd.best.count, Weight: cd.best.weight,
				Distance: d, Via: g.ConceptAt(cd.via).ID})
			next = append(next, cd.c)
		}
		frontier = next
	}
	return out
}

// notFound returns the not_found error for a name that resolves to no
// concept, naming the closest find_concepts candidates (never picking
// one).
func (s *Service) notFound(ctx context.Context, name string) error {
	res, err := s.Concepts.Find(ctx, concepts.FindInput{Query: name, Limit: Candidates})
	var cands []concepts.Candidate
	if err == nil {
		cands = res.Candidates
	}
	if len(cands) == 0 {
		msg := fmt.Sprintf("no concept %q, and no concept is spelled like it", name)
		if err != nil {
			msg = fmt.Sprintf("no concept %q (no candidates: %s)", name, noema.ErrorMessage(err))
		}
		return &noema.Error{Code: noema.ENOTFOUND, Message: msg, Details: map[string]any{"candidates": []any{}}}
	}
	names := make([]string, len(cands))
	details := make([]any, len(cands))
	for i, cd := range cands {
		names[i] = fmt.Sprintf("%q (%s, score %.0f)", cd.Label, cd.ID, cd.Score)
		details[i] = map[string]any{"id": cd.ID, "label": cd.Label, "score": cd.Score, "matched": cd.Matched}
	}
	return &noema.Error{Code: noema.ENOTFOUND,
		Message: fmt.Sprintf("no concept %q; closest names (find_concepts): %s — call again with one of them if it is the concept you mean",
			name, strings.Join(names, ", ")),
		Details: map[string]any{"candidates": details}}
}

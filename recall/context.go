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
	Concept        string `json:"concept" jsonschema:"the concept: id, label or any alias" cli:"arg"`
	Depth          int    `json:"depth,omitempty" jsonschema:"hops of co-occurring concepts to expand breadth first; 0 is the concept, its relations and notes alone (default 2, 0-4)" default:"2" minimum:"0" maximum:"4"`
	MaxEntities    int    `json:"max_entities,omitempty" jsonschema:"how many related concepts, and how many notes, to return (default 20, max 200)" default:"20" minimum:"1" maximum:"200"`
	IncludeContent bool   `json:"include_content,omitempty" jsonschema:"add to each note the paragraph around its first mention of the concept, at most 400 characters (default false)" default:"false"`
	Decay          *bool  `json:"decay,omitempty" jsonschema:"weight notes by recency (default true); false weighs every note 1 and orders notes by last activity" default:"true" cli:"negate"`
}

// Result is the context around one concept.
type Result struct {
	Concept Concept `json:"concept"`
	// Relations are the concept's typed relations, outgoing first.
	Relations []Relation `json:"relations"`
	// Related are the co-occurring concepts, nearest and heaviest first.
	Related []Related `json:"related"`
	// Notes mention the concept, freshest first.
	Notes []Note `json:"notes"`
	// Warnings say what was cut short and why.
	Warnings []string `json:"warnings"`
}

// Concept is the concept the context is built around.
type Concept struct {
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
	ID   string `json:"id"`
	Type string `json:"type"`
	// Direction is "out" when the concept (its page) declares the
	// relation, "in" when another node's relation points at the concept.
	Direction string `json:"direction"`
	// Other is the node at the other end: a concept id or a note's
	// memory:// URI (for a dangling "out" relation, "concept:<key>" or
	// the missing note's URI). A relation from the concept to itself is
	// listed once, "out", with Other the concept's own id.
	Other string `json:"other"`
}

// Related is a concept that co-occurs with the concept the context is
// built around, directly (distance 1) or through others.
type Related struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// Count is the number of notes that link both this concept and Via.
	Count int `json:"count"`
	// Weight is the sum of those notes' decay weights (each in (0, 1];
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
	URI   string `json:"uri"`
	Title string `json:"title"`
	// Decay is the note's recency weight in (0, 1]; 1 when decay is off.
	Decay float64 `json:"decay"`
	// Modified is the note's front matter `modified`, else its file's
	// modification time.
	Modified time.Time `json:"modified"`
	// Excerpt is the paragraph around the note's first link to the
	// concept, at most MaxExcerptRunes characters (only with
	// include_content).
	Excerpt string `json:"excerpt,omitempty"`
}

// noteInfo is a note loaded once per call, with its weight.
type noteInfo struct {
	path, title string
	modified    time.Time
	ref         time.Time // decay reference time: latest of modified and accessed
	weight      float64
	concepts    []string
	loaded      bool // concepts loaded
}

// call is the state of one BuildContext call.
type call struct {
	s      *Service
	ctx    context.Context
	now    time.Time
	decay  bool
	notes  map[int64]*noteInfo
	labels map[string]string
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
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	k := &call{s: s, ctx: ctx, now: now(), decay: in.Decay == nil || *in.Decay,
		notes: map[int64]*noteInfo{}, labels: map[string]string{}}
	res := &Result{
		Concept:  Concept{ID: c.ID, Label: c.Label, Aliases: c.Aliases, Description: c.Description, Page: c.Page},
		Warnings: []string{},
	}
	if res.Concept.Aliases == nil {
		res.Concept.Aliases = []string{}
	}
	if res.Relations, err = k.relations(c.ID); err != nil {
		return nil, err
	}
	mentioning, err := s.Index.NotesMentioning(ctx, []string{c.ID})
	if err != nil {
		return nil, err
	}
	own := mentioning[c.ID]
	if res.Notes, err = k.listNotes(own, limit, &res.Warnings, c, in.IncludeContent, depth > 0); err != nil {
		return nil, err
	}
	if res.Related, err = k.expand(c, own, depth, limit, &res.Warnings); err != nil {
		return nil, err
	}
	return res, nil
}

// relations lists the concept's relations, outgoing first, then by type,
// other end and id.
func (k *call) relations(id string) ([]Relation, error) {
	edges, err := k.s.Index.ConceptRelations(k.ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]Relation, 0, len(edges))
	for _, e := range edges {
		r := Relation{ID: e.ID, Type: e.Type, Direction: "out", Other: e.Target}
		if e.Source != id {
			r.Direction, r.Other = "in", e.Source
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Relation) int {
		return cmp.Or(cmp.Compare(b.Direction, a.Direction), // "out" before "in"
			cmp.Compare(a.Type, b.Type), cmp.Compare(a.Other, b.Other), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// load reads the notes not yet loaded (with withConcepts, also those
// loaded without their concepts) and computes their weights.
func (k *call) load(ids []int64, withConcepts bool) error {
	var need []int64
	for _, id := range ids {
		if n, ok := k.notes[id]; !ok || (withConcepts && !n.loaded) {
			need = append(need, id)
		}
	}
	if len(need) == 0 {
		return nil
	}
	return k.s.Index.NoteMentions(k.ctx, need, withConcepts,
		func(id int64, path, title string, modified, accessed time.Time, concepts []string) {
			n := &noteInfo{path: path, title: title, modified: modified, weight: 1,
				ref: modified, concepts: concepts, loaded: withConcepts}
			if accessed.After(n.ref) {
				n.ref = accessed
			}
			if k.decay {
				n.weight = k.s.Decay.Weight(path, n.ref, k.now)
			}
			k.notes[id] = n
		})
}

// listNotes orders the notes mentioning the concept freshest first: by
// decay weight, then latest activity (modification or explicit read),
// then path; and keeps the first limit. withConcepts loads the concepts
// the notes link too, for the expansion that follows.
func (k *call) listNotes(ids []int64, limit int, warnings *[]string, c *noema.Concept, content, withConcepts bool) ([]Note, error) {
	if err := k.load(ids, withConcepts); err != nil {
		return nil, err
	}
	kept := make([]int64, 0, len(ids))
	for _, id := range ids {
		if _, ok := k.notes[id]; ok {
			kept = append(kept, id)
		}
	}
	slices.SortFunc(kept, func(a, b int64) int {
		na, nb := k.notes[a], k.notes[b]
		return cmp.Or(cmp.Compare(nb.weight, na.weight), nb.ref.Compare(na.ref), cmp.Compare(na.path, nb.path))
	})
	if len(kept) > limit {
		*warnings = append(*warnings, fmt.Sprintf("%d notes mention %q; the freshest %d are listed (raise max_entities to see more)",
			len(kept), c.Label, limit))
		kept = kept[:limit]
	}
	var bodies map[int64]string
	if content && len(kept) > 0 {
		var err error
		if bodies, err = k.s.Index.NoteBodies(k.ctx, kept); err != nil {
			return nil, err
		}
	}
	keys := conceptKeys(c)
	out := make([]Note, 0, len(kept))
	for _, id := range kept {
		n := k.notes[id]
		note := Note{URI: graph.NoteURI(n.path), Title: n.title, Decay: n.weight, Modified: n.modified}
		if body, ok := bodies[id]; ok {
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
	id   string
	via  int // index of the best frontier concept
	best pair
}

// expand walks co-occurrence breadth first from the concept, level by
// level, keeping at most limit concepts in all. At each level, every
// concept sharing a note with a frontier concept and not seen at a lower
// level (nor the concept itself) is a candidate; its count and weight are
// those with the frontier concept it co-occurs with most heavily (by
// weight, then count, then that concept's rank), which becomes its via.
// Candidates are ordered by weight, then count, then label, then id; the
// first ones up to the remaining budget are kept and become the next
// frontier. Every candidate is marked visited, kept or not, so a concept
// is always listed at its true distance.
func (k *call) expand(c *noema.Concept, own []int64, depth, limit int, warnings *[]string) ([]Related, error) {
	out := []Related{}
	if depth == 0 {
		return out, nil
	}
	visited := map[string]bool{c.ID: true}
	frontier := []string{c.ID}
	notesOf := map[string][]int64{c.ID: own}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		budget := limit - len(out)
		if budget <= 0 {
			*warnings = append(*warnings, fmt.Sprintf("max_entities (%d) was reached before depth %d; raise it to expand further", limit, d))
			break
		}
		if d > 1 {
			var err error
			if notesOf, err = k.s.Index.NotesMentioning(k.ctx, frontier); err != nil {
				return nil, err
			}
		}
		var all []int64
		for _, f := range frontier {
			slices.Sort(notesOf[f]) // a fixed summation order: weights are reproducible to the bit
			all = append(all, notesOf[f]...)
		}
		if err := k.load(all, true); err != nil {
			return nil, err
		}
		cands := map[string]*candidate{}
		var order []*candidate
		for fi, f := range frontier {
			sums := map[string]*pair{}
			var seen []string
			for _, nid := range notesOf[f] {
				n, ok := k.notes[nid]
				if !ok {
					continue // deleted since NotesMentioning read it
				}
				for _, o := range n.concepts {
					if visited[o] {
						continue
					}
					p := sums[o]
					if p == nil {
						p = &pair{}
						sums[o] = p
						seen = append(seen, o)
					}
					p.count++
					p.weight += n.weight
				}
			}
			for _, o := range seen {
				p := *sums[o]
				cd := cands[o]
				if cd == nil {
					cd = &candidate{id: o, via: fi, best: p}
					cands[o] = cd
					order = append(order, cd)
					continue
				}
				if p.weight > cd.best.weight || (p.weight == cd.best.weight && p.count > cd.best.count) {
					cd.via, cd.best = fi, p
				}
			}
		}
		if len(order) == 0 {
			break
		}
		total := len(order)
		for _, cd := range order {
			visited[cd.id] = true
		}
		// Rank by weight and count first; labels (a query) are needed only
		// for the candidates that can still make the cut: the first budget
		// ones and any tied with the last of them.
		heavier := func(a, b *candidate) int {
			return cmp.Or(cmp.Compare(b.best.weight, a.best.weight), cmp.Compare(b.best.count, a.best.count))
		}
		slices.SortFunc(order, heavier)
		if len(order) > budget {
			cut := budget
			for cut < len(order) && heavier(order[cut], order[budget-1]) == 0 {
				cut++
			}
			order = order[:cut]
		}
		ids := make([]string, len(order))
		for i, cd := range order {
			ids[i] = cd.id
		}
		if err := k.loadLabels(ids); err != nil {
			return nil, err
		}
		slices.SortFunc(order, func(a, b *candidate) int {
			return cmp.Or(heavier(a, b), cmp.Compare(k.labels[a.id], k.labels[b.id]), cmp.Compare(a.id, b.id))
		})
		if total > budget {
			*warnings = append(*warnings, fmt.Sprintf("%d concepts are at distance %d; the %d heaviest are listed (raise max_entities to see more)",
				total, d, budget))
			order = order[:budget]
		}
		next := make([]string, 0, len(order))
		for _, cd := range order {
			out = append(out, Related{ID: cd.id, Label: k.labels[cd.id], Count: cd.best.count, Weight: cd.best.weight,
				Distance: d, Via: frontier[cd.via]})
			next = append(next, cd.id)
		}
		frontier = next
	}
	return out, nil
}

// loadLabels reads the labels of the concepts not yet known.
func (k *call) loadLabels(ids []string) error {
	var need []string
	for _, id := range ids {
		if _, ok := k.labels[id]; !ok {
			need = append(need, id)
		}
	}
	if len(need) == 0 {
		return nil
	}
	labels, err := k.s.Index.ConceptLabels(k.ctx, need)
	if err != nil {
		return err
	}
	for _, id := range need {
		k.labels[id] = labels[id]
	}
	return nil
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
		return &noema.Error{Code: noema.ENOTFOUND,
			Message: fmt.Sprintf("no concept %q, and no concept is spelled like it", name),
			Details: map[string]any{"candidates": []any{}}}
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

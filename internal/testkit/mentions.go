package testkit

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/noema-mem/noema"
)

// Mentions is the mention index ([noema.MentionIndex]) over a [Graph]:
// build_context's view of the same notes, concepts, mentions and
// relations, as sqlite.MentionIndex is over a sqlite.DB.
type Mentions struct {
	g *Graph

	// built is the last graph built and the version it was built at.
	built   *mentionGraph
	builtAt int
	builds  int
}

var (
	_ noema.MentionIndex = (*Mentions)(nil)
	_ noema.MentionGraph = (*mentionGraph)(nil)
)

// Mentions returns the mention index over g.
func (g *Graph) Mentions() *Mentions { return &Mentions{g: g} }

// Builds returns how many mention graphs the index built: a caller that
// passes back the graph it has while nothing changed builds none.
func (m *Mentions) Builds() int {
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	return m.builds
}

// MentionGraph returns prev when it is the graph this index last built
// and nothing changed since, else a graph built afresh.
func (m *Mentions) MentionGraph(ctx context.Context, prev noema.MentionGraph) (noema.MentionGraph, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	if m.built != nil && prev == noema.MentionGraph(m.built) && m.builtAt == m.g.version {
		return prev, nil
	}
	m.built, m.builtAt = m.g.mentionGraph(), m.g.version
	m.builds++
	return m.built, nil
}

// NoteBodies returns the body of each note among the row ids that has
// one, by row id.
func (m *Mentions) NoteBodies(ctx context.Context, ids []int64) (map[int64]string, error) {
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	out := map[int64]string{}
	for _, a := range m.g.activity {
		if _, ok := m.g.notes[m.g.pathOf(a.row)]; ok && a.body != "" && slices.Contains(ids, a.row) {
			out[a.row] = a.body
		}
	}
	return out, ctx.Err()
}

// ConceptRelations returns the relations the concept's page declares and
// those pointing at it, each once, resolved as [noema.GraphReader]
// resolves them.
func (m *Mentions) ConceptRelations(ctx context.Context, id string) ([]noema.GraphEdge, error) {
	var out []noema.GraphEdge
	err := m.g.ReadGraph(ctx, func(r noema.GraphReader) error {
		var err error
		out, err = r.Relations(ctx, nil, []string{id}, false)
		return err
	})
	return out, err
}

// pathOf returns the path of the note with the row id, "" for none.
func (g *Graph) pathOf(row int64) string {
	for p, a := range g.activity {
		if a.row == row {
			return p
		}
	}
	return ""
}

// mentionGraph builds the mention graph of g now: notes numbered by row
// id, concepts by id.
func (g *Graph) mentionGraph() *mentionGraph {
	mg := &mentionGraph{concepts: map[string]int32{}, notes: map[int64]int32{}}
	for _, id := range slices.Sorted(maps.Keys(g.concepts)) {
		mg.concepts[id] = int32(len(mg.c))
		mg.c = append(mg.c, noema.MentionConcept{ID: id, Label: g.concepts[id].Label, Notes: []int32{}, At: []int32{}})
	}
	paths := slices.Collect(maps.Keys(g.notes))
	slices.SortFunc(paths, func(a, b string) int { return cmp.Compare(g.activity[a].row, g.activity[b].row) })
	for _, p := range paths {
		n, a := g.notes[p], g.activity[p]
		i := int32(len(mg.n))
		mg.notes[a.row] = i
		edges := g.mentionEdges(func(path, _ string) bool { return path == p })
		slices.SortFunc(edges, func(x, y noema.GraphEdge) int {
			return cmp.Or(cmp.Compare(x.Position, y.Position), cmp.Compare(x.Target, y.Target))
		})
		note := noema.MentionNote{ID: a.row, Path: p, Title: n.Label, Modified: n.Modified, Accessed: a.accessed,
			Concepts: []int32{}, Order: []int32{}}
		for at, e := range edges {
			j := mg.concepts[e.Target]
			note.Order = append(note.Order, j)
			mg.c[j].Notes = append(mg.c[j].Notes, i)
			mg.c[j].At = append(mg.c[j].At, int32(at))
		}
		note.Concepts = slices.Sorted(slices.Values(note.Order))
		mg.n = append(mg.n, note)
	}
	return mg
}

// mentionGraph is an immutable mention graph without holes.
type mentionGraph struct {
	n        []noema.MentionNote
	c        []noema.MentionConcept
	notes    map[int64]int32  // row id -> number
	concepts map[string]int32 // concept id -> number
}

func (g *mentionGraph) NumNotes() int                           { return len(g.n) }
func (g *mentionGraph) NoteAt(i int32) *noema.MentionNote       { return &g.n[i] }
func (g *mentionGraph) NumConcepts() int                        { return len(g.c) }
func (g *mentionGraph) ConceptAt(j int32) *noema.MentionConcept { return &g.c[j] }
func (g *mentionGraph) Concept(id string) (int32, bool)         { j, ok := g.concepts[id]; return j, ok }
func (g *mentionGraph) Note(id int64) (int32, bool)             { i, ok := g.notes[id]; return i, ok }

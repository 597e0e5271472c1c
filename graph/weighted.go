package graph

import (
	"cmp"
	"math"
	"slices"

	"github.com/noema-mem/noema"
)

// Graph kinds that analyze_graph analyses ([Weighted.Kind]).
const (
	// AnalyzeConcepts is the concept graph: concepts as nodes, an
	// undirected edge between two concepts weighted by the notes that link
	// both plus the weights of the typed relations between them.
	AnalyzeConcepts = "concepts"
	// AnalyzeFull is the exported graph (notes, concepts, mentions and
	// relations) read as an undirected weighted graph.
	AnalyzeFull = "full"
)

// Weighted is an undirected weighted graph over densely numbered nodes, in
// compressed sparse row form: the neighbours of node i are
// Adj[Off[i]:Off[i+1]] (ascending, i itself excluded) with the edge weights
// W at the same positions, and Self[i] is the weight of i's self-loop (0
// when it has none). Every undirected edge is stored at both ends. Only
// edges of positive weight exist.
//
// Nodes are numbered in the canonical order of the export (concepts by id,
// then notes by URI), so the same vault always gives the same numbering;
// every algorithm here breaks ties by that numbering.
//
// A Weighted is immutable once built and safe to share between goroutines.
type Weighted struct {
	// Kind is AnalyzeConcepts or AnalyzeFull.
	Kind string
	// IDs, Labels and Kinds describe node i (Kinds: noema.NodeConcept or noema.NodeNote).
	IDs, Labels, Kinds []string
	Off                []int32
	Adj                []int32
	W                  []float64
	Self               []float64

	index map[string]int32
}

// nodesOnly returns g's nodes without its edges (sharing g's node
// slices): what an answer naming nodes needs once the edges were used.
func (g *Weighted) nodesOnly() *Weighted {
	return &Weighted{Kind: g.Kind, IDs: g.IDs, Labels: g.Labels, Kinds: g.Kinds, index: g.index}
}

// N is the number of nodes.
func (g *Weighted) N() int { return len(g.IDs) }

// Edges is the number of undirected edges, self-loops included.
func (g *Weighted) Edges() int {
	n := len(g.Adj) / 2
	for _, s := range g.Self {
		if s > 0 {
			n++
		}
	}
	return n
}

// noema.GraphIndex returns the number of the node with the id.
func (g *Weighted) Index(id string) (int32, bool) {
	i, ok := g.index[id]
	return i, ok
}

// Neighbors returns node i's neighbours (ascending, i excluded) and the
// weights of the edges to them. The slices must not be modified.
func (g *Weighted) Neighbors(i int32) ([]int32, []float64) {
	return g.Adj[g.Off[i]:g.Off[i+1]], g.W[g.Off[i]:g.Off[i+1]]
}

// Weight returns the weight of the edge between i and j (0 when there is
// none).
func (g *Weighted) Weight(i, j int32) float64 {
	if i == j {
		return g.Self[i]
	}
	nb, w := g.Neighbors(i)
	if k, ok := slices.BinarySearch(nb, j); ok {
		return w[k]
	}
	return 0
}

// Strength returns the weighted degree of node i as networkx counts it
// (G.degree(weight="weight")): a self-loop counts twice.
func (g *Weighted) Strength(i int32) float64 {
	s := 2 * g.Self[i]
	for _, w := range g.W[g.Off[i]:g.Off[i+1]] {
		s += w
	}
	return s
}

// noema.GraphDegree returns the number of edges at node i as networkx counts it
// (G.degree()): a self-loop counts twice.
func (g *Weighted) Degree(i int32) int {
	d := int(g.Off[i+1] - g.Off[i])
	if g.Self[i] > 0 {
		d += 2
	}
	return d
}

// TotalWeight is the sum of the weights of all edges, each once, self-loops
// included (networkx's G.size(weight="weight")).
func (g *Weighted) TotalWeight() float64 {
	var m float64
	for i := range g.IDs {
		nb, w := g.Neighbors(int32(i))
		for k, j := range nb {
			if j > int32(i) {
				m += w[k]
			}
		}
		m += g.Self[i]
	}
	return m
}

// pairKey packs an unordered node pair, smaller first.
func pairKey(i, j int32) uint64 {
	if i > j {
		i, j = j, i
	}
	return uint64(uint32(i))<<32 | uint64(uint32(j))
}

// weightedBuilder collects nodes and summed pair weights.
type weightedBuilder struct {
	g     *Weighted
	pairs map[uint64]float64
}

func newBuilder(kind string, n int) *weightedBuilder {
	return &weightedBuilder{
		g: &Weighted{Kind: kind, IDs: make([]string, 0, n), Labels: make([]string, 0, n), Kinds: make([]string, 0, n),
			index: make(map[string]int32, n)},
		pairs: make(map[uint64]float64),
	}
}

func (b *weightedBuilder) node(id, label, kind string) {
	b.g.index[id] = int32(len(b.g.IDs))
	b.g.IDs = append(b.g.IDs, id)
	b.g.Labels = append(b.g.Labels, label)
	b.g.Kinds = append(b.g.Kinds, kind)
}

func (b *weightedBuilder) add(i, j int32, w float64) {
	b.pairs[pairKey(i, j)] += w
}

// build lays the collected pairs out as CSR. Pairs whose summed weight is
// not positive are dropped.
func (b *weightedBuilder) build() *Weighted {
	g := b.g
	n := len(g.IDs)
	g.Self = make([]float64, n)
	deg := make([]int32, n+1)
	keys := make([]uint64, 0, len(b.pairs))
	for k, w := range b.pairs {
		if !(w > 0) || math.IsInf(w, 0) {
			continue
		}
		i, j := int32(k>>32), int32(uint32(k))
		if i == j {
			g.Self[i] = w
			continue
		}
		keys = append(keys, k)
		deg[i]++
		deg[j]++
	}
	slices.Sort(keys)
	ui, uj, uw := make([]int32, len(keys)), make([]int32, len(keys)), make([]float64, len(keys))
	for k, key := range keys {
		ui[k], uj[k], uw[k] = int32(key>>32), int32(uint32(key)), b.pairs[key]
	}
	g.fill(deg[:n], ui, uj, uw)
	b.pairs = nil
	return g
}

// relationWeight is the weight a relation adds: its declared weight, 1
// when it declares none.
func relationWeight(e *noema.GraphEdge) float64 {
	if e.Weight == nil {
		return 1
	}
	return *e.Weight
}

// CooccurrenceWindow is how near two concepts must be in a note for the
// note to join them: a note links two concepts together when at most this
// many other concepts are first linked between their first links. A note
// of up to CooccurrenceWindow+1 distinct concepts (every note of a normal
// vault) joins every pair; a longer one (a list, an index, a dump of
// thousands of links) joins each concept to its 2×CooccurrenceWindow
// nearest, so co-occurrence costs O(links), not O(links²), in memory and
// time. docs/graph.md has the measurement behind the number. A note of
// more than CooccurrencePairs/CooccurrenceWindow concepts has a narrower
// window ([WindowOf]).
const CooccurrenceWindow = 32

// CooccurrencePairs bounds the pairs one note joins: a note of n distinct
// concepts joins each to those within WindowOf(n) places, so at most
// about CooccurrencePairs pairs however long it is (a dump of 100,000
// links joins each concept to its neighbours only; a note of up to 1,024
// concepts keeps the whole CooccurrenceWindow). Without it such a dump
// made 3.2 million edges, and analyze_graph's Louvain and betweenness ran
// past their 10 s on it.
const CooccurrencePairs = 32 * 1024

// WindowOf returns the co-occurrence window of a note of n distinct
// concepts: CooccurrenceWindow, narrowed for long notes so that n×window
// stays within CooccurrencePairs, and never below 1.
func WindowOf(n int) int {
	return min(CooccurrenceWindow, max(1, CooccurrencePairs/max(n, 1)))
}

// Window returns the part of a note's concepts (distinct, in order of
// first mention) that the concept at position p co-occurs with: those
// within WindowOf(len(order)) positions of it, itself included.
func Window[T any](order []T, p int) []T {
	w := WindowOf(len(order))
	return order[max(0, p-w):min(len(order), p+w+1)]
}

// ConceptGraph builds the concept graph of an export: every concept is a
// node (isolated ones too); two distinct concepts are joined by an
// undirected edge whose weight is the number of notes that mention both
// within CooccurrenceWindow of each other (by the mentions' Position) plus
// the weights of the typed relations between them in either direction
// (a relation without a weight counts 1). A relation from a concept to
// itself is a self-loop. Relations that touch a note and dangling relations
// are not part of it. A pair whose summed weight is not positive (relations
// declared with zero or negative weights) has no edge.
func ConceptGraph(x *Graph) *Weighted {
	l := &noema.ConceptLinks{}
	index := map[string]int32{}
	for i := range x.Nodes {
		if n := &x.Nodes[i]; n.Kind == noema.NodeConcept {
			index[n.ID] = int32(len(l.IDs))
			l.IDs = append(l.IDs, n.ID)
			l.Labels = append(l.Labels, n.Label)
		}
	}
	type mention struct {
		pos int
		c   int32
	}
	byNote := map[string]int{}
	var notes [][]mention
	for i := range x.Edges {
		e := &x.Edges[i]
		switch e.Kind {
		case noema.EdgeMentions:
			if c, ok := index[e.Target]; ok {
				k, ok := byNote[e.Source]
				if !ok {
					k = len(notes)
					byNote[e.Source] = k
					notes = append(notes, nil)
				}
				notes[k] = append(notes[k], mention{e.Position, c})
			}
		case noema.EdgeRelation:
			if !e.Dangling {
				l.Relations = append(l.Relations, *e)
			}
		}
	}
	l.Notes = make([][]int32, len(notes))
	for k, ms := range notes {
		slices.SortStableFunc(ms, func(a, b mention) int { return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.c, b.c)) })
		for _, m := range ms {
			l.Notes[k] = append(l.Notes[k], m.c)
		}
	}
	return ConceptGraphOf(l)
}

// ConceptGraphOf builds the concept graph ([ConceptGraph]) from its
// ingredients. Co-occurrence is counted concept by concept over the
// notes each concept is mentioned in, with a dense accumulator, each note
// adding the concepts within its window ([Window]): the cost is at most
// 2×CooccurrenceWindow per mention, with no hashing.
func ConceptGraphOf(l *noema.ConceptLinks) *Weighted {
	n := len(l.IDs)
	g := &Weighted{Kind: AnalyzeConcepts, IDs: l.IDs, Labels: l.Labels, Kinds: make([]string, n), index: make(map[string]int32, n)}
	for i, id := range l.IDs {
		g.Kinds[i] = noema.NodeConcept
		g.index[id] = int32(i)
	}
	// Each note's concepts, each once, in order of first mention; and each
	// concept's notes with its place in each.
	notes := make([][]int32, len(l.Notes))
	perConcept := make([]int32, n+1)
	for k, cs := range l.Notes {
		cs = noema.FirstMentions(cs)
		notes[k] = cs
		for _, c := range cs {
			perConcept[c+1]++
		}
	}
	for i := range n {
		perConcept[i+1] += perConcept[i]
	}
	noteOf := make([]int32, perConcept[n])
	posOf := make([]int32, perConcept[n])
	fill := slices.Clone(perConcept[:n])
	for k, cs := range notes {
		for p, c := range cs {
			noteOf[fill[c]], posOf[fill[c]] = int32(k), int32(p)
			fill[c]++
		}
	}
	// Relations between concepts, by their smaller end.
	type rel struct {
		j int32
		w float64
	}
	rels := map[int32][]rel{}
	for i := range l.Relations {
		e := &l.Relations[i]
		if e.Dangling || e.Kind != noema.EdgeRelation {
			continue
		}
		s, ok1 := g.index[e.Source]
		t, ok2 := g.index[e.Target]
		if ok1 && ok2 {
			rels[min(s, t)] = append(rels[min(s, t)], rel{max(s, t), relationWeight(e)})
		}
	}
	g.Self = make([]float64, n)
	acc := make([]float64, n)
	seen := make([]bool, n)
	var touched []int32
	// row gathers node i's edges to the nodes above it (ascending), with
	// their summed weights; i's self-loop goes into g.Self.
	row := func(i int32, each func(j int32, w float64)) {
		touched = touched[:0]
		for m := perConcept[i]; m < perConcept[i+1]; m++ {
			// Only the concepts above i: each pair is counted from its smaller end.
			for _, j := range Window(notes[noteOf[m]], int(posOf[m])) {
				if j <= i {
					continue
				}
				if !seen[j] {
					seen[j] = true
					touched = append(touched, j)
				}
				acc[j]++
			}
		}
		self := 0.0
		for _, r := range rels[i] {
			if r.j == i {
				self += r.w
				continue
			}
			if !seen[r.j] {
				seen[r.j] = true
				touched = append(touched, r.j)
			}
			acc[r.j] += r.w
		}
		if !(self > 0) || math.IsInf(self, 0) {
			self = 0
		}
		g.Self[i] = self
		slices.Sort(touched)
		for _, j := range touched {
			if w := acc[j]; w > 0 && !math.IsInf(w, 0) {
				each(j, w)
			}
			acc[j], seen[j] = 0, false
		}
	}
	// Two passes over the rows: the first counts each node's edges, the
	// second lays them out in rows of exactly that size. Gathering the
	// edges first and laying them out after (as before issue 21) held
	// them twice, and up to twice more while the gathering slices grew:
	// 2.5 GB beside the 1.2 GB graph at a million concepts.
	deg := make([]int32, n)
	for i := range int32(n) {
		row(i, func(j int32, _ float64) { deg[i]++; deg[j]++ })
	}
	g.Off = make([]int32, n+1)
	for i := range n {
		g.Off[i+1] = g.Off[i] + deg[i]
	}
	g.Adj = make([]int32, g.Off[n])
	g.W = make([]float64, g.Off[n])
	next := deg // each row's next free place, from its start
	copy(next, g.Off[:n])
	// Rows ascend: row j receives its smaller neighbours (from rows h < j,
	// h ascending) before row j itself adds its larger ones (ascending).
	for i := range int32(n) {
		row(i, func(j int32, w float64) {
			g.Adj[next[i]], g.W[next[i]] = j, w
			next[i]++
			g.Adj[next[j]], g.W[next[j]] = i, w
			next[j]++
		})
	}
	return g
}

// fill lays out the CSR rows from the upper-triangle entries (i < j),
// given in ascending (i, j) order, and each node's degree.
func (g *Weighted) fill(deg []int32, ui, uj []int32, uw []float64) {
	n := len(g.IDs)
	g.Off = make([]int32, n+1)
	for i := range n {
		g.Off[i+1] = g.Off[i] + deg[i]
	}
	g.Adj = make([]int32, g.Off[n])
	g.W = make([]float64, g.Off[n])
	next := slices.Clone(g.Off[:n])
	// Entries ascend by (i, j), so row r receives its smaller neighbours
	// (entries (h, r), h ascending) before its larger ones (entries (r, j),
	// j ascending): every row comes out ascending.
	for k := range ui {
		i, j, w := ui[k], uj[k], uw[k]
		g.Adj[next[i]], g.W[next[i]] = j, w
		next[i]++
		g.Adj[next[j]], g.W[next[j]] = i, w
		next[j]++
	}
}

// FullGraph reads an export as an undirected weighted graph: every note and
// concept is a node; a mentions edge weighs its link count, a relation its
// declared weight (1 when none); edges between the same two nodes, in
// either direction, are summed into one. Dangling relations are left out.
func FullGraph(x *Graph) *Weighted {
	b := newBuilder(AnalyzeFull, len(x.Nodes))
	for i := range x.Nodes {
		n := &x.Nodes[i]
		b.node(n.ID, n.Label, n.Kind)
	}
	for i := range x.Edges {
		e := &x.Edges[i]
		if e.Dangling {
			continue
		}
		s, ok1 := b.g.index[e.Source]
		t, ok2 := b.g.index[e.Target]
		if !ok1 || !ok2 {
			continue
		}
		w := relationWeight(e)
		b.add(s, t, w)
	}
	return b.build()
}

// NewWeighted builds a graph from node ids (labels equal to the ids, kind
// concept) and undirected weighted edges; edges between the same pair are
// summed and an edge from a node to itself is a self-loop. It is meant for
// tests and for callers with a graph of their own.
func NewWeighted(ids []string, edges []WeightedEdge) *Weighted {
	b := newBuilder(AnalyzeConcepts, len(ids))
	for _, id := range ids {
		b.node(id, id, noema.NodeConcept)
	}
	for _, e := range edges {
		s, ok1 := b.g.index[e.A]
		t, ok2 := b.g.index[e.B]
		if ok1 && ok2 {
			b.add(s, t, e.Weight)
		}
	}
	return b.build()
}

// WeightedEdge is an undirected edge for [NewWeighted].
type WeightedEdge struct {
	A, B   string
	Weight float64
}

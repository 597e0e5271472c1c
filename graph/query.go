package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/noema-mem/noema"
)

// Directions for [NeighborOptions].
const (
	DirectionOut  = "out"
	DirectionIn   = "in"
	DirectionBoth = "both"
)

// Limits of the queries. Larger requests are clamped, not refused.
const (
	DefaultNeighborLimit = 50
	MaxNeighborLimit     = 500
	DefaultDepth         = 1
	MaxDepth             = 5
	// MaxSubgraphNodes caps the nodes [Subgraph] returns. Expansion by
	// mentions grows fast (a popular concept reaches most notes in two
	// steps), so the cap keeps an answer small enough to read and to send.
	MaxSubgraphNodes = 2000
)

// loader reads nodes and edges by canonical node id from one snapshot.
type loader struct {
	ctx context.Context
	r   noema.GraphReader
}

// resolve returns the canonical id of the node a caller named: a concept
// id, or a note URI memory://<path-without-.md> (the scheme in any case; a
// URI that also ends in .md is accepted when no note has that longer name).
func (l loader) resolve(id string) (string, error) {
	if strings.TrimSpace(id) == "" {
		return "", noema.Errorf(noema.EINVALID, "empty node id: want a concept id or a note URI (%s<path>)", noema.URIScheme)
	}
	if isNoteID(id) {
		rest := id[len(noema.URIScheme):]
		paths := []string{rest + ".md"}
		if strings.HasSuffix(rest, ".md") {
			paths = append(paths, rest)
		}
		for _, p := range paths {
			ok, err := l.r.HasNote(l.ctx, p)
			if err != nil {
				return "", fmt.Errorf("look up node %q: %w", id, err)
			}
			if ok {
				return noema.NoteURI(p), nil
			}
		}
		return "", noema.Errorf(noema.ENOTFOUND, "no note %q", id)
	}
	ok, err := l.r.HasConcept(l.ctx, id)
	if err != nil {
		return "", fmt.Errorf("look up node %q: %w", id, err)
	}
	if !ok {
		return "", noema.Errorf(noema.ENOTFOUND, "no node %q: want a concept id or a note URI (%s<path>)", id, noema.URIScheme)
	}
	return id, nil
}

// split divides canonical node ids into note paths and concept ids.
func split(ids []string) (paths, concepts []string) {
	for _, id := range ids {
		if isNoteID(id) {
			paths = append(paths, notePath(id))
		} else {
			concepts = append(concepts, id)
		}
	}
	return paths, concepts
}

// nodes reads the nodes with the given canonical ids (unknown ids are
// skipped), in canonical order.
func (l loader) nodes(ids []string) ([]noema.GraphNode, error) {
	paths, concepts := split(ids)
	out := []noema.GraphNode{}
	if len(paths) > 0 {
		ns, err := l.r.Notes(l.ctx, paths)
		if err != nil {
			return nil, err
		}
		out = append(out, ns...)
	}
	if len(concepts) > 0 {
		cs, err := l.r.Concepts(l.ctx, concepts)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	sortNodes(out)
	return out, nil
}

// node reads one node by canonical id.
func (l loader) node(id string) (*noema.GraphNode, error) {
	nodes, err := l.nodes([]string{id})
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, noema.Errorf(noema.ENOTFOUND, "no node %q", id)
	}
	return &nodes[0], nil
}

// incident reads every edge with at least one end among ids (canonical
// node ids), each once, in no particular order. With induced set, it reads
// only edges with both ends among ids (so never a dangling one).
func (l loader) incident(ids []string, induced bool) ([]noema.GraphEdge, error) {
	paths, concepts := split(ids)
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	edges, err := l.r.Mentions(l.ctx, paths, concepts, induced)
	if err != nil {
		return nil, err
	}
	// Relations declared by the nodes (a concept declares in its page) and,
	// unless induced, those pointing at them.
	rels, err := l.r.Relations(l.ctx, paths, concepts, induced)
	if err != nil {
		return nil, err
	}
	for _, e := range rels {
		// A page's relation starts at its concept: it touches the set only
		// when that concept or the target is in it.
		if (induced && set[e.Source] && set[e.Target] && !e.Dangling) || (!induced && (set[e.Source] || set[e.Target])) {
			edges = append(edges, e)
		}
	}
	return edges, nil
}

// GetNode returns the node with the given id (a concept id or a memory://
// note URI) with its [noema.GraphDegree]. An unknown id is a noema.ENOTFOUND error, an
// empty one noema.EINVALID.
func GetNode(ctx context.Context, db noema.GraphIndex, id string) (*noema.GraphNode, error) {
	var n *noema.GraphNode
	err := db.ReadGraph(ctx, func(r noema.GraphReader) error {
		l := loader{ctx: ctx, r: r}
		cid, err := l.resolve(id)
		if err != nil {
			return err
		}
		if n, err = l.node(cid); err != nil {
			return err
		}
		edges, err := l.incident([]string{cid}, false)
		if err != nil {
			return err
		}
		d := noema.GraphDegree{}
		for _, e := range edges {
			if e.Source == cid {
				countEdge(&d.Out, e.Kind)
			}
			if e.Target == cid {
				countEdge(&d.In, e.Kind)
			}
		}
		n.Degree = &d
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("get node: %w", err)
	}
	return n, nil
}

// countEdge counts an edge of the kind in c.
func countEdge(c *noema.GraphDegreeCount, kind string) {
	if kind == noema.EdgeMentions {
		c.Mentions++
	} else {
		c.Relations++
	}
}

// NeighborOptions select and page the edges [Neighbors] returns.
type NeighborOptions struct {
	// Direction is DirectionOut (edges leaving the node), DirectionIn or
	// DirectionBoth; empty means both.
	Direction string
	// Type keeps only edges of this type ("mentions" for mentions edges, a
	// relation type otherwise); empty keeps all.
	Type string
	// Offset skips that many edges; it must not be negative.
	Offset int
	// Limit is the page size: 0 means DefaultNeighborLimit, larger than
	// MaxNeighborLimit means MaxNeighborLimit; it must not be negative.
	Limit int
}

// Neighbor is one edge at the node and the node on its other side.
type Neighbor struct {
	// Direction is "out" when the edge leaves the node, "in" when it
	// arrives. A self-loop is listed once, as "out", unless only "in" was
	// asked for.
	Direction string          `json:"direction"`
	Edge      noema.GraphEdge `json:"edge"`
	// Node is the other end; nil for a dangling relation, whose target
	// does not exist.
	Node *noema.GraphNode `json:"node,omitempty"`
}

// NeighborPage is one page of a node's neighbours.
type NeighborPage struct {
	// Node is the node asked about.
	Node      noema.GraphNode `json:"node"`
	Neighbors []Neighbor      `json:"neighbors"`
	// Total is the number of matching edges over all pages.
	Total   int  `json:"total"`
	Offset  int  `json:"offset"`
	Limit   int  `json:"limit"`
	HasMore bool `json:"has_more"`
}

// Neighbors returns the edges that touch the node with the given id (a
// concept id or a memory:// note URI), each with the node on the other
// side, one page at a time. Edges are ordered relations first, then by
// type, direction (out before in), the other node's id and the edge id, so
// the typed relations are not buried under a popular concept's mentions.
//
// An unknown id is a noema.ENOTFOUND error; a bad direction, a negative
// offset or limit are noema.EINVALID.
func Neighbors(ctx context.Context, db noema.GraphIndex, id string, opts NeighborOptions) (*NeighborPage, error) {
	switch opts.Direction {
	case "":
		opts.Direction = DirectionBoth
	case DirectionOut, DirectionIn, DirectionBoth:
	default:
		return nil, noema.Errorf(noema.EINVALID, "direction %q: want out, in or both", opts.Direction).WithParam("direction")
	}
	if opts.Offset < 0 {
		return nil, noema.Errorf(noema.EINVALID, "offset %d: must not be negative", opts.Offset).WithParam("offset")
	}
	switch {
	case opts.Limit < 0:
		return nil, noema.Errorf(noema.EINVALID, "limit %d: must not be negative", opts.Limit).WithParam("limit")
	case opts.Limit == 0:
		opts.Limit = DefaultNeighborLimit
	case opts.Limit > MaxNeighborLimit:
		opts.Limit = MaxNeighborLimit
	}

	page := &NeighborPage{Offset: opts.Offset, Limit: opts.Limit, Neighbors: []Neighbor{}}
	err := db.ReadGraph(ctx, func(r noema.GraphReader) error {
		l := loader{ctx: ctx, r: r}
		cid, err := l.resolve(id)
		if err != nil {
			return err
		}
		n, err := l.node(cid)
		if err != nil {
			return err
		}
		page.Node = *n
		edges, err := l.incident([]string{cid}, false)
		if err != nil {
			return err
		}
		var all []Neighbor
		for _, e := range edges {
			if opts.Type != "" && e.Type != opts.Type {
				continue
			}
			switch {
			case e.Source == cid && opts.Direction != DirectionIn:
				all = append(all, Neighbor{Direction: DirectionOut, Edge: e})
			case e.Target == cid && opts.Direction != DirectionOut:
				all = append(all, Neighbor{Direction: DirectionIn, Edge: e})
			}
		}
		slices.SortFunc(all, compareNeighbors)
		page.Total = len(all)
		if opts.Offset >= len(all) {
			return nil
		}
		end := min(opts.Offset+opts.Limit, len(all))
		page.HasMore = end < len(all)
		page.Neighbors = all[opts.Offset:end]
		var ids []string
		for _, nb := range page.Neighbors {
			if !nb.Edge.Dangling {
				ids = append(ids, nb.other())
			}
		}
		nodes, err := l.nodes(ids)
		if err != nil {
			return err
		}
		byID := make(map[string]*noema.GraphNode, len(nodes))
		for i := range nodes {
			byID[nodes[i].ID] = &nodes[i]
		}
		for i := range page.Neighbors {
			if !page.Neighbors[i].Edge.Dangling {
				page.Neighbors[i].Node = byID[page.Neighbors[i].other()]
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neighbors: %w", err)
	}
	return page, nil
}

// other returns the id at the far end of the neighbour's edge.
func (nb *Neighbor) other() string {
	if nb.Direction == DirectionOut {
		return nb.Edge.Target
	}
	return nb.Edge.Source
}

func compareNeighbors(a, b Neighbor) int {
	// Relations before mentions.
	if a.Edge.Kind != b.Edge.Kind {
		if a.Edge.Kind == noema.EdgeRelation {
			return -1
		}
		if b.Edge.Kind == noema.EdgeRelation {
			return 1
		}
		return strings.Compare(a.Edge.Kind, b.Edge.Kind)
	}
	if c := strings.Compare(a.Edge.Type, b.Edge.Type); c != 0 {
		return c
	}
	if a.Direction != b.Direction {
		if a.Direction == DirectionOut {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.other(), b.other()); c != 0 {
		return c
	}
	return strings.Compare(a.Edge.ID, b.Edge.ID)
}

// Subgraph returns the region around the nodes named by ids (concept ids
// or memory:// note URIs): a breadth-first expansion over edges in both
// directions, depth steps away (0 means DefaultDepth; more than MaxDepth is
// clamped), following only edges of type typ when it is not empty. Each
// node is visited once. The result holds the visited nodes and every edge
// of the wanted type between two of them (so never a dangling relation).
//
// The expansion stops at MaxSubgraphNodes nodes and sets Truncated; the
// nodes kept from the last level are the first in canonical order
// (concepts before notes, then by id), so the cut is deterministic.
//
// An empty ids, a negative depth, or more than MaxSubgraphNodes ids are
// noema.EINVALID; an unknown id is noema.ENOTFOUND.
func Subgraph(ctx context.Context, db noema.GraphIndex, ids []string, depth int, typ string) (*Graph, error) {
	switch {
	case len(ids) == 0:
		return nil, noema.Errorf(noema.EINVALID, "no node ids given")
	case len(ids) > MaxSubgraphNodes:
		return nil, noema.Errorf(noema.EINVALID, "%d node ids: at most %d", len(ids), MaxSubgraphNodes)
	case depth < 0:
		return nil, noema.Errorf(noema.EINVALID, "depth %d: must not be negative", depth).WithParam("depth")
	case depth == 0:
		depth = DefaultDepth
	case depth > MaxDepth:
		depth = MaxDepth
	}
	g := &Graph{}
	err := db.ReadGraph(ctx, func(r noema.GraphReader) error {
		l := loader{ctx: ctx, r: r}
		visited := make(map[string]bool)
		var frontier []string
		for _, id := range ids {
			cid, err := l.resolve(id)
			if err != nil {
				return err
			}
			if !visited[cid] {
				visited[cid] = true
				frontier = append(frontier, cid)
			}
		}
		sortIDs(frontier)
		all := slices.Clone(frontier)
		for level := 0; level < depth && len(frontier) > 0; level++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			edges, err := l.incident(frontier, false)
			if err != nil {
				return err
			}
			var next []string
			for _, e := range edges {
				if e.Dangling || (typ != "" && e.Type != typ) {
					continue
				}
				for _, end := range [...]string{e.Source, e.Target} {
					if !visited[end] {
						visited[end] = true
						next = append(next, end)
					}
				}
			}
			sortIDs(next)
			if room := MaxSubgraphNodes - len(all); len(next) > room {
				next, g.Truncated = next[:room], true
			}
			all = append(all, next...)
			frontier = next
			if g.Truncated {
				break
			}
		}
		var err error
		if g.Nodes, err = l.nodes(all); err != nil {
			return err
		}
		edges, err := l.incident(all, true)
		if err != nil {
			return err
		}
		g.Edges = []noema.GraphEdge{}
		for _, e := range edges {
			if typ == "" || e.Type == typ {
				g.Edges = append(g.Edges, e)
			}
		}
		sortEdges(g.Edges)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("subgraph: %w", err)
	}
	return g, nil
}

// sortIDs orders canonical node ids like nodes: concepts, then notes, each
// by id.
func sortIDs(ids []string) {
	slices.SortFunc(ids, func(a, b string) int {
		if na, nb := isNoteID(a), isNoteID(b); na != nb {
			if na {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
}

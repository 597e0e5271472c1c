package graph

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Limits of a concept map.
const (
	DefaultMapLimit = 3000
	MaxMapLimit     = 20000
)

// MapOptions chooses the concepts of a map.
type MapOptions struct {
	// Limit bounds the concepts (default DefaultMapLimit, at most
	// MaxMapLimit): the highest PageRank first, or with Concept, the
	// concept and its neighbours by the weight of the edge to it.
	Limit int
	// Concept, when set, centres the map on one concept (an id, or a name
	// Resolve turns into one): it and its neighbours.
	Concept string
	// Resolve turns a name that is not a concept id into one (nil: ids
	// only).
	Resolve func(ctx context.Context, name string) (string, error)
}

// MapNode is a concept on the map.
type MapNode struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// Rank is the concept's PageRank over the whole concept graph.
	Rank float64 `json:"rank"`
	// Community is its Louvain community (analyze_graph communities' id:
	// 0 for the largest).
	Community int `json:"community"`
	// Degree is its number of neighbours in the whole graph (not only on
	// the map).
	Degree int `json:"degree"`
	// X and Y are its place, each in [-1, 1].
	X float32 `json:"x"`
	Y float32 `json:"y"`
}

// MapEdge is an edge between two concepts of the map: the indexes of its
// ends in MapResult.Nodes and its weight (the notes linking both within
// the co-occurrence window plus the weights of the relations between
// them). It is written as a JSON array [a, b, weight].
type MapEdge struct {
	A, B int32
	W    float64
}

// MarshalJSON writes e as [a, b, weight].
func (e MapEdge) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 32)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(e.A), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(e.B), 10)
	b = append(b, ',')
	b = strconv.AppendFloat(b, math.Round(e.W*1e4)/1e4, 'f', -1, 64)
	return append(b, ']'), nil
}

// UnmarshalJSON reads [a, b, weight].
func (e *MapEdge) UnmarshalJSON(data []byte) error {
	parts := strings.Split(strings.Trim(strings.TrimSpace(string(data)), "[]"), ",")
	if len(parts) != 3 {
		return fmt.Errorf("map edge: want [a, b, weight], got %s", data)
	}
	a, err1 := strconv.ParseInt(strings.TrimSpace(parts[0]), 10, 32)
	b, err2 := strconv.ParseInt(strings.TrimSpace(parts[1]), 10, 32)
	w, err3 := strconv.ParseFloat(strings.TrimSpace(parts[2]), 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return fmt.Errorf("map edge: want [a, b, weight], got %s", data)
	}
	e.A, e.B, e.W = int32(a), int32(b), w
	return nil
}

// MapResult is a concept map: concepts placed in the plane, sized by
// PageRank and grouped by community, and the edges between them.
type MapResult struct {
	// GraphNodes and GraphEdges are the whole concept graph's size;
	// Communities its number of communities.
	GraphNodes  int `json:"graph_nodes"`
	GraphEdges  int `json:"graph_edges"`
	Communities int `json:"communities"`
	// Center is the concept the map is centred on (with Concept).
	Center *NodeRef `json:"center,omitempty"`
	// Nodes are the map's concepts, highest PageRank first (with
	// Concept: the concept, then its neighbours by edge weight).
	Nodes []MapNode `json:"nodes"`
	// Edges are every edge of the concept graph between two of Nodes.
	Edges []MapEdge `json:"edges"`
	// HasMore is set when Limit left concepts out.
	HasMore  bool     `json:"has_more"`
	Warnings []string `json:"warnings"`
}

// Map returns the concept map of the current graph: the Limit concepts of
// highest PageRank (or a concept's neighbourhood), their edges, PageRank
// and community, and a force-directed layout of them ([Layout]) computed
// here, in Go, and cached with the graph's other analyses until it changes.
func (a *Analyzer) Map(ctx context.Context, in MapOptions) (*MapResult, error) {
	limit, err := clampParam("limit", in.Limit, DefaultMapLimit, MaxMapLimit)
	if err != nil {
		return nil, err
	}
	s, g, err := a.current(ctx, AnalyzeConcepts)
	if err != nil {
		return nil, err
	}
	center := int32(-1)
	if name := strings.TrimSpace(in.Concept); name != "" {
		r := &analysis{in: AnalyzeOptions{Resolve: in.Resolve}, analyzeParams: analyzeParams{kind: AnalyzeConcepts}, g: g}
		if center, err = r.resolve(ctx, "concept", name); err != nil {
			return nil, err
		}
	}
	key := fmt.Sprintf("map/%d/%d", limit, center)
	v, err := s.do(key, func() (any, error) { return conceptMap(ctx, s, g, limit, center), nil })
	if err != nil {
		return nil, err
	}
	return v.(*MapResult), nil
}

// conceptMap builds the map of g's limit concepts of highest PageRank, or
// of center and its heaviest neighbours when center is not -1.
func conceptMap(ctx context.Context, s *snapshot, g *Weighted, limit int, center int32) *MapResult {
	pr := s.pagerank(g, nil)
	p := s.partition(ctx, g, 1, 1)
	res := &MapResult{GraphNodes: g.N(), GraphEdges: g.Edges(), Communities: len(p.members), Nodes: []MapNode{}, Edges: []MapEdge{}, Warnings: []string{}}
	if g.N() == 0 {
		res.Warnings = append(res.Warnings, "the concept graph is empty: no concepts yet: link one from a note with [[Name]]")
		return res
	}
	var picked []int32
	if center >= 0 {
		r := ref(g, center)
		res.Center = &r
		nb, w := g.Neighbors(center)
		idx := make([]int, len(nb))
		for k := range idx {
			idx[k] = k
		}
		slices.SortFunc(idx, func(x, y int) int {
			return cmp.Or(cmp.Compare(w[y], w[x]), cmp.Compare(pr[nb[y]], pr[nb[x]]), cmp.Compare(nb[x], nb[y]))
		})
		picked = append(picked, center)
		for _, k := range idx[:min(len(idx), limit-1)] {
			picked = append(picked, nb[k])
		}
		res.HasMore = len(nb)+1 > limit
	} else {
		picked = make([]int32, g.N())
		for i := range picked {
			picked[i] = int32(i)
		}
		slices.SortFunc(picked, func(x, y int32) int { return cmp.Or(cmp.Compare(pr[y], pr[x]), cmp.Compare(x, y)) })
		res.HasMore = len(picked) > limit
		picked = picked[:min(len(picked), limit)]
	}
	local := make(map[int32]int32, len(picked))
	for k, i := range picked {
		local[i] = int32(k)
	}
	for k, i := range picked {
		nb, w := g.Neighbors(i)
		for m, j := range nb {
			if l, ok := local[j]; ok && l > int32(k) {
				res.Edges = append(res.Edges, MapEdge{A: int32(k), B: l, W: w[m]})
			}
		}
	}
	// Lay out community by community: each node's group is its
	// community, the members in PageRank order (picked's).
	group := make([]int32, len(picked))
	order := make([]int, len(picked))
	for k, i := range picked {
		group[k] = p.comm[i]
		order[k] = k
	}
	// Members of a community next to each other, largest community first.
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(group[x], group[y]) })
	perm := make([]int32, len(order)) // layout position -> picked index
	inv := make([]int32, len(order))  // picked index -> layout position
	for pos, k := range order {
		perm[pos], inv[k] = int32(k), int32(pos)
	}
	lgroup := make([]int32, len(order))
	for pos, k := range perm {
		lgroup[pos] = group[k]
	}
	ledges := make([]LayoutEdge, len(res.Edges))
	for k, e := range res.Edges {
		ledges[k] = LayoutEdge{A: inv[e.A], B: inv[e.B], W: e.W}
	}
	x, y := Layout(len(picked), ledges, lgroup)
	res.Nodes = make([]MapNode, len(picked))
	for k, i := range picked {
		pos := inv[k]
		res.Nodes[k] = MapNode{ID: g.IDs[i], Label: g.Labels[i], Rank: pr[i], Community: int(p.comm[i]), Degree: g.Degree(i), X: x[pos], Y: y[pos]}
	}
	return res
}

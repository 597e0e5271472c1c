package graph_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema/graph"
)

// shape is a small hand-built graph with the answers worked out by hand.
type shape struct {
	name  string
	nodes []string
	edges []graph.WeightedEdge
}

func e(a, b string, w float64) graph.WeightedEdge { return graph.WeightedEdge{A: a, B: b, Weight: w} }

func star() shape {
	s := shape{name: "star", nodes: []string{"c", "l1", "l2", "l3", "l4", "l5"}}
	for _, l := range s.nodes[1:] {
		s.edges = append(s.edges, e("c", l, 1))
	}
	return s
}

func twoCliques() shape {
	s := shape{name: "two cliques and a bridge", nodes: []string{"a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"}}
	for _, p := range []string{"a", "b"} {
		for i := 1; i <= 4; i++ {
			for j := i + 1; j <= 4; j++ {
				s.edges = append(s.edges, e(fmt.Sprint(p, i), fmt.Sprint(p, j), 1))
			}
		}
	}
	s.edges = append(s.edges, e("a1", "b1", 1))
	return s
}

func path4() shape {
	return shape{name: "path", nodes: []string{"a", "b", "c", "d"}, edges: []graph.WeightedEdge{e("a", "b", 1), e("b", "c", 2), e("c", "d", 1)}}
}

func disconnected() shape {
	return shape{name: "disconnected", nodes: []string{"a", "b", "c", "d", "e"}, edges: []graph.WeightedEdge{e("a", "b", 1), e("c", "d", 3)}}
}

func selfLinks() shape {
	return shape{name: "self-links", nodes: []string{"a", "b", "c"}, edges: []graph.WeightedEdge{e("a", "a", 2), e("a", "b", 1), e("b", "c", 1), e("b", "a", 1)}}
}

func oneNode() shape { return shape{name: "one node", nodes: []string{"x"}} }

func (s shape) build() *graph.Weighted { return graph.NewWeighted(s.nodes, s.edges) }

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func idx(t *testing.T, g *graph.Weighted, id string) int32 {
	t.Helper()
	i, ok := g.Index(id)
	if !ok {
		t.Fatalf("no node %s", id)
	}
	return i
}

func TestWeightedBuild(t *testing.T) {
	g := selfLinks().build()
	a, b := idx(t, g, "a"), idx(t, g, "b")
	// a–b declared twice (either direction): summed; a's self-loop counts twice in degrees.
	if w := g.Weight(a, b); w != 2 {
		t.Errorf("weight a-b = %v, want 2", w)
	}
	if g.Self[a] != 2 || g.Degree(a) != 3 || g.Strength(a) != 6 {
		t.Errorf("a: self %v degree %d strength %v; want 2, 3, 6", g.Self[a], g.Degree(a), g.Strength(a))
	}
	if g.Edges() != 3 || g.TotalWeight() != 5 {
		t.Errorf("edges %d total weight %v; want 3, 5", g.Edges(), g.TotalWeight())
	}
	for i := range g.N() {
		nb, _ := g.Neighbors(int32(i))
		if !slices.IsSorted(nb) || slices.Contains(nb, int32(i)) {
			t.Errorf("row %d = %v: want ascending without itself", i, nb)
		}
	}
}

func TestPageRankShapes(t *testing.T) {
	for _, s := range []shape{star(), twoCliques(), path4(), disconnected(), selfLinks(), oneNode()} {
		t.Run(s.name, func(t *testing.T) {
			g := s.build()
			pr, _ := graph.PageRank(g, graph.PageRankAlpha, nil)
			var sum float64
			for _, v := range pr {
				sum += v
				if v <= 0 {
					t.Errorf("score %v ≤ 0", v)
				}
			}
			if !near(sum, 1, 1e-12) {
				t.Errorf("scores sum to %v", sum)
			}
		})
	}
	// Star: by symmetry the leaves share equally; the centre's share solves
	// c = 0.15/6 + 0.85·(1−c) (each leaf sends everything to it).
	g := star().build()
	pr, _ := graph.PageRank(g, graph.PageRankAlpha, nil)
	c := (0.15/6 + 0.85) / 1.85
	if !near(pr[idx(t, g, "c")], c, 1e-9) {
		t.Errorf("star centre = %v, want %v", pr[idx(t, g, "c")], c)
	}
	// One node holds everything; an isolated node in a disconnected graph
	// keeps only what jumps bring it.
	if pr, _ := graph.PageRank(oneNode().build(), 0.85, nil); pr[0] != 1 {
		t.Errorf("one node = %v", pr)
	}
	// Personalised on l1: l1 ranks above the other leaves.
	p := make([]float64, g.N())
	p[idx(t, g, "l1")] = 1
	ppr, _ := graph.PageRank(g, graph.PageRankAlpha, p)
	if !(ppr[idx(t, g, "l1")] > ppr[idx(t, g, "l2")]) || ppr[idx(t, g, "l2")] != ppr[idx(t, g, "l3")] {
		t.Errorf("personalised star = %v", ppr)
	}
}

func TestLouvainShapes(t *testing.T) {
	// Two 4-cliques joined by one edge: m = 13, each side has 6 internal
	// edges and degree 13: Q = 2·(6/13 − (13/26)²).
	g := twoCliques().build()
	comm, q := graph.Louvain(g, 1, 1)
	want := 2 * (6.0/13 - 0.25)
	if !near(q, want, 1e-12) {
		t.Errorf("two cliques modularity = %v, want %v", q, want)
	}
	for i := range 4 {
		if comm[i] != comm[0] || comm[i+4] != comm[4] || comm[0] == comm[4] {
			t.Fatalf("two cliques partition = %v", comm)
		}
	}
	for _, s := range []shape{star(), twoCliques(), path4(), disconnected(), selfLinks(), oneNode()} {
		t.Run(s.name, func(t *testing.T) {
			g := s.build()
			for seed := range uint64(5) {
				comm, q := graph.Louvain(g, 1, seed)
				if got := graph.Modularity(g, comm, 1); !near(got, q, 1e-12) {
					t.Errorf("seed %d: reported modularity %v, recomputed %v", seed, q, got)
				}
				again, _ := graph.Louvain(g, 1, seed)
				if !slices.Equal(comm, again) {
					t.Errorf("seed %d: two runs differ: %v, %v", seed, comm, again)
				}
				if comm[0] != 0 {
					t.Errorf("communities not numbered by first node: %v", comm)
				}
			}
		})
	}
	// Disconnected: each part is its own community, the isolated node alone.
	g = disconnected().build()
	comm, _ = graph.Louvain(g, 1, 1)
	if !slices.Equal(comm, []int32{0, 0, 1, 1, 2}) {
		t.Errorf("disconnected partition = %v", comm)
	}
	// No edges: singletons, modularity 0.
	comm, q = graph.Louvain(oneNode().build(), 1, 1)
	if !slices.Equal(comm, []int32{0}) || q != 0 {
		t.Errorf("one node = %v, %v", comm, q)
	}
	// A high resolution splits the cliques further.
	g = twoCliques().build()
	hi, _ := graph.Louvain(g, 10, 1)
	if slices.Max(hi) < 2 {
		t.Errorf("resolution 10 gives %v; want more than two communities", hi)
	}
}

func TestSimplePathsShapes(t *testing.T) {
	pathString := func(g *graph.Weighted, ps []graph.Path) string {
		var out []string
		for _, p := range ps {
			var ids []string
			for _, i := range p.Nodes {
				ids = append(ids, g.IDs[i])
			}
			out = append(out, fmt.Sprintf("%s:%g", strings.Join(ids, "-"), p.Weight))
		}
		return strings.Join(out, " ")
	}
	tests := []struct {
		s        shape
		from, to string
		depth    int
		limit    int
		want     string
		more     bool
	}{
		{path4(), "a", "d", 3, 10, "a-b-c-d:4", false},
		{path4(), "a", "d", 2, 10, "", false},
		{path4(), "a", "a", 3, 10, "", false},
		{star(), "l1", "l2", 3, 10, "l1-c-l2:2", false},
		{disconnected(), "a", "c", 6, 10, "", false},
		{selfLinks(), "a", "c", 3, 10, "a-b-c:3", false},
		// Shortest first, then heaviest, then by node: a2→b2 through the bridge.
		{twoCliques(), "a2", "b2", 3, 10, "a2-a1-b1-b2:3", false},
		{twoCliques(), "a2", "b2", 4, 3, "a2-a1-b1-b2:3 a2-a1-b1-b3-b2:4 a2-a1-b1-b4-b2:4", true},
		{twoCliques(), "a1", "a2", 2, 10, "a1-a2:1 a1-a3-a2:2 a1-a4-a2:2", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s-%s", tt.s.name, tt.from, tt.to), func(t *testing.T) {
			g := tt.s.build()
			ps, more, trunc := graph.SimplePaths(g, idx(t, g, tt.from), idx(t, g, tt.to), tt.depth, tt.limit)
			if got := pathString(g, ps); got != tt.want || more != tt.more || trunc {
				t.Errorf("paths = %q more %v truncated %v; want %q more %v", got, more, trunc, tt.want, tt.more)
			}
		})
	}
	// Every simple path in the 8-node graph: a1→b1 up to 7 edges.
	g := twoCliques().build()
	ps, _, _ := graph.SimplePaths(g, idx(t, g, "a2"), idx(t, g, "b2"), 7, 1000)
	// a2 to a1 inside K4: 1 + 2 + 2 = 5 paths; b1 to b2 likewise: 25.
	if len(ps) != 25 {
		t.Errorf("%d paths a2→b2, want 25", len(ps))
	}
	for k := 1; k < len(ps); k++ {
		if len(ps[k].Nodes) < len(ps[k-1].Nodes) {
			t.Fatalf("not shortest first: %s", pathString(g, ps))
		}
	}
}

func TestAdamicAdarShapes(t *testing.T) {
	g := star().build()
	links := graph.AdamicAdar(g, -1, 100)
	if len(links) != 10 { // every pair of leaves
		t.Fatalf("star: %d links, want 10", len(links))
	}
	for _, l := range links {
		if !near(l.Score, 1/math.Log(5), 1e-15) || l.A >= l.B || l.A == 0 {
			t.Errorf("star link %+v", l)
		}
	}
	if links[0].A != 1 || links[0].B != 2 {
		t.Errorf("ties not by node: %+v", links[:2])
	}
	// One node: the leaves l2..l5, never c (adjacent) nor l1 itself.
	one := graph.AdamicAdar(g, idx(t, g, "l1"), 10)
	if len(one) != 4 || one[0].A != idx(t, g, "l1") || one[0].B != idx(t, g, "l2") {
		t.Errorf("star l1 = %+v", one)
	}
	// Two cliques: a2 and b1 share a1 (degree 4) only.
	g = twoCliques().build()
	one = graph.AdamicAdar(g, idx(t, g, "a2"), 10)
	if len(one) != 1 || one[0].B != idx(t, g, "b1") || !near(one[0].Score, 1/math.Log(4), 1e-15) {
		t.Errorf("a2 links = %+v", one)
	}
	if c := graph.CommonNeighbors(g, idx(t, g, "a2"), idx(t, g, "b1")); !slices.Equal(c, []int32{idx(t, g, "a1")}) {
		t.Errorf("common = %v", c)
	}
	// Self-loops count twice in the degree (networkx): a's degree is 3.
	g = selfLinks().build()
	links = graph.AdamicAdar(g, -1, 10)
	if len(links) != 1 || !near(links[0].Score, 1/math.Log(2), 1e-15) {
		t.Errorf("self-links = %+v", links)
	}
	// Limit, and nothing to predict.
	if l := graph.AdamicAdar(star().build(), -1, 3); len(l) != 3 {
		t.Errorf("limit 3 gave %d", len(l))
	}
	for _, s := range []shape{path4(), disconnected(), oneNode()} {
		g := s.build()
		got := graph.AdamicAdar(g, -1, 10)
		if s.name == "path" && len(got) != 2 || s.name != "path" && len(got) != 0 {
			t.Errorf("%s: %+v", s.name, got)
		}
	}
}

func TestBetweennessShapes(t *testing.T) {
	tests := []struct {
		s    shape
		want map[string]float64
	}{
		{star(), map[string]float64{"c": 1, "l1": 0}},
		{path4(), map[string]float64{"a": 0, "b": 2.0 / 3, "c": 2.0 / 3}},
		// a1 lies inside every a_i–b_j path with i > 1 (3·4 pairs): 2·12/(7·6).
		{twoCliques(), map[string]float64{"a1": 12.0 / 21, "a2": 0}},
		{disconnected(), map[string]float64{"a": 0, "e": 0}},
		{selfLinks(), map[string]float64{"b": 1}},
		{oneNode(), map[string]float64{"x": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.s.name, func(t *testing.T) {
			g := tt.s.build()
			bc, exact := graph.Betweenness(g, 0, 1)
			if !exact {
				t.Error("not exact")
			}
			for id, want := range tt.want {
				if got := bc[idx(t, g, id)]; !near(got, want, 1e-12) {
					t.Errorf("%s = %v, want %v", id, got, want)
				}
			}
		})
	}
	// Sampling: the seed fixes the sample; every source is exact.
	g := twoCliques().build()
	a, ex := graph.Betweenness(g, 4, 7)
	b, _ := graph.Betweenness(g, 4, 7)
	if ex || !slices.Equal(a, b) {
		t.Errorf("sampled: exact %v, runs equal %v", ex, slices.Equal(a, b))
	}
	full, _ := graph.Betweenness(g, 8, 7)
	if ex, _ := graph.Betweenness(g, 0, 0); !slices.Equal(full, ex) {
		t.Errorf("all 8 sources = %v, exact %v", full, ex)
	}
}

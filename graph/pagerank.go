package graph

import "math"

// PageRank parameters.
const (
	// PageRankAlpha is the damping factor (networkx's default).
	PageRankAlpha = 0.85
	// PageRankTol is the convergence bound: iteration stops when the L1
	// change of the score vector falls below it. It is far tighter than
	// networkx's default (N × 1e-6), so the scores are the fixed point to
	// about 1e-10, whichever networkx tolerance they are compared with.
	PageRankTol = 1e-10
	// PageRankMaxIter bounds the iterations.
	PageRankMaxIter = 1000
)

// PageRank returns the weighted PageRank of every node, as networkx's
// nx.pagerank(G, alpha, personalization) computes it on the undirected
// graph: a walker at node i follows an edge (a self-loop counts once) with
// probability proportional to its weight, and with probability 1 − alpha
// (or always, from a node without edges) jumps to a node drawn from the
// personalisation (uniform when personal is nil, else proportional to it).
// The scores sum to 1. The second result is the number of power iterations.
func PageRank(g *Weighted, alpha float64, personal []float64) ([]float64, int) {
	n := g.N()
	if n == 0 {
		return nil, 0
	}
	p := make([]float64, n)
	if personal == nil {
		for i := range p {
			p[i] = 1 / float64(n)
		}
	} else {
		var s float64
		for _, v := range personal {
			s += v
		}
		if s <= 0 {
			for i := range p {
				p[i] = 1 / float64(n)
			}
		} else {
			for i, v := range personal {
				p[i] = v / s
			}
		}
	}
	// out[i] is the strength a walker leaves i by: edges once, self-loop once.
	out := make([]float64, n)
	for i := range n {
		s := g.Self[i]
		for _, w := range g.W[g.Off[i]:g.Off[i+1]] {
			s += w
		}
		out[i] = s
	}
	x := make([]float64, n)
	copy(x, p)
	next := make([]float64, n)
	share := make([]float64, n)
	iter := 0
	for iter < PageRankMaxIter {
		iter++
		var dangling float64
		for i := range n {
			if out[i] == 0 {
				dangling += x[i]
				share[i] = 0
			} else {
				share[i] = x[i] / out[i]
			}
		}
		var diff float64
		for j := range n {
			// Row j lists j's neighbours; the graph is undirected, so it
			// is also the list of nodes with an edge into j.
			var in float64
			lo, hi := g.Off[j], g.Off[j+1]
			adj, w := g.Adj[lo:hi], g.W[lo:hi]
			for k, i := range adj {
				in += share[i] * w[k]
			}
			in += share[j] * g.Self[j]
			v := alpha*(in+dangling*p[j]) + (1-alpha)*p[j]
			next[j] = v
			diff += math.Abs(v - x[j])
		}
		x, next = next, x
		if diff < PageRankTol {
			break
		}
	}
	// Normalize away the rounding drift so the scores sum to 1.
	var s float64
	for _, v := range x {
		s += v
	}
	for i := range x {
		x[i] /= s
	}
	return x, iter
}

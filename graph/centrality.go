package graph

import (
	"runtime"
	"sync"

	"github.com/noema-mem/noema/internal/splitmix"
)

// Betweenness limits.
const (
	// MaxExactBetweenness is the largest graph (in nodes) whose betweenness
	// is computed exactly, from every node. Exact betweenness costs one
	// breadth-first search per node: O(n·m).
	MaxExactBetweenness = 5000
	// MaxBetweennessSamples and MinBetweennessSamples bound the number of
	// source nodes, drawn with the seed, from which betweenness is
	// estimated on larger graphs; within the bounds, as many as scan about
	// BetweennessWork adjacency entries (each source scans every entry
	// once): 32 sources on the 1.2-million-edge concept graph of a
	// 122,000-concept vault. 5×10⁷ entries keep an estimate within
	// analyze_graph's 10 s on two loaded cores (10⁸ took 11–16 s with a
	// 100,000-link note).
	MaxBetweennessSamples = 256
	MinBetweennessSamples = 32
	BetweennessWork       = 50_000_000
)

// BetweennessSamplesFor returns how many sources betweenness is estimated
// from on g: 0 (exact, every node) up to MaxExactBetweenness nodes.
func BetweennessSamplesFor(g *Weighted) int {
	if g.N() <= MaxExactBetweenness {
		return 0
	}
	return max(MinBetweennessSamples, min(MaxBetweennessSamples, BetweennessWork/max(1, len(g.Adj))))
}

// Betweenness returns the betweenness centrality of every node as
// networkx's nx.betweenness_centrality(G) computes it: shortest paths by
// hops (edge weights are strengths, not distances, so they are not used),
// endpoints excluded, normalized by 2/((n−1)(n−2)) for n > 2 (Brandes'
// algorithm). With samples > 0 and samples < n, only that many source
// nodes, drawn without replacement by a SplitMix64 stream of seed, are
// searched and the sums are scaled by n/samples (networkx's k-sampling
// estimate); exact reports whether every node was a source.
//
// Sources are processed in blocks of fixed size whose sums are added in
// block order, so the result does not depend on how many goroutines ran.
func Betweenness(g *Weighted, samples int, seed uint64) (bc []float64, exact bool) {
	n := g.N()
	bc = make([]float64, n)
	if n == 0 {
		return bc, true
	}
	sources := make([]int32, n)
	for i := range sources {
		sources[i] = int32(i)
	}
	exact = samples <= 0 || samples >= n
	if !exact {
		rng := splitmix.New(seed)
		for i := range samples { // partial Fisher–Yates: the first samples are the draw
			j := i + rng.Intn(n-i)
			sources[i], sources[j] = sources[j], sources[i]
		}
		sources = sources[:samples]
	}
	const block = 32
	blocks := (len(sources) + block - 1) / block
	sums := make([][]float64, blocks)
	workers := min(runtime.GOMAXPROCS(0), blocks, 4)
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newBrandes(n)
			for b := range next {
				acc := make([]float64, n)
				for _, src := range sources[b*block : min((b+1)*block, len(sources))] {
					s.run(g, src, acc)
				}
				sums[b] = acc
			}
		}()
	}
	for b := range blocks {
		next <- b
	}
	close(next)
	wg.Wait()
	for _, acc := range sums {
		for i, v := range acc {
			bc[i] += v
		}
	}
	if n > 2 {
		scale := 1 / (float64(n-1) * float64(n-2))
		if !exact {
			scale *= float64(n) / float64(len(sources))
		}
		for i := range bc {
			bc[i] *= scale
		}
	}
	return bc, exact
}

// brandes holds one worker's buffers for single-source searches.
type brandes struct {
	dist  []int32
	sigma []float64
	coef  []float64
	order []int32
	// succ lists the successors in the shortest-path DAG (one hop farther
	// from the source) of order[k] at succ[start[k]:start[k+1]].
	succ, start []int32
}

func newBrandes(n int) *brandes {
	b := &brandes{dist: make([]int32, n), sigma: make([]float64, n), coef: make([]float64, n), order: make([]int32, 0, n), start: make([]int32, 0, n+1)}
	for i := range b.dist {
		b.dist[i] = -1
	}
	return b
}

// run adds the dependencies of every node on the shortest paths from src
// to acc. The dependency of w is δ(w) = σ(w)·Σ_{v successor of w}
// (1+δ(v))/σ(v): walking the search order backwards, each node's
// coefficient (1+δ)/σ is computed once and summed over its predecessors'
// successor lists, which the forward search recorded contiguously.
func (b *brandes) run(g *Weighted, src int32, acc []float64) {
	dist, sigma, coef := b.dist, b.sigma, b.coef
	order, succ, start := b.order[:0], b.succ[:0], b.start[:0]
	off, adj := g.Off, g.Adj
	dist[src] = 0
	sigma[src] = 1
	order = append(order, src)
	for head := 0; head < len(order); head++ {
		u := order[head]
		start = append(start, int32(len(succ)))
		du1 := dist[u] + 1
		su := sigma[u]
		for _, v := range adj[off[u]:off[u+1]] {
			dv := dist[v]
			if dv < 0 {
				dist[v] = du1
				dv = du1
				order = append(order, v)
			}
			if dv == du1 {
				sigma[v] += su
				succ = append(succ, v)
			}
		}
	}
	start = append(start, int32(len(succ)))
	for k := len(order) - 1; k >= 0; k-- {
		w := order[k]
		var s float64
		for _, v := range succ[start[k]:start[k+1]] {
			s += coef[v]
		}
		delta := sigma[w] * s
		coef[w] = (1 + delta) / sigma[w]
		if w != src {
			acc[w] += delta
		}
	}
	for _, w := range order {
		dist[w] = -1
		sigma[w] = 0
	}
	b.order, b.succ, b.start = order, succ, start
}

package graph

import (
	"runtime"
	"sync"
)

// Betweenness limits.
const (
	// MaxExactBetweenness is the largest graph (in nodes) whose betweenness
	// is computed exactly, from every node. Exact betweenness costs one
	// breadth-first search per node: O(n·m).
	MaxExactBetweenness = 5000
	// BetweennessSamples is the number of source nodes, drawn with the
	// seed, from which betweenness is estimated on larger graphs.
	BetweennessSamples = 256
)

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
		rng := splitMix{s: seed}
		for i := range samples { // partial Fisher–Yates: the first samples are the draw
			j := i + rng.below(n-i)
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
	delta []float64
	order []int32
}

func newBrandes(n int) *brandes {
	b := &brandes{dist: make([]int32, n), sigma: make([]float64, n), delta: make([]float64, n), order: make([]int32, 0, n)}
	for i := range b.dist {
		b.dist[i] = -1
	}
	return b
}

// run adds the dependencies of every node on the shortest paths from src
// to acc.
func (b *brandes) run(g *Weighted, src int32, acc []float64) {
	b.order = b.order[:0]
	b.dist[src] = 0
	b.sigma[src] = 1
	b.order = append(b.order, src)
	for head := 0; head < len(b.order); head++ {
		u := b.order[head]
		du := b.dist[u]
		for _, v := range g.Adj[g.Off[u]:g.Off[u+1]] {
			if b.dist[v] < 0 {
				b.dist[v] = du + 1
				b.order = append(b.order, v)
			}
			if b.dist[v] == du+1 {
				b.sigma[v] += b.sigma[u]
			}
		}
	}
	// Walk back from the farthest nodes; the predecessors of w are its
	// neighbours one hop closer.
	for k := len(b.order) - 1; k >= 0; k-- {
		w := b.order[k]
		dw := b.dist[w]
		coeff := (1 + b.delta[w]) / b.sigma[w]
		for _, v := range g.Adj[g.Off[w]:g.Off[w+1]] {
			if b.dist[v] == dw-1 {
				b.delta[v] += b.sigma[v] * coeff
			}
		}
		if w != src {
			acc[w] += b.delta[w]
		}
	}
	for _, v := range b.order {
		b.dist[v] = -1
		b.sigma[v] = 0
		b.delta[v] = 0
	}
}

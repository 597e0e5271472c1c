package graph

import (
	"container/heap"
	"iter"
	"math"
	"slices"
)

// LinkScore is a predicted link: two non-adjacent nodes (A < B) and their
// Adamic–Adar score.
type LinkScore struct {
	A, B  int32
	Score float64
}

// AdamicAdar returns the highest-scoring non-adjacent pairs by the
// Adamic–Adar index, as networkx's nx.adamic_adar_index computes it: the
// sum over the pair's common neighbours w of 1/log(deg(w)), deg counted as
// networkx counts it (unweighted, a self-loop twice). With from ≥ 0 only
// pairs with that node are scored; otherwise every pair with a common
// neighbour. Pairs come highest score first, ties by A then B (node
// numbers; with from ≥ 0, A is always from). At most limit are returned.
//
// Scoring every pair costs up to the sum over nodes of their degree
// squared; graph-wide, nodes are taken by an upper bound of their pairs'
// scores, and the search stops once no pair left can enter the top limit.
// Scores are summed over common neighbours in ascending order, so they
// equal networkx's up to floating-point rounding (≈1e-15).
func AdamicAdar(g *Weighted, from int32, limit int) []LinkScore {
	n := g.N()
	if n == 0 || limit <= 0 {
		return nil
	}
	inv := make([]float64, n) // 1/log(deg) of each possible common neighbour
	for w := range n {
		if d := g.Degree(int32(w)); d > 1 {
			inv[w] = 1 / math.Log(float64(d))
		}
	}
	acc := make([]float64, n)
	adjacent := make([]bool, n)
	done := make([]bool, n) // graph-wide: pairs with a done node were scored
	var touched []int32
	top := &linkHeap{}
	score := func(u int32) {
		touched = touched[:0]
		nbu := g.Adj[g.Off[u]:g.Off[u+1]]
		for _, v := range nbu {
			adjacent[v] = true
		}
		for _, w := range nbu {
			c := inv[w]
			for _, v := range g.Adj[g.Off[w]:g.Off[w+1]] {
				if v == u || done[v] || adjacent[v] {
					continue
				}
				if acc[v] == 0 {
					touched = append(touched, v)
				}
				acc[v] += c
			}
		}
		for _, v := range nbu {
			adjacent[v] = false
		}
		for _, v := range touched {
			a, b := u, v
			if from < 0 && b < a {
				a, b = b, a
			}
			// acc[v] is the score summed in discovery order; the kept score
			// is summed in a fixed order (sumCommon), so it is the same
			// whichever end found the pair.
			if len(top.s) < limit || acc[v] >= top.s[0].Score*(1-1e-9) {
				top.offer(LinkScore{A: a, B: b, Score: sumCommon(g, inv, a, b)}, limit)
			}
			acc[v] = 0
		}
	}
	if from >= 0 {
		score(from)
	} else {
		// A pair's score is at most the sum of 1/log(deg) over either
		// end's neighbours. Nodes are taken by that bound, largest first,
		// each pairing with the nodes not taken yet; once the bound falls
		// below the worst score kept, no pair left can enter.
		bound := make([]float64, n)
		order := make([]int32, n)
		for u := range n {
			order[u] = int32(u)
			for _, w := range g.Adj[g.Off[u]:g.Off[u+1]] {
				bound[u] += inv[w]
			}
			bound[u] *= 1 + 1e-9 // rounding: a sum in another order may come out a little higher
		}
		slices.SortFunc(order, func(x, y int32) int {
			if bound[x] != bound[y] {
				if bound[x] > bound[y] {
					return -1
				}
				return 1
			}
			return int(x - y)
		})
		for _, u := range order {
			if len(top.s) == limit && bound[u] < top.s[0].Score {
				break
			}
			score(u)
			done[u] = true
		}
	}
	out := slices.Clone(top.s)
	slices.SortFunc(out, compareLinks)
	return out
}

// sumCommon is the Adamic–Adar score of a and b summed over their common
// neighbours in ascending order, so a pair's score does not depend on the
// order the pairs were found in.
func sumCommon(g *Weighted, inv []float64, a, b int32) float64 {
	var s float64
	for w := range common(g.Adj[g.Off[a]:g.Off[a+1]], g.Adj[g.Off[b]:g.Off[b+1]]) {
		s += inv[w]
	}
	return s
}

// common yields the values two ascending lists share, in ascending order.
func common(x, y []int32) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for i, j := 0, 0; i < len(x) && j < len(y); {
			switch {
			case x[i] < y[j]:
				i++
			case x[i] > y[j]:
				j++
			default:
				if !yield(x[i]) {
					return
				}
				i++
				j++
			}
		}
	}
}

// CommonNeighbors returns the common neighbours of a and b (a and b
// excluded), those that weigh most in their Adamic–Adar score (fewest
// neighbours) first, ties by node number.
func CommonNeighbors(g *Weighted, a, b int32) []int32 {
	x, _ := g.Neighbors(a)
	y, _ := g.Neighbors(b)
	var out []int32
	for w := range common(x, y) {
		if w != a && w != b {
			out = append(out, w)
		}
	}
	slices.SortStableFunc(out, func(u, v int32) int { return g.Degree(u) - g.Degree(v) })
	return out
}

// compareLinks orders best first: higher score, then A, then B.
func compareLinks(x, y LinkScore) int {
	if x.Score != y.Score {
		if x.Score > y.Score {
			return -1
		}
		return 1
	}
	if x.A != y.A {
		return int(x.A - y.A)
	}
	return int(x.B - y.B)
}

// linkHeap keeps the best limit links seen: a heap whose root is the worst
// kept.
type linkHeap struct{ s []LinkScore }

func (h *linkHeap) Len() int           { return len(h.s) }
func (h *linkHeap) Less(i, j int) bool { return compareLinks(h.s[i], h.s[j]) > 0 }
func (h *linkHeap) Swap(i, j int)      { h.s[i], h.s[j] = h.s[j], h.s[i] }
func (h *linkHeap) Push(x any)         { h.s = append(h.s, x.(LinkScore)) }
func (h *linkHeap) Pop() any {
	x := h.s[len(h.s)-1]
	h.s = h.s[:len(h.s)-1]
	return x
}

func (h *linkHeap) offer(l LinkScore, limit int) {
	if len(h.s) < limit {
		heap.Push(h, l)
		return
	}
	if compareLinks(l, h.s[0]) < 0 {
		h.s[0] = l
		heap.Fix(h, 0)
	}
}

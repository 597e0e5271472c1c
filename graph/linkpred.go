package graph

import (
	"container/heap"
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
// Scoring every pair costs the sum over nodes of their degree squared:
// hubs dominate. Sums run over common neighbours in ascending order, so
// scores equal networkx's up to floating-point rounding (≈1e-15).
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
	var touched []int32
	top := &linkHeap{}
	score := func(u int32, onlyAbove bool) {
		touched = touched[:0]
		nbu := g.Adj[g.Off[u]:g.Off[u+1]]
		for _, v := range nbu {
			adjacent[v] = true
		}
		for _, w := range nbu {
			c := inv[w]
			for _, v := range g.Adj[g.Off[w]:g.Off[w+1]] {
				if v == u || (onlyAbove && v < u) || adjacent[v] {
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
			top.offer(LinkScore{A: a, B: b, Score: acc[v]}, limit)
			acc[v] = 0
		}
	}
	if from >= 0 {
		score(from, false)
	} else {
		for u := range n {
			score(int32(u), true)
		}
	}
	out := slices.Clone(top.s)
	slices.SortFunc(out, compareLinks)
	return out
}

// CommonNeighbors returns the common neighbours of a and b (a and b
// excluded), those that weigh most in their Adamic–Adar score (fewest
// neighbours) first, ties by node number.
func CommonNeighbors(g *Weighted, a, b int32) []int32 {
	x, _ := g.Neighbors(a)
	y, _ := g.Neighbors(b)
	var out []int32
	for i, j := 0, 0; i < len(x) && j < len(y); {
		switch {
		case x[i] < y[j]:
			i++
		case x[i] > y[j]:
			j++
		default:
			if x[i] != a && x[i] != b {
				out = append(out, x[i])
			}
			i++
			j++
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

package graph

import "slices"

// MaxPathsEnumerated bounds the simple paths [SimplePaths] enumerates in
// one call; past it the answer is cut short and says so.
const MaxPathsEnumerated = 200_000

// Path is a simple path: its nodes from the first to the last, and the sum
// of its edges' weights.
type Path struct {
	Nodes  []int32
	Weight float64
}

// SimplePaths returns the simple paths (no node twice) from node a to node
// b of at most maxLen edges, as networkx's nx.all_simple_paths(G, a, b,
// cutoff=maxLen) enumerates them, ordered shortest first, then heaviest
// (largest summed edge weight) first, then by the nodes' numbers. It
// returns the first limit of them and whether there are more. It
// enumerates length by length and stops after the length at which more
// than limit paths were found, so asking for a few paths between hubs
// stays cheap; truncated reports that a length had more than
// [MaxPathsEnumerated] paths and only that many were considered. a == b
// has no path.
func SimplePaths(g *Weighted, a, b int32, maxLen, limit int) (paths []Path, hasMore, truncated bool) {
	if a == b || maxLen < 1 {
		return nil, false, false
	}
	// The graph is undirected: walk from the end with fewer neighbours
	// (a hub's neighbourhood is the expensive side) and reverse.
	reversed := g.Degree(b) < g.Degree(a)
	if reversed {
		a, b = b, a
	}
	// dist[v] = hops from v to b, to prune branches that cannot arrive in time.
	dist := bfs(g, b, maxLen)
	if dist[a] < 0 {
		return nil, false, false
	}
	onPath := make([]bool, g.N())
	stack := []int32{a}
	onPath[a] = true
	var found []Path
	for length := int(dist[a]); length <= maxLen; length++ {
		var layer []Path
		var walk func(u int32, left int, w float64) bool
		walk = func(u int32, left int, w float64) bool {
			if left == 1 { // the last edge can only be u–b: look it up
				if wb := g.Weight(u, b); wb > 0 && u != b {
					layer = append(layer, Path{Nodes: append(slices.Clone(stack), b), Weight: w + wb})
					return len(layer) < MaxPathsEnumerated
				}
				return true
			}
			adj, ws := g.Neighbors(u)
			for k, v := range adj {
				if onPath[v] || dist[v] < 0 || int(dist[v]) > left-1 {
					continue
				}
				if v == b {
					continue // a simple path ends at b, and this one is not long enough yet
				}
				onPath[v] = true
				stack = append(stack, v)
				ok := walk(v, left-1, w+ws[k])
				stack = stack[:len(stack)-1]
				onPath[v] = false
				if !ok {
					return false
				}
			}
			return true
		}
		if !walk(a, length, 0) {
			truncated = true
		}
		if reversed {
			for _, p := range layer {
				slices.Reverse(p.Nodes)
			}
		}
		sortPaths(layer)
		found = append(found, layer...)
		if len(found) > limit || truncated {
			break
		}
	}
	if len(found) > limit {
		return found[:limit], true, truncated
	}
	return found, false, truncated
}

func sortPaths(ps []Path) {
	slices.SortFunc(ps, func(x, y Path) int {
		if x.Weight != y.Weight {
			if x.Weight > y.Weight {
				return -1
			}
			return 1
		}
		for k := range x.Nodes {
			if x.Nodes[k] != y.Nodes[k] {
				return int(x.Nodes[k] - y.Nodes[k])
			}
		}
		return 0
	})
}

// bfs returns the hop distance of every node from src, -1 beyond maxHops
// or unreachable.
func bfs(g *Weighted, src int32, maxHops int) []int32 {
	dist := make([]int32, g.N())
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := []int32{src}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if int(dist[u]) >= maxHops {
			continue
		}
		for _, v := range g.Adj[g.Off[u]:g.Off[u+1]] {
			if dist[v] < 0 {
				dist[v] = dist[u] + 1
				queue = append(queue, v)
			}
		}
	}
	return dist
}

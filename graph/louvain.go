package graph

import (
	"slices"

	"github.com/noema-mem/noema/internal/splitmix"
)

// LouvainThreshold is the least modularity gain for which Louvain goes on
// to another level (networkx's default threshold).
const LouvainThreshold = 1e-7

// LouvainPasses bounds the passes of one round of local moving. Ordinary
// graphs settle in a handful; on the band a long list of links makes,
// community borders drift by one node a pass, each gaining a little, for
// as many passes as the list is long.
const LouvainPasses = 32

// moveEpsilon is the least modularity gain for which local moving moves a
// node: smaller gains are floating-point noise.
const moveEpsilon = 1e-12

// Louvain partitions g into communities with the Louvain method, both
// phases, as networkx's louvain_communities does it: local moving (each
// node, in an order shuffled by seed, moves to the neighbouring community
// with the largest positive modularity gain — above 1e-12, rounding noise —
// at the given resolution, until a pass moves none or gains no more than
// [LouvainThreshold] in all, at most [LouvainPasses] passes), then aggregation (each community becomes one node,
// internal edges a self-loop), repeated while a level raises the
// modularity by more than [LouvainThreshold]; then a last round of local
// moving of single nodes on g itself, from the partition found
// (refinement: it can only raise the modularity).
//
// It returns each node's community, numbered 0, 1, … in the order of the
// communities' lowest node number, and the modularity of that partition
// ([Modularity]). The same graph, resolution and seed always give the same
// partition: the shuffle is a SplitMix64 stream of the seed, and every
// other choice is by node number (a tie between equal gains goes to the
// neighbouring community met first in the node's ascending neighbour
// list). A graph without edges gives every node its own community.
func Louvain(g *Weighted, resolution float64, seed uint64) ([]int32, float64) {
	return louvain(g, resolution, seed, nil)
}

// louvain is Louvain calling yield (when not nil) every yieldNodes nodes
// it looks at: background work gives way to requests there (internal/gate).
func louvain(g *Weighted, resolution float64, seed uint64, yield func()) ([]int32, float64) {
	n := g.N()
	comm := make([]int32, n)
	for i := range comm {
		comm[i] = int32(i)
	}
	m := g.TotalWeight()
	if n == 0 || m == 0 {
		return comm, Modularity(g, comm, resolution)
	}
	rng := splitmix.New(seed)
	level := levelOf(g)
	level.yield = yield
	mod := Modularity(g, comm, resolution)
	for {
		inner, moved := level.oneLevel(m, resolution, &rng)
		if !moved {
			break
		}
		for i := range comm {
			comm[i] = inner[comm[i]]
		}
		newMod := Modularity(g, comm, resolution)
		if newMod-mod <= LouvainThreshold {
			break
		}
		mod = newMod
		level = level.aggregate(inner)
		level.yield = yield
	}
	// Refinement: one more round of local moving, node by node on the
	// graph itself, starting from the partition found. Aggregation moves
	// whole communities; a node that ended up on the wrong side of a merge
	// can still leave it. Every move has a positive gain, so this never
	// lowers the modularity.
	refine := levelOf(g)
	refine.yield = yield
	if refined, moved := refine.move(comm, m, resolution, &rng); moved {
		copy(comm, refined)
	}
	renumber(comm)
	return comm, Modularity(g, comm, resolution)
}

// renumber numbers communities densely in the order of their first node.
func renumber(comm []int32) int {
	ids := map[int32]int32{}
	for i, c := range comm {
		id, ok := ids[c]
		if !ok {
			id = int32(len(ids))
			ids[c] = id
		}
		comm[i] = id
	}
	return len(ids)
}

// Modularity returns the modularity of a partition of g (comm[i] is node
// i's community) at a resolution, as networkx's nx.community.modularity
// computes it: the sum over communities of L_c/m − γ·(d_c/2m)², where m is
// the total edge weight, L_c the weight of the edges inside c (each once,
// self-loops once) and d_c the summed weighted degree of c's nodes
// (self-loops twice). A graph without edges has modularity 0.
func Modularity(g *Weighted, comm []int32, resolution float64) float64 {
	m := g.TotalWeight()
	if m == 0 {
		return 0
	}
	k := 0
	for _, c := range comm {
		k = max(k, int(c)+1)
	}
	in := make([]float64, k)
	deg := make([]float64, k)
	for i := range g.N() {
		c := comm[i]
		in[c] += g.Self[i]
		deg[c] += 2 * g.Self[i]
		adj, w := g.Neighbors(int32(i))
		for x, j := range adj {
			deg[c] += w[x]
			if j > int32(i) && comm[j] == c {
				in[c] += w[x]
			}
		}
	}
	var q float64
	for c := range k {
		q += in[c]/m - resolution*deg[c]*deg[c]/(4*m*m)
	}
	return q
}

// louvainLevel is the graph of one Louvain level: its nodes are the
// communities of the level below.
type louvainLevel struct {
	off  []int32
	adj  []int32
	w    []float64
	self []float64
	deg  []float64 // weighted degree, self-loop twice
	// yield, when not nil, is called every yieldNodes nodes looked at.
	yield func()
}

// yieldNodes is how many nodes local moving looks at between two calls of
// its yield: a fraction of a millisecond.
const yieldNodes = 1024

func levelOf(g *Weighted) *louvainLevel {
	l := &louvainLevel{off: g.Off, adj: g.Adj, w: g.W, self: g.Self, deg: make([]float64, g.N())}
	for i := range l.deg {
		l.deg[i] = g.Strength(int32(i))
	}
	return l
}

// oneLevel runs local moving; it returns each node's community (numbered
// densely in the order of their first node) and whether any node moved.
func (l *louvainLevel) oneLevel(m, resolution float64, rng *splitmix.Source) ([]int32, bool) {
	return l.move(nil, m, resolution, rng)
}

// move runs local moving from the partition start (each node alone when
// nil).
func (l *louvainLevel) move(start []int32, m, resolution float64, rng *splitmix.Source) ([]int32, bool) {
	n := len(l.deg)
	comm := make([]int32, n)
	tot := make([]float64, n)
	for i := range n {
		comm[i] = int32(i)
		if start != nil {
			comm[i] = start[i]
		}
		tot[comm[i]] += l.deg[i]
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	for i := n - 1; i > 0; i-- {
		j := rng.Intn(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	toComm := make([]float64, n) // weight from the node to each community
	// active: the node's neighbourhood changed since it was last looked
	// at (every node, at first). Only active nodes are looked at: a node
	// none of whose neighbours moved keeps its choice (the fast local
	// moving of Traag et al.'s Leiden paper), so a pass costs the moves
	// of the last, not the whole graph.
	active := make([]bool, n)
	for i := range active {
		active[i] = true
	}
	seen := make([]bool, n)
	var touched []int32
	moved := false
	passes := 0
	m2 := 2 * m * m
	looked := 0
	for {
		moves, gained := 0, 0.0
		passes++
		for _, u := range order {
			if !active[u] {
				continue
			}
			active[u] = false
			if looked++; l.yield != nil && looked%yieldNodes == 0 {
				l.yield()
			}
			touched = touched[:0]
			lo, hi := l.off[u], l.off[u+1]
			for x := lo; x < hi; x++ {
				c := comm[l.adj[x]]
				if !seen[c] {
					seen[c] = true
					touched = append(touched, c)
				}
				toComm[c] += l.w[x]
			}
			own := comm[u]
			d := l.deg[u]
			tot[own] -= d
			removeCost := -toComm[own]/m + resolution*tot[own]*d/m2
			// A move must gain more than rounding noise: on a regular graph
			// (the band a long list of links makes) nodes would otherwise
			// trade places between equal communities forever, pass after
			// pass, at gains of 1e-19.
			best, bestGain := own, moveEpsilon
			for _, c := range touched {
				gain := removeCost + toComm[c]/m - resolution*tot[c]*d/m2
				if gain > bestGain {
					best, bestGain = c, gain
				}
			}
			tot[best] += d
			if best != own {
				comm[u] = best
				for _, v := range l.adj[lo:hi] {
					active[v] = true
				}
				moves++
				gained += bestGain
			}
			for _, c := range touched {
				toComm[c] = 0
				seen[c] = false
			}
		}
		if moves > 0 {
			moved = true
		}
		// A pass that gains no more than a level must gain ends the
		// moving: the last passes of a slow drift gain 1e-8 each.
		if moves == 0 || gained <= LouvainThreshold || passes == LouvainPasses {
			break
		}
	}
	renumber(comm)
	return comm, moved
}

// groupMembers lists the nodes of each community of comm (numbered from 0),
// in ascending order.
func groupMembers(comm []int32) [][]int32 {
	k := 0
	for _, c := range comm {
		k = max(k, int(c)+1)
	}
	members := make([][]int32, k)
	for i, c := range comm {
		members[c] = append(members[c], int32(i))
	}
	return members
}

// aggregate builds the next level: one node per community of comm, the
// edges between communities summed, the edges inside one a self-loop.
func (l *louvainLevel) aggregate(comm []int32) *louvainLevel {
	members := groupMembers(comm)
	k := len(members)
	next := &louvainLevel{off: make([]int32, k+1), self: make([]float64, k), deg: make([]float64, k)}
	acc := make([]float64, k)
	seen := make([]bool, k)
	var touched []int32
	for c := range k {
		touched = touched[:0]
		for _, u := range members[c] {
			next.self[c] += l.self[u]
			next.deg[c] += l.deg[u]
			for x := l.off[u]; x < l.off[u+1]; x++ {
				d := comm[l.adj[x]]
				if d == int32(c) {
					next.self[c] += l.w[x] / 2 // each internal edge is met from both ends
					continue
				}
				if !seen[d] {
					seen[d] = true
					touched = append(touched, d)
				}
				acc[d] += l.w[x]
			}
		}
		slices.Sort(touched)
		for _, d := range touched {
			next.adj = append(next.adj, d)
			next.w = append(next.w, acc[d])
			acc[d] = 0
			seen[d] = false
		}
		next.off[c+1] = int32(len(next.adj))
	}
	return next
}

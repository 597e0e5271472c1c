package graph

import (
	"math"
	"slices"
)

// LayoutEdge is an edge of a graph being laid out: the numbers of its ends
// (indexes into the layout's nodes) and its weight.
type LayoutEdge struct {
	A, B int32
	W    float64
}

// Layout iterations and their cost bound: each iteration costs one pass
// over the edges and, for repulsion, one over each node's grid cell and
// its eight neighbours.
const (
	layoutIterations = 50
	// layoutMaxEdgeVisits bounds the edge visits of a whole layout:
	// larger graphs get fewer iterations (at least layoutMinIterations).
	layoutMaxEdgeVisits = 5_000_000
	layoutMinIterations = 15
)

// Layout places n nodes in the plane with a force-directed layout and
// returns their coordinates, each in [-1, 1]. Each node moves toward the
// weighted mean of its neighbours (each edge pulling by the logarithm of
// its weight, three times harder within a group; averaged, so that a hub
// is not pulled by each of its thousand edges) and away from the nodes of
// its grid cell and the eight around it (Fruchterman–Reingold's k²/d),
// with a step that cools. It starts from the groups (group[i] is node i's
// group, a community) placed on a golden-angle spiral in order of first
// appearance (callers pass the largest first), each group's members around
// its centre in order, so the result is deterministic: the same input
// gives the same coordinates.
//
// The cost is O(iterations × (edges + nodes × nodes per cell)); the
// iterations (at most 50) are cut so that a layout visits at most 5
// million edges.
func Layout(n int, edges []LayoutEdge, group []int32) (x, y []float32) {
	px := make([]float64, n)
	py := make([]float64, n)
	if n == 0 {
		return nil, nil
	}
	// Groups on a golden-angle spiral, each taking room by its size.
	sizes := map[int32]int{}
	var order []int32 // groups in order of first appearance
	for _, g := range group {
		if sizes[g] == 0 {
			order = append(order, g)
		}
		sizes[g]++
	}
	golden := math.Pi * (3 - math.Sqrt(5))
	cx := map[int32]float64{}
	cy := map[int32]float64{}
	placed := 0
	for k, g := range order {
		r := math.Sqrt(float64(placed + sizes[g]/2))
		cx[g], cy[g] = r*math.Cos(float64(k)*golden), r*math.Sin(float64(k)*golden)
		placed += sizes[g]
	}
	seen := map[int32]int{}
	for i := range n {
		g := group[i]
		k := seen[g]
		seen[g]++
		r := 0.5 * math.Sqrt(float64(k))
		px[i] = cx[g] + r*math.Cos(float64(k)*golden)
		py[i] = cy[g] + r*math.Sin(float64(k)*golden)
	}
	// Force-directed on a grid: each node moves toward the weighted mean
	// of its neighbours (attraction by the logarithm of the weight,
	// averaged, so a hub of a thousand edges is not pulled a thousand
	// times harder) and away from the nodes of its grid cell and the eight
	// around it (repulsion k²/d).
	iters := layoutIterations
	if len(edges) > 0 {
		iters = min(iters, max(layoutMinIterations, layoutMaxEdgeVisits/len(edges)))
	}
	maxW := 1.0
	for _, e := range edges {
		maxW = max(maxW, e.W)
	}
	pull := make([]float64, len(edges))
	for k, e := range edges {
		pull[k] = 0.2 + math.Log1p(e.W)/math.Log1p(maxW)
		if group[e.A] == group[e.B] {
			pull[k] *= 3 // a community holds together
		}
	}
	const kd = 1.0 // the ideal distance
	const cell = 2 * kd
	ax := make([]float64, n)
	ay := make([]float64, n)
	sw := make([]float64, n)
	rx := make([]float64, n)
	ry := make([]float64, n)
	cellOf := make([]int32, n)
	byCell := make([]int32, n)
	temp := math.Sqrt(float64(n)) / 4
	for it := range iters {
		clear(ax)
		clear(ay)
		clear(sw)
		clear(rx)
		clear(ry)
		// The grid over the bounding box, nodes sorted by cell (a counting
		// sort: no maps, no allocation past the first iteration).
		minX, maxX, minY, maxY := px[0], px[0], py[0], py[0]
		for i := range n {
			minX, maxX = min(minX, px[i]), max(maxX, px[i])
			minY, maxY = min(minY, py[i]), max(maxY, py[i])
		}
		gw := min(int32((maxX-minX)/cell)+1, 1024)
		gh := min(int32((maxY-minY)/cell)+1, 1024)
		cw, ch := max((maxX-minX)/float64(gw), cell), max((maxY-minY)/float64(gh), cell)
		start := make([]int32, gw*gh+1)
		for i := range n {
			cx := min(int32((px[i]-minX)/cw), gw-1)
			cy := min(int32((py[i]-minY)/ch), gh-1)
			cellOf[i] = cx*gh + cy
			start[cellOf[i]+1]++
		}
		for c := range gw * gh {
			start[c+1] += start[c]
		}
		fill := slices.Clone(start[:gw*gh])
		for i := range n {
			byCell[fill[cellOf[i]]] = int32(i)
			fill[cellOf[i]]++
		}
		for i := range n {
			cx, cy := cellOf[i]/gh, cellOf[i]%gh
			for ox := max(cx-1, 0); ox <= min(cx+1, gw-1); ox++ {
				for oy := max(cy-1, 0); oy <= min(cy+1, gh-1); oy++ {
					c := ox*gh + oy
					for _, j := range byCell[start[c]:start[c+1]] {
						if int(j) == i {
							continue
						}
						dx, dy := px[i]-px[j], py[i]-py[j]
						d2 := dx*dx + dy*dy
						if d2 > 4*cell*cell {
							continue
						}
						if d2 < 1e-9 {
							// Coincident: apart along a direction fixed by the pair.
							dx, dy, d2 = float64(int(j)-i)*1e-3, float64((i+int(j))%7-3)*1e-3, 1e-6
						}
						f := kd * kd / d2
						rx[i] += dx * f
						ry[i] += dy * f
					}
				}
			}
		}
		for k, e := range edges {
			dx, dy := px[e.B]-px[e.A], py[e.B]-py[e.A]
			w := pull[k]
			ax[e.A] += dx * w
			ay[e.A] += dy * w
			sw[e.A] += w
			ax[e.B] -= dx * w
			ay[e.B] -= dy * w
			sw[e.B] += w
		}
		for i := range n {
			dx, dy := rx[i]-px[i]*0.01, ry[i]-py[i]*0.01
			if sw[i] > 0 {
				dx += ax[i] / sw[i] * 0.5
				dy += ay[i] / sw[i] * 0.5
			}
			if d := math.Sqrt(dx*dx + dy*dy); d > 0 {
				step := min(d, temp)
				px[i] += dx / d * step
				py[i] += dy / d * step
			}
		}
		temp = math.Sqrt(float64(n)) / 4 * (1 - float64(it+1)/float64(iters+1))
	}
	// Into [-1, 1], keeping the aspect ratio.
	minX, maxX, minY, maxY := px[0], px[0], py[0], py[0]
	for i := range n {
		minX, maxX = min(minX, px[i]), max(maxX, px[i])
		minY, maxY = min(minY, py[i]), max(maxY, py[i])
	}
	span := max(maxX-minX, maxY-minY)
	if span == 0 {
		span = 1
	}
	x, y = make([]float32, n), make([]float32, n)
	for i := range n {
		x[i] = float32((px[i] - (minX+maxX)/2) / span * 2)
		y[i] = float32((py[i] - (minY+maxY)/2) / span * 2)
	}
	return x, y
}

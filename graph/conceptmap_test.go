package graph_test

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
)

// TestMapOnFake: the map's concepts, PageRank order, edges, places,
// caching and neighbourhood.
func TestMapOnFake(t *testing.T) {
	ctx := context.Background()
	g := fakeGraph()
	a := graph.NewAnalyzer(g)
	res, err := a.Map(ctx, graph.MapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.GraphNodes != 3 || len(res.Nodes) != 3 || res.Nodes[0].ID != "c_go" || res.HasMore {
		t.Fatalf("map = %+v, want Go first of 3", res)
	}
	for i := 1; i < len(res.Nodes); i++ {
		if res.Nodes[i].Rank > res.Nodes[i-1].Rank {
			t.Errorf("node %d outranks node %d", i, i-1)
		}
	}
	// Go–GC (a note and a relation) and Go–Rust (a note): 2 edges.
	if len(res.Edges) != 2 {
		t.Errorf("edges = %+v, want 2", res.Edges)
	}
	for _, n := range res.Nodes {
		if math.Abs(float64(n.X)) > 1 || math.Abs(float64(n.Y)) > 1 {
			t.Errorf("%s is placed at (%g, %g), outside [-1, 1]", n.Label, n.X, n.Y)
		}
	}
	again, err := a.Map(ctx, graph.MapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again != res || g.Reads() != 1 {
		t.Errorf("a second map of the same version was computed again (%d reads)", g.Reads())
	}
	top, err := a.Map(ctx, graph.MapOptions{Limit: 1})
	if err != nil || len(top.Nodes) != 1 || !top.HasMore || len(top.Edges) != 0 {
		t.Errorf("limit 1: %+v, %v", top, err)
	}
	hood, err := a.Map(ctx, graph.MapOptions{Concept: "c_rust"})
	if err != nil {
		t.Fatal(err)
	}
	if hood.Center == nil || hood.Center.ID != "c_rust" || len(hood.Nodes) != 2 || hood.Nodes[0].ID != "c_rust" {
		t.Errorf("Rust's neighbourhood: %+v", hood)
	}
	if _, err := a.Map(ctx, graph.MapOptions{Concept: "nope"}); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Errorf("an unknown concept: %v, want not_found", err)
	}
	// Edges travel as [a, b, weight].
	b, err := json.Marshal(res.Edges[0])
	if err != nil {
		t.Fatal(err)
	}
	var back graph.MapEdge
	if err := json.Unmarshal(b, &back); err != nil || back != res.Edges[0] || b[0] != '[' {
		t.Errorf("edge %+v as JSON %s reads back as %+v (%v)", res.Edges[0], b, back, err)
	}
}

// TestLayout: deterministic, inside [-1, 1], communities apart, and
// linked nodes nearer than unlinked ones.
func TestLayout(t *testing.T) {
	s := twoCliques()
	w := s.build()
	var edges []graph.LayoutEdge
	group := make([]int32, w.N())
	for i := range w.N() {
		nb, wt := w.Neighbors(int32(i))
		for k, j := range nb {
			if j > int32(i) {
				edges = append(edges, graph.LayoutEdge{A: int32(i), B: j, W: wt[k]})
			}
		}
		if w.IDs[i][0] == 'b' {
			group[i] = 1
		}
	}
	x, y := graph.Layout(w.N(), edges, group)
	x2, y2 := graph.Layout(w.N(), edges, group)
	if !reflect.DeepEqual(x, x2) || !reflect.DeepEqual(y, y2) {
		t.Error("the same input laid out twice gives two layouts")
	}
	dist := func(i, j int) float64 {
		return math.Hypot(float64(x[i]-x[j]), float64(y[i]-y[j]))
	}
	var within, across float64
	var nw, na int
	for i := range w.N() {
		if math.Abs(float64(x[i])) > 1 || math.Abs(float64(y[i])) > 1 {
			t.Errorf("node %d at (%g, %g)", i, x[i], y[i])
		}
		for j := i + 1; j < w.N(); j++ {
			if group[i] == group[j] {
				within += dist(i, j)
				nw++
			} else {
				across += dist(i, j)
				na++
			}
		}
	}
	if within/float64(nw) >= across/float64(na) {
		t.Errorf("mean distance within a clique %.3f, across %.3f: the cliques are not apart", within/float64(nw), across/float64(na))
	}
	if x, y := graph.Layout(0, nil, nil); x != nil || y != nil {
		t.Error("an empty layout has places")
	}
}

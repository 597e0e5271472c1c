package graph_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/noema-mem/noema/graph"
)

// BenchmarkMap measures the concept map of the 10,000-note vault (2,490
// concepts, about 100k edges): a first map of a graph version (the
// layout computed; PageRank and communities already cached, as after any
// analyze_graph or build_context) and the layout alone:
//
//	go test -run '^$' -bench Map -benchtime 5x ./graph/
func BenchmarkMap(b *testing.B) {
	db := cachedIndex(b, bench10k)
	ctx := context.Background()
	a := graph.NewAnalyzer(db.Graph())
	if _, err := a.Analyze(ctx, graph.AnalyzeOptions{Op: graph.OpCommunities}); err != nil {
		b.Fatal(err)
	}
	res, err := a.Map(ctx, graph.MapOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("map: %d nodes, %d edges", len(res.Nodes), len(res.Edges))
	edges := make([]graph.LayoutEdge, len(res.Edges))
	group := make([]int32, len(res.Nodes))
	for k, e := range res.Edges {
		edges[k] = graph.LayoutEdge{A: e.A, B: e.B, W: e.W}
	}
	for k, n := range res.Nodes {
		group[k] = int32(n.Community)
	}
	b.Run("Layout", func(b *testing.B) {
		for b.Loop() {
			graph.Layout(len(group), edges, group)
		}
	})
}

// BenchmarkMapJSON measures encoding the 10k vault's map as the web view
// receives it.
func BenchmarkMapJSON(b *testing.B) {
	db := cachedIndex(b, bench10k)
	res, err := graph.NewAnalyzer(db.Graph()).Map(context.Background(), graph.MapOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		data, err := json.Marshal(res)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
	}
}

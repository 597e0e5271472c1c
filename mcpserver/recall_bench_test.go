package mcpserver_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/mcpserver"
)

var recallLarge = flag.Bool("recall.large", false, "also run the search_notes/build_context benchmarks at 100,000 notes (slow to generate)")

// BenchmarkRecall measures search_notes (hybrid) and build_context (depth 2)
// end to end: the MCP SDK client calling the server over streamable HTTP,
// on a generated vault whose note chunks are embedded (built-in embedder).
// Next to them, fts-floor is the bare FTS5 query of the same words on the
// same index (words OR-ed, no coverage tiers, no semantic, no snippets): the
// floor any full-text search pays. p50-ms is the median latency.
//
//	go test -run '^$' -bench Recall -benchtime 200x ./mcpserver/
//	go test -run '^$' -bench Recall -benchtime 100x -timeout 60m ./mcpserver/ -recall.large
func BenchmarkRecall(b *testing.B) {
	sizes := []int{10000}
	if *recallLarge {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		ctx := context.Background()
		a, m := noematest.EmbeddedApp(b, corpus.Options{Seed: 42, Notes: n})
		if err := a.Search.Warm(ctx); err != nil {
			b.Fatal(err)
		}
		if err := a.Recall.Refresh(ctx); err != nil {
			b.Fatal(err)
		}
		queries, concepts := noematest.RecallQueries(m)
		srv, err := mcpserver.New(a, mcpserver.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("search_notes-hybrid/N=%d", n), func(b *testing.B) {
			benchTool(b, cs, "search_notes", func(i int) map[string]any { return map[string]any{"query": queries[i%len(queries)]} })
		})
		b.Run(fmt.Sprintf("search_notes-fulltext/N=%d", n), func(b *testing.B) {
			benchTool(b, cs, "search_notes", func(i int) map[string]any {
				return map[string]any{"query": queries[i%len(queries)], "mode": "fulltext"}
			})
		})
		b.Run(fmt.Sprintf("build_context-depth2/N=%d", n), func(b *testing.B) {
			benchTool(b, cs, "build_context", func(i int) map[string]any { return map[string]any{"concept": concepts[i%len(concepts)]} })
		})
		b.Run(fmt.Sprintf("fts-floor/N=%d", n), func(b *testing.B) {
			benchLatency(b, func(i int) error {
				_, err := a.DB.Search().SearchText(ctx, noema.TextQuery{Match: plainOR(queries[i%len(queries)]), Weights: [3]float64{1, 1, 1}, Limit: 10})
				return err
			})
		})
		cs.Close()
		ts.Close()
	}
}

// plainOR is the floor's FTS5 expression: every word of q, quoted, OR-ed.
func plainOR(q string) string {
	words := strings.Fields(q)
	for i, w := range words {
		words[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(words, " OR ")
}

// BenchmarkVsFTS5 is issue 20's speed check over MCP: search_notes
// (default mode) called through the MCP SDK client over streamable HTTP,
// and plain FTS5 BM25 of the same words (OR-ed, bm25(), top 10, on the
// same index, called directly) alternated on every iteration, for the
// three kinds of query of noematest.QueryClasses (common words, rare
// words, a pasted paragraph). ratio is the p50 of the first over the
// second's (target: at most 2).
//
//	go test -run '^$' -bench VsFTS5 -benchtime 100x ./mcpserver/
//	go test -run '^$' -bench VsFTS5 -benchtime 20x -timeout 90m ./mcpserver/ -recall.large
func BenchmarkVsFTS5(b *testing.B) {
	sizes := []int{10000}
	if *recallLarge {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		ctx := context.Background()
		a, _ := noematest.EmbeddedApp(b, corpus.Options{Seed: 42, Notes: n})
		if err := a.Search.Warm(ctx); err != nil {
			b.Fatal(err)
		}
		classes := noematest.QueryClasses(b, a.DB.Search())
		srv, err := mcpserver.New(a, mcpserver.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, class := range []string{"common-words", "rare-words", "pasted-paragraph"} {
			qs := classes[class]
			b.Run(fmt.Sprintf("%s/N=%d", class, n), func(b *testing.B) {
				var lat, flat []time.Duration
				i := 0
				for b.Loop() {
					q := qs[i%len(qs)]
					t := time.Now()
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_notes", Arguments: map[string]any{"query": q}})
					if err != nil || res.IsError {
						b.Fatalf("search_notes: %v %v", err, res)
					}
					lat = append(lat, time.Since(t))
					t = time.Now()
					if _, err := a.DB.Search().SearchText(ctx, noema.TextQuery{Match: plainOR(q), Weights: [3]float64{1, 1, 1}, Limit: 10}); err != nil {
						b.Fatal(err)
					}
					flat = append(flat, time.Since(t))
					i++
				}
				noematest.ReportVsFTS5(b, lat, flat)
			})
		}
		cs.Close()
		ts.Close()
	}
}

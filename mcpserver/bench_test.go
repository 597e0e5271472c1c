package mcpserver_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/benchdata"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/mcpserver"
)

// benchApp builds a vault whose concepts are the first n benchmark labels
// (docs/fuzzy.md), linked from notes of 100 links each, and syncs it.
func benchApp(b *testing.B, n int) (*app.App, benchdata.Data) {
	b.Helper()
	data := benchdata.Generate()
	return noematest.LabelVault(b, data.Labels[:n], 100), data
}

// BenchmarkFindConcepts measures find_concepts (WRatio, default processor,
// top 20) one query at a time, cycling the 50 benchmark queries: in process
// through the service, and end to end through the MCP SDK client over
// streamable HTTP; at 100,000 concepts also find_similar_concepts (builtin
// embedder, top 10) over MCP. p50-ms is the median latency per query.
//
//	go test -run '^$' -bench FindConcepts -benchtime 200x ./mcpserver/
func BenchmarkFindConcepts(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		a, data := benchApp(b, n)
		ctx := context.Background()
		// Warm the name cache (built once per registry version).
		if _, err := a.Concepts.Find(ctx, concepts.FindInput{Query: "warm"}); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("service/N=%d", n), func(b *testing.B) {
			benchLatency(b, func(i int) error {
				_, err := a.Concepts.Find(ctx, concepts.FindInput{Query: data.Queries[i%len(data.Queries)], Limit: 20})
				return err
			})
		})
		srv, err := mcpserver.New(a, mcpserver.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("mcp-http/N=%d", n), func(b *testing.B) {
			benchTool(b, cs, "find_concepts", func(i int) map[string]any {
				return map[string]any{"query": data.Queries[i%len(data.Queries)], "limit": 20}
			})
		})
		if n == 100000 {
			// find_similar_concepts end to end: embed all concepts first
			// (the servers do it in the background), then query by label.
			if err := a.Semantic.Refresh(ctx); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("mcp-http-similar/N=%d", n), func(b *testing.B) {
				benchTool(b, cs, "find_similar_concepts", func(i int) map[string]any {
					return map[string]any{"concept": data.Labels[(i*7919)%n], "max_results": 10}
				})
			})
		}
		cs.Close()
		ts.Close()
	}
}

// benchLatency runs op(i) at every iteration i, failing on its error, and
// reports the median latency (p50-ms).
func benchLatency(b *testing.B, op func(i int) error) {
	lat := make([]time.Duration, 0, b.N)
	i := 0
	for b.Loop() {
		t0 := time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		i++
	}
	reportP50(b, lat)
}

// benchTool is benchLatency of calls of tool through cs with the
// arguments args(i); a tool error fails too.
func benchTool(b *testing.B, cs *mcp.ClientSession, tool string, args func(i int) map[string]any) {
	benchLatency(b, func(i int) error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args(i)})
		if err != nil || res.IsError {
			return fmt.Errorf("%s: %v %v", tool, err, res)
		}
		return nil
	})
}

func reportP50(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}

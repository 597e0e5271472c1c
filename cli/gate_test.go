package cli

import (
	"context"
	"runtime/pprof"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/internal/gate"
)

// TestRequestsAreCountedOnTheGate: while a request runs, the gate the
// vaults' background work watches counts it, and work it leaves running
// (gate.Detached) is background work of that gate; after it, nothing is
// in flight.
func TestRequestsAreCountedOnTheGate(t *testing.T) {
	var g gate.Gate
	var during int64
	var detached *gate.Gate
	h := cancelOnStop(context.Background(), &g)(func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		during = g.InFlight()
		detached = gate.From(gate.Detached(ctx))
		if gate.From(ctx) != nil {
			t.Error("the request's own context is background work")
		}
		return nil, nil
	})
	if _, err := h(context.Background(), "tools/call", nil); err != nil {
		t.Fatal(err)
	}
	if during != 1 || detached != &g {
		t.Errorf("during the request: in flight %d (want 1), detached work's gate %p (want %p)", during, detached, &g)
	}
	if n := g.InFlight(); n != 0 {
		t.Errorf("after the request: in flight %d, want 0", n)
	}
}

// TestRequestsAreLabelled: a request runs under the MCP method and the
// tool as profile labels (pprof.Do: its goroutine and those it starts
// carry them, what `go tool pprof -tagfocus tool=find_concepts` selects).
func TestRequestsAreLabelled(t *testing.T) {
	type seen struct{ method, tool string }
	var got seen
	h := cancelOnStop(context.Background(), nil)(func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		got.method, _ = pprof.Label(ctx, "mcp")
		got.tool, _ = pprof.Label(ctx, "tool")
		return nil, nil
	})
	if _, err := h(context.Background(), "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "find_concepts"}}); err != nil {
		t.Fatal(err)
	}
	if want := (seen{"tools/call", "find_concepts"}); got != want {
		t.Errorf("labels %+v, want %+v", got, want)
	}
	got = seen{}
	if _, err := h(context.Background(), "tools/list", nil); err != nil {
		t.Fatal(err)
	}
	if got.method != "tools/list" || got.tool != "" {
		t.Errorf("tools/list labels %+v, want method tools/list and no tool", got)
	}
}

package mcpserver_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/mcpserver"
)

func TestScratchWrites(t *testing.T) {
	dir := os.Getenv("SCRATCH_VAULT")
	if dir == "" {
		t.Skip()
	}
	a := noematest.OpenSynced(t, dir, app.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.Start(ctx)
	srv, _ := mcpserver.New(a, mcpserver.Options{})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "x", Version: "v0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hub := os.Getenv("SCRATCH_HUB")
	call := func(name string, args map[string]any) time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatal(name, err, res)
		}
		return time.Since(t0)
	}
	call("build_context", map[string]any{"concept": hub})
	time.Sleep(2 * time.Second)
	for i := range 20 {
		d := call("write_note", map[string]any{"title": fmt.Sprintf("S %d", i), "content": fmt.Sprintf("text %d about [[%s]] and [[Other %d]] and more words here", i, hub, i)})
		d2 := call("edit_note", map[string]any{"uri": fmt.Sprintf("S %d", i), "op": "append", "content": "\nmore [[" + hub + "]]\n"})
		d3 := call("build_context", map[string]any{"concept": hub})
		t.Logf("write %v edit %v context %v", d, d2, d3)
	}
}

package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/mcpserver"
)

// TestNullArguments: mcp-go sends "arguments": null for a tool called
// without arguments. go-sdk v1.8.0 panics on that (applying defaults to a
// nil map), which ended the process; it is a call without arguments, and
// the session goes on.
func TestNullArguments(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	ctx := context.Background()
	for _, name := range []string{"export_graph", "status", "list_notes"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage("null")})
		if err != nil || res.IsError {
			t.Fatalf("%s with null arguments: %v %+v", name, err, res)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "status", Arguments: map[string]any{}}); err != nil {
		t.Fatalf("after null arguments: %v", err)
	}
}

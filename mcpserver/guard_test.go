package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/mcpserver"
)

// TestHostileResourceURIs reads resources whose URIs go-sdk v1.8.0 would
// render as invalid JSON in its "Resource not found" error (it formats them
// with %q), which used to end the session. Each must get a JSON-RPC error and
// leave the session serving.
func TestHostileResourceURIs(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, c := range []struct {
		name, uri string
		code      int64  // 0: any code
		msg       string // in the error message
	}{
		{"SOH in a note URI", "memory://a\x01b", jsonrpc.CodeInvalidParams, "control character U+0001"},
		{"NUL in a note URI", "memory://a\x00b", jsonrpc.CodeInvalidParams, "control character U+0000"},
		{"DEL in a note URI", "memory://a\x7fb", jsonrpc.CodeInvalidParams, "control character U+007F"},
		{"BEL (\\a is no JSON escape)", "memory://\a", jsonrpc.CodeInvalidParams, "control character U+0007"},
		{"C1 control", "memory://a\u0085b", jsonrpc.CodeInvalidParams, "control character U+0085"},
		{"control in a static resource", "noema://status\x01", jsonrpc.CodeInvalidParams, "control character"},
		{"control in an unknown scheme", "zzz://\x1b[31m", jsonrpc.CodeInvalidParams, "control character U+001B"},
		// (Invalid UTF-8 cannot arrive: JSON decoding turns it into U+FFFD;
		// TestCheckURI covers the check.)
		{"U+FFFD", "memory://a\uFFFDb", 0, ""},
		// Printable-or-format runes beyond the BMP are legitimate (flag
		// emoji use tag characters) but %q writes them as \U…: the error
		// must still be valid JSON.
		{"tag character, missing note", "memory://flag-\U000E0067", 0, ""},
		{"tag character, unknown scheme", "zzz://\U000E0001", mcp.CodeResourceNotFound, "not found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: c.uri})
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) {
				t.Fatalf("read %q: %v, want a JSON-RPC error", c.uri, err)
			}
			if (c.code != 0 && wire.Code != c.code) || !strings.Contains(wire.Message, c.msg) {
				t.Errorf("read %q: code %d %q, want %d containing %q", c.uri, wire.Code, wire.Message, c.code, c.msg)
			}
			// The session still serves.
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "noema://status"}); err != nil {
				t.Fatalf("after %q: %v", c.uri, err)
			}
		})
	}
	// A missing note with an ordinary URI is still "Resource not found".
	_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://no/such/note"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != mcp.CodeResourceNotFound {
		t.Errorf("missing note: %v", err)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

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

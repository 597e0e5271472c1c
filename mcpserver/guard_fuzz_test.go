package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzGuardURI: for any resource URI, guard either refuses it with an
// invalid-params error or passes it on, and every error it returns — its
// own, or the SDK's not-found error with the URI formatted by %q — carries
// data that is valid JSON, so the response can always be encoded.
func FuzzGuardURI(f *testing.F) {
	for _, s := range []string{"memory://a", "memory://a\x01b", "memory://\x00", "\x7f", "memory://\u0085",
		"memory://🏴\U000e0067\U000e0062", "memory://\xff\xfe", "noema://concepts?text=x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		req := &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: uri}}
		_, err := guard(next)(context.Background(), "resources/read", req)
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) {
			t.Fatalf("%q: error %v is not a JSON-RPC error", uri, err)
		}
		if len(wire.Data) > 0 && !json.Valid(wire.Data) {
			t.Fatalf("%q: error data %s is not JSON", uri, wire.Data)
		}
		bad := !utf8.ValidString(uri)
		for _, r := range uri {
			bad = bad || unicode.IsControl(r)
		}
		refused := wire.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(wire.Message, "invalid resource URI")
		if bad != refused {
			t.Fatalf("%q: %d %q, want refused=%v", uri, wire.Code, wire.Message, bad)
		}
		if _, err := json.Marshal(wire); err != nil {
			t.Fatal(fmt.Errorf("%q: encode the error: %w", uri, err))
		}
	})
}

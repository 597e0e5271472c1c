package mcpserver

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCheckURI(t *testing.T) {
	for uri, want := range map[string]string{
		"memory://notes/ok":        "",
		"memory://日本語/メモ":          "",
		"memory://a\uFFFDb":        "", // a real U+FFFD is fine
		"memory://flag-\U000E0067": "",
		"memory://a\xffb":          "not valid UTF-8 (byte 0xFF at offset 10)",
		"memory://\xe2\x82":        "not valid UTF-8",
		"memory://a\x01b":          "control character U+0001 at offset 10",
		"memory://\x00":            "control character U+0000",
		"memory://\x7f":            "control character U+007F",
		"memory://\u009f":          "control character U+009F",
		"memory://tab\there":       "control character U+0009",
		"memory://line\nbreak":     "control character U+000A",
	} {
		err := checkURI(uri)
		if want == "" {
			if err != nil {
				t.Errorf("checkURI(%q) = %v, want nil", uri, err)
			}
			continue
		}
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || !strings.Contains(wire.Message, want) || !json.Valid(wire.Data) {
			t.Errorf("checkURI(%q) = %#v, want invalid params containing %q with JSON data", uri, err, want)
		}
	}
}

// TestSanitizeError checks the net under the URI check: the SDK's own
// not-found error for a URI it renders as invalid JSON gets valid data.
func TestSanitizeError(t *testing.T) {
	uri := "memory://\U000E0001\a"
	req := &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: uri}}
	bad := mcp.ResourceNotFoundError(uri)
	if json.Valid(bad.(*jsonrpc.Error).Data) {
		t.Skip("the SDK now writes valid JSON; the net is no longer needed")
	}
	var wire *jsonrpc.Error
	if !errors.As(sanitizeError(req, bad), &wire) || !json.Valid(wire.Data) || wire.Code != mcp.CodeResourceNotFound {
		t.Fatalf("sanitized: %#v", wire)
	}
	var data struct{ URI string }
	if err := json.Unmarshal(wire.Data, &data); err != nil || data.URI != uri {
		t.Errorf("data %s: %v", wire.Data, err)
	}
	ok := mcp.ResourceNotFoundError("memory://fine")
	if sanitizeError(req, ok) != ok {
		t.Error("valid data was replaced")
	}
}

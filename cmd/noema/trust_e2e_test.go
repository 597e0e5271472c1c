package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileURIs are resource URIs that go-sdk v1.8.0 renders as invalid JSON
// in its "Resource not found" error; each used to end the session.
var hostileURIs = []string{"memory://a\u0001b", "memory://a\u0000b", "memory://a\u007fb", "noema://status\u0001", "zzz://\u001b[0m"}

// readHostileURIs reads every hostile URI on cs, wanting a JSON-RPC error
// each time, and a working session after each.
func readHostileURIs(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, uri := range hostileURIs {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || !strings.Contains(wire.Message, "control character") {
			t.Fatalf("read %q: %v, want invalid params naming the control character", uri, err)
		}
		var st struct{ Notes int }
		if err := callTool(ctx, cs, "status", map[string]any{}, &st); err != nil {
			t.Fatalf("status after reading %q: %v", uri, err)
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "noema://status"}); err != nil {
			t.Fatalf("resource after reading %q: %v", uri, err)
		}
	}
}

func TestStdioHostileResourceURI(t *testing.T) {
	cs := stdioClient(t, filepath.Join(t.TempDir(), "vault"))
	readHostileURIs(t, cs)
}

func TestHTTPHostileResourceURI(t *testing.T) {
	url := serve(t, filepath.Join(t.TempDir(), "vault")) + "/mcp"
	// At an earlier revision: from 2026-07-28 the client copies the URI
	// into an Mcp-Name header, which Go's HTTP client refuses to send with
	// a control character, so the server would never see it.
	readHostileURIs(t, httpSession(t, url, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}))
}

// TestHTTPSessionBounds: beyond --max-sessions a new session gets a clear
// 503 while the existing ones keep working; sessions idle past
// --session-timeout are reclaimed, which makes room again. Sessions are
// those of clients of revisions before 2026-07-28 (initialize); a client of
// the stateless revision opens none and is never refused.
func TestHTTPSessionBounds(t *testing.T) {
	url := serve(t, filepath.Join(t.TempDir(), "vault"), "--max-sessions", "2", "--session-timeout", "1s") + "/mcp"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	connectAt := func(version string) (*mcp.ClientSession, error) {
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil)
		return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
	}
	connect := func() (*mcp.ClientSession, error) { return connectAt("2025-11-25") }
	var sessions []*mcp.ClientSession
	for range 2 {
		cs, err := connect()
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		sessions = append(sessions, cs)
	}
	if cs, err := connect(); err == nil {
		cs.Close()
		t.Fatal("a third session was admitted with --max-sessions 2")
	}
	req, _ := http.NewRequest("POST", url, strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Contains(body, []byte("too many MCP sessions")) || resp.Header.Get("Retry-After") == "" {
		t.Errorf("initialize beyond the cap: %d %s", resp.StatusCode, body)
	}
	for i, cs := range sessions {
		if err := callTool(ctx, cs, "status", map[string]any{}, nil); err != nil {
			t.Errorf("session %d at the cap: %v", i, err)
		}
	}
	stateless, err := connectAt("2026-07-28")
	if err != nil {
		t.Fatalf("a stateless client at the cap: %v", err)
	}
	defer stateless.Close()
	if err := callTool(ctx, stateless, "status", map[string]any{}, nil); err != nil || stateless.ID() != "" {
		t.Errorf("a stateless client at the cap: %v (session %q)", err, stateless.ID())
	}
	// Idle for longer than the timeout: both sessions are reclaimed.
	time.Sleep(1500 * time.Millisecond)
	var cs *mcp.ClientSession
	for deadline := time.Now().Add(10 * time.Second); ; {
		if cs, err = connect(); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session admitted after the idle ones expired: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	defer cs.Close()
	if err := callTool(ctx, cs, "status", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := callTool(ctx, sessions[0], "status", map[string]any{}, nil); err == nil {
		t.Error("an expired session still answered")
	}
}

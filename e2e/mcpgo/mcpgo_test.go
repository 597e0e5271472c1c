// Package mcpgo drives a real noema binary with a second, independent MCP
// client: github.com/mark3labs/mcp-go, over stdio and over streamable HTTP,
// at the newest protocol revision (2026-07-28) and at an earlier one. It is
// a module of its own so that noema does not depend on mcp-go.
//
// Run from the repository: cd e2e/mcpgo && go test ./...
// NOEMA_BIN names a built binary; without it the test builds ../../cmd/noema.
package mcpgo

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

const newest = "2026-07-28"

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// noemaBin returns the binary under test: $NOEMA_BIN, or one built from
// this checkout.
func noemaBin(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("NOEMA_BIN"); b != "" {
		abs, err := filepath.Abs(b)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "noema-mcpgo-")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "noema")
		cmd := exec.Command("go", "build", "-o", built, "./cmd/noema")
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build noema: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

func initialize(ctx context.Context, t *testing.T, c *client.Client) *mcp.InitializeResult {
	t.Helper()
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "noema-e2e-mcpgo", Version: "0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return res
}

// progress collects the progress notifications a client receives.
type progress struct {
	mu     sync.Mutex
	values []float64
}

func (p *progress) listen(c *client.Client) {
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		if v, ok := n.Params.AdditionalFields["progress"].(float64); ok {
			p.mu.Lock()
			p.values = append(p.values, v)
			p.mu.Unlock()
		}
	})
}

func (p *progress) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.values)
}

func call(ctx context.Context, t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func structured(t *testing.T, res *mcp.CallToolResult, into any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// exercise runs a user's session: tools listed, a note written and read
// back (by title, by path, as a resource), the graph queried by names, a
// sync with progress, the JSON export as structured content, and errors
// with their codes.
func exercise(ctx context.Context, t *testing.T, c *client.Client, vault string) {
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) < 20 {
		t.Errorf("%d tools listed", len(tools.Tools))
	}

	res := call(ctx, t, c, "write_note", map[string]any{
		"title": "Garbage Collection", "folder": "Runtime Notes", "aliases": []string{"GC"},
		"content": "Tracing collectors free [[Memory Management]] work. See [[Escape Analysis]].\n",
	})
	if res.IsError {
		t.Fatalf("write_note: %s", text(res))
	}
	var written struct{ URI, Path string }
	structured(t, res, &written)
	if written.URI == "" || !strings.Contains(written.Path, "Runtime Notes/") {
		t.Fatalf("write_note result %+v", written)
	}

	for _, ref := range []string{written.URI, written.Path, "Garbage Collection", "GC", strings.TrimSuffix(written.Path, ".md")} {
		res := call(ctx, t, c, "read_note", map[string]any{"uri": ref})
		if res.IsError || !strings.Contains(text(res), "Tracing collectors") {
			t.Errorf("read_note %q: %s", ref, text(res))
		}
	}
	// The note as a resource, with its path's space as is and percent-encoded.
	for _, uri := range []string{written.URI, strings.ReplaceAll(written.URI, " ", "%20")} {
		var rr mcp.ReadResourceRequest
		rr.Params.URI = uri
		rres, err := c.ReadResource(ctx, rr)
		if err != nil {
			t.Errorf("read resource %q: %v", uri, err)
			continue
		}
		if len(rres.Contents) != 1 {
			t.Errorf("read resource %q: %d contents", uri, len(rres.Contents))
			continue
		}
		if tc, ok := rres.Contents[0].(mcp.TextResourceContents); !ok || !strings.Contains(tc.Text, "Tracing collectors") {
			t.Errorf("read resource %q: %+v", uri, rres.Contents[0])
		}
	}

	// Graph tools by a concept's label and a note's title.
	for name, args := range map[string]map[string]any{
		"get_node":  {"id": "Memory Management"},
		"neighbors": {"id": "Garbage Collection"},
		"subgraph":  {"ids": []string{"Escape Analysis", "Garbage Collection"}},
	} {
		if res := call(ctx, t, c, name, args); res.IsError {
			t.Errorf("%s by name: %s", name, text(res))
		}
	}

	// A file written behind noema's back, then a sync that reports progress.
	if err := os.WriteFile(filepath.Join(vault, "Outside.md"), []byte("# Outside\n\nMentions [[Memory Management]].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var p progress
	p.listen(c)
	var sreq mcp.CallToolRequest
	sreq.Params.Name = "sync"
	sreq.Params.Arguments = map[string]any{"rebuild": true}
	sreq.Params.Meta = &mcp.Meta{ProgressToken: "sync-1"}
	sres, err := c.CallTool(ctx, sreq)
	if err != nil || sres.IsError {
		t.Fatalf("sync: %v %v", err, sres)
	}
	// Over stdio mcp-go hands notifications to their handlers on another
	// goroutine than the reply: give them a moment.
	for deadline := time.Now().Add(5 * time.Second); p.count() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if p.count() == 0 {
		t.Error("sync sent no progress notifications")
	}

	// The JSON export is structured content; GraphML stays text. Both
	// within a budget large enough for the whole graph (the default pages
	// nodes before edges, and refuses GraphML, a document of ~3,000
	// tokens at least).
	res = call(ctx, t, c, "export_graph", map[string]any{"max_tokens": 100000})
	var export struct {
		Format string
		Nodes  []struct{ ID, Kind, Label string }
		Edges  []struct{ Source, Target, Type string }
	}
	structured(t, res, &export)
	if export.Format != "json" || len(export.Nodes) < 4 || len(export.Edges) < 3 {
		t.Errorf("export_graph json: %+v", export)
	}
	res = call(ctx, t, c, "export_graph", map[string]any{"format": "graphml", "max_tokens": 20000})
	var gml struct{ Format, Data string }
	structured(t, res, &gml)
	if gml.Format != "graphml" || !strings.Contains(gml.Data, "<graphml") {
		t.Errorf("export_graph graphml: %.200s", gml.Data)
	}

	// Errors keep their codes.
	if res := call(ctx, t, c, "read_note", map[string]any{"uri": "No Such Note"}); !res.IsError || !strings.HasPrefix(text(res), "not_found:") {
		t.Errorf("missing note: %v %q", res.IsError, text(res))
	}
	if res := call(ctx, t, c, "list_notes", map[string]any{"limit": 100000}); !res.IsError || !strings.HasPrefix(text(res), "invalid_argument") {
		t.Errorf("limit beyond the maximum: %v %q", res.IsError, text(res))
	}
	var rr mcp.ReadResourceRequest
	rr.Params.URI = "memory://No Such Note"
	if _, err := c.ReadResource(ctx, rr); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing resource: %v", err)
	}
}

func TestStdio(t *testing.T) {
	bin := noemaBin(t)
	vault := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The process's stderr goes to a file: the transport writes it from its
	// own goroutine, and the test reads it when it fails.
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	c, err := client.NewStdioMCPClientWithOptions(bin, nil, []string{"--vault", vault, "mcp"}, transport.WithCommandStderrWriter(stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer func() {
		if t.Failed() {
			b, _ := os.ReadFile(stderr.Name())
			t.Logf("noema mcp stderr:\n%s", b)
		}
	}()
	// The stdio constructor starts the transport; Start (idempotent) also
	// hooks up the notification handlers.
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	res := initialize(ctx, t, c)
	if res.ProtocolVersion != newest {
		t.Errorf("stdio negotiated %q, want %s", res.ProtocolVersion, newest)
	}
	exercise(ctx, t, c, vault)
}

// serve starts `noema serve` on a free port with token and returns its URL.
func serve(t *testing.T, bin, vault, token string) string {
	t.Helper()
	cmd := exec.Command(bin, "--vault", vault, "serve", "--addr", "127.0.0.1:0", "--token", token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	// "serving … at URL" comes once the port is bound.
	urls := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`at (http://\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
				break
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(20 * time.Second):
		t.Fatal("noema serve printed no URL")
		return ""
	}
}

// httpClient starts a streamable HTTP client of url, closed when the test
// ends.
func httpClient(ctx context.Context, t *testing.T, url string, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHTTP(t *testing.T) {
	bin := noemaBin(t)
	vault := t.TempDir()
	const token = "e2e-token-mcpgo"
	url := serve(t, bin, vault, token)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	auth := transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token})
	c := httpClient(ctx, t, url, auth)
	res := initialize(ctx, t, c)
	if res.ProtocolVersion != newest {
		t.Errorf("HTTP negotiated %q, want %s", res.ProtocolVersion, newest)
	}
	if id := c.GetSessionId(); id != "" {
		t.Errorf("a session id (%q) at the stateless revision", id)
	}
	exercise(ctx, t, c, vault)

	// A client of an earlier revision gets a session, as before.
	legacy := httpClient(ctx, t, url, auth)
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = "2025-11-25"
	req.Params.ClientInfo = mcp.Implementation{Name: "legacy", Version: "0"}
	lres, err := legacy.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if lres.ProtocolVersion != "2025-11-25" || legacy.GetSessionId() == "" {
		t.Errorf("earlier revision: %q, session %q", lres.ProtocolVersion, legacy.GetSessionId())
	}
	if res := call(ctx, t, legacy, "read_note", map[string]any{"uri": "Garbage Collection"}); res.IsError {
		t.Errorf("earlier revision read_note: %s", text(res))
	}

	// Without the token: refused, and the error says what to do.
	anon, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	anon.Start(ctx)
	var areq mcp.InitializeRequest
	areq.Params.ClientInfo = mcp.Implementation{Name: "anon", Version: "0"}
	// mcp-go reports a 401 as such (it does not show the body, which says
	// how to send the token; httpserver's tests check that).
	if _, err := anon.Initialize(ctx, areq); !errors.Is(err, transport.ErrAuthorizationRequired) {
		t.Errorf("without a token: %v", err)
	}
	resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("healthz: %v %v", err, resp)
	}
	if resp != nil {
		resp.Body.Close()
	}
}

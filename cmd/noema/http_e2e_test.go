package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// serve starts `noema serve` and waits until it answers.
func serve(t *testing.T, vault string, args ...string) string {
	t.Helper()
	base, _ := serveProc(t, vault, args...)
	return base
}

// serveProc is serve, returning the process as well.
func serveProc(t *testing.T, vault string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if len(args) > 0 && strings.HasPrefix(args[0], "0.0.0.0") {
		addr = fmt.Sprintf("0.0.0.0:%d", port)
		args = args[1:]
	}
	cmd := exec.Command(binary, append([]string{"--vault", vault, "serve", "--addr", addr}, args...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for range 100 {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return base, cmd
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("noema serve did not start")
	return "", nil
}

// httpSession connects an MCP client, without retries, to the streamable
// HTTP endpoint url; the session is closed when the test ends.
func httpSession(t *testing.T, url string, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`

func post(t *testing.T, url string, headers map[string]string, body []byte) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestHTTPSecurity(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	base := serve(t, vault)
	url := base + "/mcp"
	scenarios := []struct {
		name    string
		headers map[string]string
		body    []byte
		want    int
	}{
		{"no origin (non-browser client)", nil, []byte(initBody), 200},
		{"own loopback origin", map[string]string{"Origin": base}, []byte(initBody), 200},
		{"foreign origin", map[string]string{"Origin": "http://evil.example"}, []byte(initBody), 403},
		{"rebinding host", map[string]string{"Host": "evil.example"}, []byte(initBody), 403},
		{"oversized body", nil, bytes.Repeat([]byte("x"), 5<<20), 413},
	}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			if got := post(t, url, s.headers, s.body); got != s.want {
				t.Errorf("status %d, want %d", got, s.want)
			}
		})
	}

	// A traversal path in any path argument is invalid_argument.
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx := context.Background()
	callTool(ctx, cs, "write_note", map[string]any{"title": "Inside", "content": "x"}, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read_note", map[string]any{"uri": "memory://../../etc/passwd"}},
		{"read_note", map[string]any{"uri": "memory://a\x00b"}},
		{"write_note", map[string]any{"title": "t", "content": "x", "folder": "a\x00b"}},
		{"write_note", map[string]any{"title": "t", "content": "x", "folder": "../outside"}},
		{"edit_note", map[string]any{"uri": "../x", "op": "append", "content": "y"}},
		{"move_note", map[string]any{"from": "memory://Inside", "to": "../../moved"}},
		{"delete_note", map[string]any{"uri": "a/../../b", "confirm": true}},
		{"list_notes", map[string]any{"folder": "../"}},
	} {
		if err := callTool(ctx, cs, c.tool, c.args, nil); err == nil || !strings.HasPrefix(err.Error(), "invalid_argument:") {
			t.Errorf("%s %v: %v, want invalid_argument", c.tool, c.args, err)
		}
	}
}

func TestHTTPTokenBeyondLoopback(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	// Without a token, a non-loopback listener refuses to start.
	out, code := run(t, vault, "", "serve", "--addr", fmt.Sprintf("0.0.0.0:%d", freePort(t)))
	if code == 0 {
		t.Fatalf("serve on 0.0.0.0 without a token started: %s", out)
	}
	base := serve(t, vault, "0.0.0.0", "--token", "s3cret")
	url := base + "/mcp"
	for _, s := range []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"missing token", nil, 401},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"right token", map[string]string{"Authorization": "Bearer s3cret"}, 200},
	} {
		if got := post(t, url, s.headers, []byte(initBody)); got != s.want {
			t.Errorf("%s: status %d, want %d", s.name, got, s.want)
		}
	}
	// NOEMA_TOKEN works as well as --token.
	os.Setenv("NOEMA_TOKEN", "from-env")
	defer os.Unsetenv("NOEMA_TOKEN")
	base = serve(t, filepath.Join(t.TempDir(), "v2"), "0.0.0.0")
	if got := post(t, base+"/mcp", map[string]string{"Authorization": "Bearer from-env"}, []byte(initBody)); got != 200 {
		t.Errorf("NOEMA_TOKEN: status %d", got)
	}
}

func TestHTTPManySessions(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	url := serve(t, vault) + "/mcp"
	ctx := context.Background()
	errs := make(chan error, 5)
	for i := range 5 {
		go func() {
			client := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprint("c", i), Version: "v0"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			for j := range 10 {
				if err := callTool(ctx, cs, "write_note", map[string]any{"title": fmt.Sprintf("s%d n%d", i, j), "content": "[[Shared]]"}, nil); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 5 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var st struct{ Notes int }
	callTool(ctx, httpSession(t, url, nil), "status", map[string]any{}, &st)
	if st.Notes != 50 {
		t.Errorf("notes = %d, want 50", st.Notes)
	}
}

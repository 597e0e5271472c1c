package httpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/httpserver"
)

// greetServer is an MCP server with one tool.
func greetServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0.0.1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "say hello"},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetInput) (*mcp.CallToolResult, greetOutput, error) {
			return nil, greetOutput{Greeting: "hello " + in.Name}, nil
		})
	return server
}

// connectSDK connects the SDK's client at a protocol revision of before
// 2026-07-28, which opens a session with initialize (the sessions these
// tests bound).
func connectSDK(ctx context.Context, url string) (*mcp.ClientSession, error) {
	return connectAt(ctx, url, "2025-11-25")
}

// connectAt connects the SDK's client asking for protocol version.
func connectAt(ctx context.Context, url, version string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp", MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
}

// serveMCP serves srv through httpserver.NewMCP with opts for the rest of the
// test; it returns the server's URL and a context that bounds the test.
func serveMCP(t *testing.T, srv *mcp.Server, opts httpserver.Options) (string, context.Context) {
	t.Helper()
	s, err := httpserver.NewMCP(srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	url, _ := serve(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return url, ctx
}

// connect opens a session with connectSDK, closed at the end of the test.
func connect(t *testing.T, ctx context.Context, url string) *mcp.ClientSession {
	t.Helper()
	cs, err := connectSDK(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func greet(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "x"}})
	if err == nil && res.IsError {
		err = fmt.Errorf("tool error %v", res.Content)
	}
	return err
}

// initialize posts an initialize request without a session, as a new
// client does, and returns the response.
func initialize(t *testing.T, url string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	req, _ := http.NewRequest("POST", url+"/mcp", bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestSessionCap fills the server to MaxSessions: a new session is refused
// with a clear 503 while every existing one keeps working, and admitted
// again once one closes.
func TestSessionCap(t *testing.T) {
	const max = 3
	srv := greetServer()
	url, ctx := serveMCP(t, srv, httpserver.Options{MaxSessions: max})

	var sessions []*mcp.ClientSession
	for range max {
		sessions = append(sessions, connect(t, ctx, url))
	}
	if n := httpserver.LiveSessions(srv); n != max {
		t.Fatalf("%d live sessions, want %d", n, max)
	}

	// Beyond the cap: the SDK client cannot connect, a raw initialize gets
	// 503 with a JSON body that says why, and Retry-After.
	if cs, err := connectSDK(ctx, url); err == nil {
		cs.Close()
		t.Fatal("a session beyond the cap was admitted")
	} else if !strings.Contains(err.Error(), "Service Unavailable") {
		t.Errorf("SDK client beyond the cap: %v", err)
	}
	resp := initialize(t, url)
	var body struct {
		Error struct {
			Message string
			Data    struct{ Code string }
		}
	}
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		body.Error.Data.Code != "unavailable" || !strings.HasPrefix(body.Error.Message, "unavailable: too many MCP sessions") {
		t.Errorf("initialize beyond the cap: %d %q %+v", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	// Concurrent initializes never overshoot the cap.
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := initialize(t, url)
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Errorf("concurrent initialize: %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()

	// Existing sessions keep working.
	for i, cs := range sessions {
		if err := greet(ctx, cs); err != nil {
			t.Errorf("session %d at the cap: %v", i, err)
		}
	}
	// Closing one (DELETE) makes room for one.
	sessions[0].Close()
	waitSessions(t, srv, max-1)
	if err := greet(ctx, connect(t, ctx, url)); err != nil {
		t.Fatal(err)
	}
}

// TestSessionTimeout leaves sessions idle past SessionTimeout: the server
// reclaims them, their clients get 404 (session gone), and the cap's room
// comes back.
func TestSessionTimeout(t *testing.T) {
	srv := greetServer()
	// The timeout is long beside the busy session's 100 ms between
	// requests: under the race detector on a loaded machine a pause of
	// half a second between two of them happened (a CI-like run, 3 Dec
	// 2026), and expired the busy session the test keeps.
	const timeout = 2 * time.Second
	url, ctx := serveMCP(t, srv, httpserver.Options{MaxSessions: 2, SessionTimeout: timeout})
	var idle []*mcp.ClientSession
	for range 2 {
		idle = append(idle, connect(t, ctx, url))
	}
	// Raw initializes that never come back are reclaimed too (they are
	// admitted only as room frees up).
	waitSessions(t, srv, 0)
	resp := initialize(t, url)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize after the idle sessions expired: %d", resp.StatusCode)
	}
	waitSessions(t, srv, 0)
	if err := greet(ctx, idle[0]); err == nil {
		t.Error("an expired session still answered")
	}
	// A session in use stays: its requests keep resetting the idle timer.
	cs := connect(t, ctx, url)
	for start := time.Now(); time.Since(start) < timeout*3/2; {
		time.Sleep(100 * time.Millisecond)
		if err := greet(ctx, cs); err != nil {
			t.Fatalf("busy session: %v", err)
		}
	}
}

// waitSessions waits until srv has n live sessions.
func waitSessions(t *testing.T, srv *mcp.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for httpserver.LiveSessions(srv) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d live sessions after 10s, want %d", httpserver.LiveSessions(srv), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNewMCPDefaults(t *testing.T) {
	if _, err := httpserver.NewMCP(nil, httpserver.Options{}); err == nil {
		t.Error("nil server accepted")
	}
	if httpserver.DefaultMaxSessions != 1000 || httpserver.DefaultSessionTimeout != 30*time.Minute {
		t.Errorf("defaults %d %v", httpserver.DefaultMaxSessions, httpserver.DefaultSessionTimeout)
	}
}

// TestStatelessProtocol connects the SDK's client at its newest protocol
// (2026-07-28): it discovers the server and calls tools without a session,
// as that revision requires, while a client of an earlier revision on the
// same server keeps its session. Stateless requests take no room under
// MaxSessions, and a tool's progress notifications reach the client on the
// request's own stream.
func TestStatelessProtocol(t *testing.T) {
	srv := greetServer()
	mcp.AddTool(srv, &mcp.Tool{Name: "count", Description: "report progress"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, greetOutput, error) {
			for i := 1; i <= 3; i++ {
				if tok := req.Params.GetProgressToken(); tok != nil {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3})
				}
			}
			return nil, greetOutput{Greeting: "counted"}, nil
		})
	url, ctx := serveMCP(t, srv, httpserver.Options{MaxSessions: 1})

	old := connect(t, ctx, url) // fills the cap
	if old.ID() == "" || old.InitializeResult().ProtocolVersion != "2025-11-25" {
		t.Fatalf("earlier revision: session %q, protocol %q", old.ID(), old.InitializeResult().ProtocolVersion)
	}

	var mu sync.Mutex
	var progress []float64
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Progress)
			mu.Unlock()
		},
	})
	for i := range 3 { // beyond the cap: no sessions
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp", MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("newest protocol, client %d: %v", i, err)
		}
		defer cs.Close()
		if v := cs.InitializeResult().ProtocolVersion; v != httpserver.StatelessProtocol {
			t.Fatalf("negotiated %q, want %s", v, httpserver.StatelessProtocol)
		}
		if err := greet(ctx, cs); err != nil {
			t.Fatalf("newest protocol, client %d: %v", i, err)
		}
		if i == 0 {
			params := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{}}
			params.SetProgressToken("p")
			if _, err := cs.CallTool(ctx, params); err != nil {
				t.Fatal(err)
			}
		}
	}
	mu.Lock()
	if fmt.Sprint(progress) != "[1 2 3]" {
		t.Errorf("progress over stateless HTTP: %v, want [1 2 3]", progress)
	}
	mu.Unlock()
	if n := httpserver.LiveSessions(srv); n != 1 {
		t.Errorf("%d live sessions, want 1 (the earlier revision's)", n)
	}
	if err := greet(ctx, old); err != nil {
		t.Errorf("the earlier revision's session: %v", err)
	}

	// A stateless GET (a standalone stream) is not allowed.
	req, _ := http.NewRequest("GET", url+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", httpserver.StatelessProtocol)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("stateless GET: %d, want 405", resp.StatusCode)
	}
}

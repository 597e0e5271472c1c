package httpserver_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/httpserver"
	"github.com/noema-mem/noema/internal/noematest"
)

func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

type greetInput struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

type greetOutput struct {
	Greeting string `json:"greeting"`
}

// newMCPHandler returns the SDK's streamable handler over a server with one tool.
func newMCPHandler() http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0.0.1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "say hello"},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetInput) (*mcp.CallToolResult, greetOutput, error) {
			return nil, greetOutput{Greeting: "hello " + in.Name}, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{MaxRequestBodyBytes: httpserver.DefaultMaxBodyBytes})
}

// TestSDKClient connects the SDK's client through the hardened front, with a
// token, over a real listener, and calls the tool.
func TestSDKClient(t *testing.T) {
	s, err := httpserver.New(newMCPHandler(), httpserver.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	url, stop := serve(t, s)
	ctx := context.Background()

	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0.0.1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   url + "/mcp",
		HTTPClient: noematest.BearerClient(token),
		MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "noema"}})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("result %+v", res)
	}
	if text, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.Contains(text.Text, "hello noema") {
		t.Errorf("content %#v", res.Content[0])
	}
	if m, ok := res.StructuredContent.(map[string]any); !ok || m["greeting"] != "hello noema" {
		t.Errorf("structured content %#v", res.StructuredContent)
	}

	// Shutting down with the session's standalone SSE stream open is prompt.
	if err := stop(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	session.Close()
}

func TestSDKClientRefused(t *testing.T) {
	s, err := httpserver.New(newMCPHandler(), httpserver.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	url, _ := serve(t, s)
	scenarios := []struct {
		Name   string
		Client *http.Client
	}{
		{"NoToken", &http.Client{}},
		{"WrongToken", noematest.BearerClient("wrong")},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0.0.1"}, nil)
			session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
				Endpoint: url + "/mcp", HTTPClient: sc.Client, MaxRetries: -1,
			}, nil)
			if err == nil {
				session.Close()
				t.Fatal("Connect succeeded without a valid token")
			}
			// The SDK decodes the JSON-RPC error of the 401: the user reads
			// what to do.
			if !strings.Contains(err.Error(), `send the header "Authorization: Bearer <token>"`) {
				t.Errorf("Connect without a valid token: %v", err)
			}
		})
	}
}

// TestSDKDirectPost drives the SDK handler behind the front with raw HTTP:
// an initialize request passes, a forged Origin does not.
func TestSDKDirectPost(t *testing.T) {
	ts, _ := startServer(t, httpserver.Options{Token: token}, newMCPHandler())
	post := func(origin string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(""); got != http.StatusOK {
		t.Errorf("initialize: status %d", got)
	}
	if got := post("http://evil.example"); got != http.StatusForbidden {
		t.Errorf("initialize from a foreign origin: status %d", got)
	}
	// A body over the SDK's and our limit, sent chunked, is refused by the SDK
	// through the capped reader.
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", chunked{io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`),
		strings.NewReader(strings.Repeat("a", httpserver.DefaultMaxBodyBytes)), strings.NewReader(`"}}`))})
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized chunked body: status %d", resp.StatusCode)
	}
}

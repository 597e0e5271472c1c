package httpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/httpserver"
)

const token = "s3cret-token"

// echoHandler stands in for the MCP handler: it reads the whole body and
// answers "reached", or 413 when the capped reader refuses.
func echoHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, "too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		io.WriteString(w, "reached")
	})
}

// startServer runs the middleware chain on an httptest server bound to
// 127.0.0.1 and returns it with its port.
func startServer(t *testing.T, opts httpserver.Options, h http.Handler) (*httptest.Server, string) {
	t.Helper()
	s, err := httpserver.New(h, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	return ts, port
}

// chunked hides a reader's length so the request is sent without Content-Length.
type chunked struct{ io.Reader }

func TestScenarios(t *testing.T) {
	auth := "Bearer " + token
	big := strings.Repeat("x", 2048)
	scenarios := []struct {
		Name       string
		NoToken    bool // run against a server without a token
		Method     string
		Path       string
		Headers    map[string]string // "{port}" is replaced by the server's port
		Body       string
		Chunked    bool
		WantStatus int
		WantBody   string            // substring
		WantHeader map[string]string // exact values
	}{
		{Name: "NoOriginWithToken", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth}, Body: "{}", WantStatus: 200, WantBody: "reached"},
		{Name: "LowercaseScheme", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": "bearer " + token}, WantStatus: 200},
		{Name: "OwnOrigin127", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Origin": "http://127.0.0.1:{port}"}, WantStatus: 200,
			WantHeader: map[string]string{"Access-Control-Allow-Origin": "http://127.0.0.1:{port}"}},
		{Name: "OwnOriginLocalhost", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Origin": "http://localhost:{port}"}, WantStatus: 200},
		{Name: "OwnOriginIPv6", Method: "GET", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Origin": "http://[::1]:{port}"}, WantStatus: 200},
		{Name: "OwnOriginUpperCase", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Origin": "HTTP://LOCALHOST:{port}"}, WantStatus: 200},
		{Name: "AllowedOrigin", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Origin": "https://app.example.com"}, WantStatus: 200,
			WantHeader: map[string]string{"Access-Control-Allow-Origin": "https://app.example.com", "Vary": "Origin"}},
		{Name: "OriginOtherPort", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Origin": "http://127.0.0.1:1"}, WantStatus: 403, WantBody: `"forbidden"`},
		{Name: "OriginHTTPSLoopback", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Origin": "https://localhost:{port}"}, WantStatus: 403},
		{Name: "OriginEvil", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Origin": "http://evil.example"}, WantStatus: 403, WantBody: "origin not allowed"},
		{Name: "OriginEvilNoToken", NoToken: true, Method: "POST", Path: "/mcp", Headers: map[string]string{"Origin": "http://evil.example"}, WantStatus: 403},
		{Name: "CrossSiteNoOrigin", Method: "GET", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Sec-Fetch-Site": "cross-site"}, WantStatus: 403},
		{Name: "SameSiteNoOrigin", NoToken: true, Method: "GET", Path: "/mcp", Headers: map[string]string{"Sec-Fetch-Site": "same-site"}, WantStatus: 403},
		{Name: "TypedURLNoOrigin", Method: "GET", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Sec-Fetch-Site": "none"}, WantStatus: 200},
		{Name: "OriginNull", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Origin": "null"}, WantStatus: 403},
		{Name: "OriginEmpty", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Origin": ""}, WantStatus: 403},
		{Name: "HostRebinding", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Host": "evil.example:{port}"}, WantStatus: 403, WantBody: "invalid Host header"},
		{Name: "HostRebindingNoToken", NoToken: true, Method: "GET", Path: "/healthz", Headers: map[string]string{"Host": "attacker.example"}, WantStatus: 403},
		{Name: "HostLocalhost", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Host": "localhost:{port}"}, WantStatus: 200},
		{Name: "HostIPv6", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth, "Host": "[::1]:{port}"}, WantStatus: 200},
		{Name: "NoAuth", Method: "POST", Path: "/mcp", WantStatus: 401, WantBody: `"message":"unauthorized: this server needs a bearer token: configure your MCP client to send the header \"Authorization: Bearer \u003ctoken\u003e\"`,
			WantHeader: map[string]string{"WWW-Authenticate": `Bearer realm="noema"`, "Content-Type": "application/json"}},
		{Name: "NoAuthEchoesID", Method: "POST", Path: "/mcp", Body: `{"jsonrpc":"2.0","id":7,"method":"initialize"}`, WantStatus: 401, WantBody: `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"unauthorized: `},
		{Name: "WrongToken", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": "Bearer nope"}, WantStatus: 401,
			WantHeader: map[string]string{"WWW-Authenticate": `Bearer realm="noema", error="invalid_token"`}},
		{Name: "TokenPrefix", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": "Bearer " + token[:5]}, WantStatus: 401},
		{Name: "BasicAuth", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": "Basic " + token}, WantStatus: 401},
		{Name: "NoTokenConfigured", NoToken: true, Method: "POST", Path: "/mcp", Body: "{}", WantStatus: 200, WantBody: "reached"},
		{Name: "UnknownPathAuthed", Method: "GET", Path: "/admin", Headers: map[string]string{"Authorization": auth}, WantStatus: 404, WantBody: `"not_found"`},
		{Name: "UnknownPathUnauthed", Method: "GET", Path: "/admin", WantStatus: 401},
		{Name: "TrailingSlash", Method: "POST", Path: "/mcp/", Headers: map[string]string{"Authorization": auth}, WantStatus: 404},
		{Name: "Healthz", Method: "GET", Path: "/healthz", WantStatus: 200, WantBody: "ok"},
		{Name: "HealthzPost", Method: "POST", Path: "/healthz", WantStatus: 405},
		{Name: "BodyTooLarge", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth}, Body: big, WantStatus: 413, WantBody: `"too_large"`},
		{Name: "BodyTooLargeChunked", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth}, Body: big, Chunked: true, WantStatus: 413, WantBody: `"message":"too_large: request body exceeds 1024 bytes"`},
		// No OAuth: discovery and registration end in a 5xx, before and
		// without authentication, so OAuth clients stop instead of
		// registering themselves (dynamic client registration).
		{Name: "OAuthServerMetadata", Method: "GET", Path: "/.well-known/oauth-authorization-server", WantStatus: 501, WantBody: "noema does not use OAuth"},
		{Name: "OAuthServerMetadataPath", Method: "GET", Path: "/.well-known/oauth-authorization-server/mcp", WantStatus: 501},
		{Name: "OpenIDMetadata", Method: "GET", Path: "/.well-known/openid-configuration", WantStatus: 501},
		{Name: "OpenIDMetadataAppended", Method: "GET", Path: "/mcp/.well-known/openid-configuration", WantStatus: 501},
		{Name: "ProtectedResourceMetadata", Method: "GET", Path: "/.well-known/oauth-protected-resource/mcp", WantStatus: 501},
		{Name: "DynamicClientRegistration", Method: "POST", Path: "/register", Body: "{}", WantStatus: 501, WantBody: "Authorization: Bearer"},
		{Name: "OtherWellKnown", Method: "GET", Path: "/.well-known/security.txt", WantStatus: 401},
		{Name: "BodyAtLimit", Method: "POST", Path: "/mcp", Headers: map[string]string{"Authorization": auth}, Body: big[:1024], WantStatus: 200},
		{Name: "BodyTooLargeBeforeAuth", Method: "POST", Path: "/mcp", Body: big, WantStatus: 401},
		{Name: "Preflight", Method: "OPTIONS", Path: "/mcp", Headers: map[string]string{"Origin": "https://app.example.com", "Access-Control-Request-Method": "POST"}, WantStatus: 204,
			WantHeader: map[string]string{"Access-Control-Allow-Origin": "https://app.example.com", "Access-Control-Allow-Methods": "GET, POST, DELETE"}},
		{Name: "PreflightEvil", Method: "OPTIONS", Path: "/mcp", Headers: map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}, WantStatus: 403},
	}
	opts := httpserver.Options{Token: token, MaxBodyBytes: 1024, AllowedOrigins: []string{"https://App.Example.com/"}}
	withToken, port := startServer(t, opts, echoHandler())
	opts.Token = ""
	withoutToken, portNoToken := startServer(t, opts, echoHandler())

	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			ts, p := withToken, port
			if sc.NoToken {
				ts, p = withoutToken, portNoToken
			}
			var body io.Reader = strings.NewReader(sc.Body)
			if sc.Chunked {
				body = chunked{body}
			}
			req, err := http.NewRequest(sc.Method, ts.URL+sc.Path, body)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range sc.Headers {
				v = strings.ReplaceAll(v, "{port}", p)
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != sc.WantStatus {
				t.Errorf("status %d, want %d; body %s", resp.StatusCode, sc.WantStatus, got)
			}
			if !strings.Contains(string(got), sc.WantBody) {
				t.Errorf("body %q, want it to contain %q", got, sc.WantBody)
			}
			for k, v := range sc.WantHeader {
				if g := resp.Header.Get(k); g != strings.ReplaceAll(v, "{port}", p) {
					t.Errorf("header %s = %q, want %q", k, g, v)
				}
			}
			if resp.StatusCode >= 400 && resp.Header.Get("Content-Type") == "application/json" {
				// A JSON-RPC error, its message starting with the code.
				var e struct {
					JSONRPC string
					ID      any
					Error   struct {
						Code    int
						Message string
						Data    struct {
							Code   string
							Status int
						}
					}
				}
				if err := json.Unmarshal(got, &e); err != nil || e.JSONRPC != "2.0" || (e.ID != nil) != strings.Contains(sc.Body, `"id"`) || e.Error.Code != -32000 ||
					!strings.HasPrefix(e.Error.Message, e.Error.Data.Code+": ") || e.Error.Data.Status != resp.StatusCode {
					t.Errorf("error body %q: %v", got, err)
				}
			}
		})
	}
}

func TestNew(t *testing.T) {
	h := echoHandler()
	scenarios := []struct {
		Name     string
		Handler  http.Handler
		Opts     httpserver.Options
		WantErr  bool
		WantCode string
	}{
		{Name: "Defaults", Handler: h},
		{Name: "PublicWithToken", Handler: h, Opts: httpserver.Options{Addr: "0.0.0.0:7077", Token: token}},
		{Name: "PublicWithoutToken", Handler: h, Opts: httpserver.Options{Addr: "0.0.0.0:7077"}, WantErr: true, WantCode: noema.EINVALID},
		{Name: "AllInterfacesWithoutToken", Handler: h, Opts: httpserver.Options{Addr: ":7077"}, WantErr: true},
		{Name: "HostnameWithoutToken", Handler: h, Opts: httpserver.Options{Addr: "myhost.lan:7077"}, WantErr: true},
		{Name: "IPv6LoopbackWithoutToken", Handler: h, Opts: httpserver.Options{Addr: "[::1]:0"}},
		{Name: "NoPort", Handler: h, Opts: httpserver.Options{Addr: "127.0.0.1"}, WantErr: true},
		{Name: "NilHandler", Opts: httpserver.Options{}, WantErr: true},
		{Name: "RelativePath", Handler: h, Opts: httpserver.Options{Path: "mcp"}, WantErr: true},
		{Name: "HealthPath", Handler: h, Opts: httpserver.Options{Path: "/healthz"}, WantErr: true},
		{Name: "TokenWithSpace", Handler: h, Opts: httpserver.Options{Token: "a b"}, WantErr: true},
		{Name: "NegativeBodyLimit", Handler: h, Opts: httpserver.Options{MaxBodyBytes: -1}, WantErr: true},
		{Name: "WildcardOrigin", Handler: h, Opts: httpserver.Options{AllowedOrigins: []string{"*"}}, WantErr: true},
		{Name: "OriginWithPath", Handler: h, Opts: httpserver.Options{AllowedOrigins: []string{"https://a.example/app"}}, WantErr: true},
		{Name: "OriginNotHTTP", Handler: h, Opts: httpserver.Options{AllowedOrigins: []string{"file://"}}, WantErr: true},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			_, err := httpserver.New(sc.Handler, sc.Opts)
			if (err != nil) != sc.WantErr {
				t.Fatalf("err = %v, want error: %v", err, sc.WantErr)
			}
			if sc.WantCode != "" && noema.ErrorCode(err) != sc.WantCode {
				t.Errorf("code %q, want %q", noema.ErrorCode(err), sc.WantCode)
			}
		})
	}
	if _, err := httpserver.New(h, httpserver.Options{Addr: "0.0.0.0:1"}); !errors.Is(err, httpserver.ErrTokenRequired) {
		t.Errorf("err = %v, want ErrTokenRequired", err)
	}
}

func TestIsLoopback(t *testing.T) {
	scenarios := []struct {
		Addr string
		Want bool
	}{
		{"127.0.0.1:7077", true},
		{"127.3.2.1:80", true},
		{"[::1]:7077", true},
		{"localhost:7077", true},
		{"LOCALHOST:1", true},
		{"localhost", true},
		{"[::1]", true},
		{"::1", true},
		{"[::ffff:127.0.0.1]:7077", true},
		{"0.0.0.0:7077", false},
		{"[::]:7077", false},
		{":7077", false},
		{"", false},
		{"192.168.1.10:7077", false},
		{"8.8.8.8:53", false},
		{"example.com:80", false},
		{"localhost.evil.example:80", false},
		{"127.0.0.1.nip.io:80", false},
	}
	for _, sc := range scenarios {
		if got := httpserver.IsLoopback(sc.Addr); got != sc.Want {
			t.Errorf("IsLoopback(%q) = %v, want %v", sc.Addr, got, sc.Want)
		}
	}
}

// serve runs s.Serve on a fresh loopback listener and returns its base URL
// and a function that stops it and returns Serve's result.
func serve(t *testing.T, s *httpserver.Server) (string, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ctx, ln) }()
	var once bool
	var result error
	stop := func() error {
		if !once {
			once = true
			cancel()
			select {
			case result = <-errc:
			case <-time.After(10 * time.Second):
				t.Fatal("Serve did not return after its context was cancelled")
			}
		}
		return result
	}
	t.Cleanup(func() { stop() })
	return "http://" + ln.Addr().String(), stop
}

// TestReadTimeoutKeepsStreams checks that ReadTimeout bounds reading the
// request only: a response that streams longer than it is not cut.
func TestReadTimeoutKeepsStreams(t *testing.T) {
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		for range 3 {
			select {
			case <-time.After(150 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
			io.WriteString(w, "data: tick\n\n")
			http.NewResponseController(w).Flush()
		}
	})
	s, err := httpserver.New(slow, httpserver.Options{ReadTimeout: 100 * time.Millisecond, ReadHeaderTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	url, stop := serve(t, s)
	resp, err := http.Post(url+"/mcp", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || strings.Count(string(body), "tick") != 3 {
		t.Errorf("stream cut: %q, %v", body, err)
	}
	if err := stop(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestShutdownEndsStreams checks that a hanging GET stream does not hold up
// a graceful shutdown.
func TestShutdownEndsStreams(t *testing.T) {
	started := make(chan struct{})
	hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		close(started)
		<-r.Context().Done()
	})
	s, err := httpserver.New(hang, httpserver.Options{ShutdownTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	url, stop := serve(t, s)
	resp, err := http.Get(url + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-started
	start := time.Now()
	if err := stop(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("shutdown took %v", d)
	}
}

func TestServeRefusesPublicListenerWithoutToken(t *testing.T) {
	s, err := httpserver.New(echoHandler(), httpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Skipf("cannot listen on all interfaces: %v", err)
	}
	if err := s.Serve(context.Background(), ln); !errors.Is(err, httpserver.ErrTokenRequired) {
		t.Errorf("Serve = %v, want ErrTokenRequired", err)
	}
}

func TestListenAndServe(t *testing.T) {
	s, err := httpserver.New(echoHandler(), httpserver.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.ListenAndServe(ctx) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("ListenAndServe: %v", err)
	}
	if err := s.ListenAndServe(context.Background()); err == nil {
		t.Error("second ListenAndServe succeeded")
	}

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	s2, _ := httpserver.New(echoHandler(), httpserver.Options{Addr: busy.Addr().String()})
	if err := s2.ListenAndServe(context.Background()); err == nil {
		t.Error("ListenAndServe on a busy port succeeded")
	}
}

func TestLogsRefusalsWithoutToken(t *testing.T) {
	var logs bytes.Buffer
	ts, _ := startServer(t, httpserver.Options{Token: token, Logger: slogTo(&logs)}, echoHandler())
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer wrong-"+token)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !strings.Contains(logs.String(), "refused") || strings.Contains(logs.String(), token) {
		t.Errorf("log = %s", logs.String())
	}
}

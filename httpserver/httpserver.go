// Package httpserver is the hardened HTTP front of noema's MCP
// streamable-HTTP transport (`noema serve`).
//
// [New] wraps an MCP handler (normally the go-sdk's
// mcp.NewStreamableHTTPHandler; [NewMCP] builds that one for an mcp.Server,
// configured to match) in a middleware chain that applies, in this order:
//
//  1. Host: when the server is bound to loopback, or the request arrived on a
//     loopback address, the Host header must name loopback (localhost,
//     127.0.0.0/8, ::1) — the DNS-rebinding defence — else 403. (403, not
//     421, to match the SDK's own check.)
//  2. Origin: a request without an Origin header is a non-browser client and
//     passes, unless Sec-Fetch-Site says "cross-site" or "same-site" (a
//     browser navigation or no-cors request from another site). A browser
//     Origin must be one of the server's own loopback origins —
//     http://127.0.0.1:PORT, http://localhost:PORT and http://[::1]:PORT,
//     PORT being the port the request arrived on — or one of
//     [Options.AllowedOrigins], else 403. Allowed cross origins get CORS
//     headers, and their preflight (OPTIONS) requests are answered without
//     authentication, as browsers send none.
//  3. GET /healthz answers 200 "ok" without authentication and reveals
//     nothing else. The OAuth discovery and registration paths
//     (/.well-known/oauth-authorization-server…, /.well-known/openid-configuration…,
//     /.well-known/oauth-protected-resource…, /register, /authorize, /token)
//     answer 501 "noema does not use OAuth", also without authentication:
//     an OAuth client that gets a 401 looks there, and a 5xx stops it before
//     it registers itself (dynamic client registration).
//  4. Token: when [Options.Token] is set, every other request needs
//     "Authorization: Bearer <token>" (compared in constant time), else 401
//     with a WWW-Authenticate challenge. This comes before routing, so an
//     unauthenticated client learns nothing about which paths exist. A token
//     is mandatory when the server listens beyond loopback: [New] and
//     [Server.Serve] refuse to start without one.
//  5. Path: only [Options.Path] is served; anything else is 404.
//  6. Body: a Content-Length above [Options.MaxBodyBytes] is refused with 413
//     before reading; otherwise the body reader is capped, and a POST's body
//     is read here, whole, so that one over the cap without a Content-Length
//     gets the same 413 (set the SDK's StreamableHTTPOptions.MaxRequestBodyBytes
//     to the same value, since the lower of the two wins).
//  7. Sessions: when [Options.Sessions] reports the live MCP sessions (as
//     [NewMCP] arranges), an initialize POST without an Mcp-Session-Id —
//     which opens a session — is refused with 503 and a Retry-After header
//     while [Options.MaxSessions] sessions are live or being opened (the
//     body is read to tell an initialize from a client's probe, whose
//     throwaway session the SDK closes at once). Existing sessions keep
//     working; a full server never evicts one to make room, so a client that
//     leaks sessions (or a flood of initializes) cannot end the sessions of
//     others. Idle sessions are reclaimed by the SDK after
//     [Options.SessionTimeout] (set by [NewMCP]). Requests of the stateless
//     protocol revision (2026-07-28 and later, see [NewMCP]) open no session
//     and are never refused for this.
//
// Every refusal is a JSON-RPC error body — {"jsonrpc":"2.0","id":…,
// "error":{"code":-32000,"message":"<code>: …","data":{"code","status"}}},
// the request's id when it is one small JSON-RPC request, else null — and is
// logged at warn level (never with the token). A 401 says how to send the
// token.
//
// The SDK's handler keeps its own DNS-rebinding protection on: the checks here
// are a superset, so they never fight. No server WriteTimeout is set by
// default because the SSE streams of MCP are long-lived; ReadTimeout is safe
// because net/http clears the read deadline once a request body has been
// read. On shutdown, standalone SSE streams (GET) end at once, while POST
// requests in flight get [Options.ShutdownTimeout] to finish.
package httpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
)

// Defaults of [Options].
const (
	DefaultAddr              = "127.0.0.1:7077"
	DefaultPath              = "/mcp"
	DefaultMaxBodyBytes      = 4 << 20
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultShutdownTimeout   = 5 * time.Second
	DefaultMaxSessions       = 1000
	DefaultSessionTimeout    = 30 * time.Minute
)

// sessionRetryAfter is the Retry-After, in seconds, of a refused session.
const sessionRetryAfter = "60"

// HealthPath is the unauthenticated liveness endpoint.
const HealthPath = "/healthz"

// ErrTokenRequired is returned by [New] and [Server.Serve] when the server
// would listen beyond loopback without a bearer token.
var ErrTokenRequired = noema.Errorf(noema.EINVALID, "a bearer token is required to listen beyond loopback (use --token or NOEMA_TOKEN)")

// Options configure a [Server]. Zero values take the defaults above; a
// negative timeout means none.
type Options struct {
	// Addr is the TCP address to listen on (default 127.0.0.1:7077).
	Addr string
	// Path is the MCP endpoint (default /mcp).
	Path string
	// Token is the bearer token every request must carry (except /healthz
	// and CORS preflights). Required when Addr is not loopback. Printable
	// ASCII without spaces.
	Token string
	// Tokens are more bearer tokens, each limited to some vaults and
	// perhaps read-only (a --token-file; see [LoadTokenFile]). A request
	// with one of them carries its [Access] in its context
	// ([AccessFromContext]) and, for the MCP handler, in each call's token
	// info ([AccessOf]); Token's requests may do everything. With Token,
	// they make a token mandatory on every request, loopback or not.
	Tokens []Token
	// MaxBodyBytes caps request bodies (default 4 MiB); larger ones get 413.
	MaxBodyBytes int64
	// AllowedOrigins are extra browser origins ("https://app.example.com")
	// allowed besides the server's own loopback origins. "*" is refused.
	AllowedOrigins []string
	// ReadHeaderTimeout bounds reading request headers (default 10s).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included (default
	// 30s). It does not limit how long a response streams.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing a response. The default is none, because
	// it would cut the long-lived SSE streams of MCP.
	WriteTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections (default 120s).
	IdleTimeout time.Duration
	// ShutdownTimeout is how long Serve waits for requests in flight after
	// its context is done before closing connections (default 5s).
	ShutdownTimeout time.Duration
	// Logger receives refusals (warn) and lifecycle events (info); nil
	// discards them.
	Logger *slog.Logger

	// MaxSessions caps the live MCP sessions (default 1,000; negative: no
	// cap). It applies only with Sessions: a request that would open a
	// session beyond it gets 503.
	MaxSessions int
	// Sessions reports how many MCP sessions are live. [NewMCP] sets it;
	// with [New] it is the caller's (nil: sessions are not capped).
	Sessions func() int
	// UI, when set, serves the web view (package web) at every path but
	// Path, /healthz and the OAuth paths, behind the same Host, Origin and
	// token checks as MCP, with two differences for browsers: a request
	// may carry its token in the UICookie cookie instead of the
	// Authorization header (POST /api/login sets it), and a same-origin
	// request (its Origin is the address it was sent to) is allowed beyond
	// loopback, where the server's origin is not a loopback one. Without
	// a token, GET / answers UILogin (401) and GET /assets/… UIAssets: the
	// page's code, which holds nothing secret. The request's Access is in
	// its context ([AccessFromContext]) as for MCP.
	UI, UILogin, UIAssets http.Handler

	// SessionTimeout is how long an MCP session may stay idle (no request
	// from its client) before the SDK closes it (default 30 minutes;
	// negative: never). Only [NewMCP] applies it, since it configures the
	// SDK's handler; a client that comes back after it gets 404 and must
	// initialize again, as the MCP specification requires.
	SessionTimeout time.Duration
}

// Server is the hardened HTTP front. Serve or ListenAndServe may be called
// once.
type Server struct {
	opts    Options
	log     *slog.Logger
	tokens  []tokenHash
	origins map[string]bool // normalized AllowedOrigins
	handler http.Handler

	// shutdown is cancelled when Serve starts shutting down; it ends the
	// standalone SSE streams.
	shutdown    context.Context
	stopStreams context.CancelFunc
	serveOnce   sync.Once

	// opening counts the initializes admitted but not yet answered, whose
	// sessions Sessions does not count yet.
	sessMu  sync.Mutex
	opening int
}

// New validates opts and returns a server in front of mcpHandler.
func New(mcpHandler http.Handler, opts Options) (*Server, error) {
	if mcpHandler == nil {
		return nil, errors.New("httpserver: nil MCP handler")
	}
	if opts.Addr == "" {
		opts.Addr = DefaultAddr
	}
	if _, _, err := net.SplitHostPort(opts.Addr); err != nil {
		return nil, noema.Errorf(noema.EINVALID, "invalid listen address %q: %v", opts.Addr, err)
	}
	if opts.Path == "" {
		opts.Path = DefaultPath
	}
	if !strings.HasPrefix(opts.Path, "/") || opts.Path == HealthPath {
		return nil, noema.Errorf(noema.EINVALID, "invalid MCP path %q: must start with / and differ from %s", opts.Path, HealthPath)
	}
	if opts.Token == "" && len(opts.Tokens) == 0 && !IsLoopback(opts.Addr) {
		return nil, ErrTokenRequired
	}
	tokens, err := hashTokens(opts.Token, opts.Tokens)
	if err != nil {
		return nil, err
	}
	switch {
	case opts.MaxBodyBytes == 0:
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	case opts.MaxBodyBytes < 0:
		return nil, noema.Errorf(noema.EINVALID, "invalid body limit %d", opts.MaxBodyBytes)
	}
	if opts.MaxSessions == 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	for _, d := range []struct {
		p   *time.Duration
		def time.Duration
	}{
		{&opts.ReadHeaderTimeout, DefaultReadHeaderTimeout},
		{&opts.ReadTimeout, DefaultReadTimeout},
		{&opts.IdleTimeout, DefaultIdleTimeout},
		{&opts.ShutdownTimeout, DefaultShutdownTimeout},
		{&opts.SessionTimeout, DefaultSessionTimeout},
	} {
		if *d.p == 0 {
			*d.p = d.def
		}
	}
	s := &Server{
		opts:    opts,
		log:     opts.Logger,
		origins: make(map[string]bool, len(opts.AllowedOrigins)),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	for _, o := range opts.AllowedOrigins {
		n, ok := normalizeOrigin(o)
		if !ok {
			return nil, noema.Errorf(noema.EINVALID, "invalid allowed origin %q: want scheme://host[:port]", o)
		}
		s.origins[n] = true
	}
	s.tokens = tokens
	if opts.UI != nil && (opts.UILogin == nil || opts.UIAssets == nil) {
		return nil, errors.New("httpserver: UI needs UILogin and UIAssets")
	}
	s.shutdown, s.stopStreams = context.WithCancel(context.Background())
	s.handler = s.chain(mcpHandler)
	return s, nil
}

// NewMCP returns a server in front of the go-sdk's streamable HTTP handlers
// for srv, configured to match: the SDK's body limit equals MaxBodyBytes,
// idle sessions close after SessionTimeout, and the live sessions of srv
// (which must serve nothing else) are capped at MaxSessions.
//
// Two SDK handlers share srv, chosen per request by [NewProtocol]:
//
//   - Requests at protocol 2026-07-28 or newer (their Mcp-Protocol-Version
//     header says so: server/discover and every call after it) go to a
//     stateless handler, as that revision requires: no Mcp-Session-Id, one
//     short-lived session per POST, GET and DELETE answered 405.
//     Notifications a tool sends while it runs (sync's progress) travel on
//     the POST's own event stream. Such requests open no session, so
//     MaxSessions and SessionTimeout do not apply to them.
//   - Every other request — an initialize of an earlier revision, and what
//     follows with its Mcp-Session-Id — goes to a stateful handler, with
//     sessions, standalone GET streams, the idle timeout and the cap, as
//     before.
func NewMCP(srv *mcp.Server, opts Options) (*Server, error) {
	if srv == nil {
		return nil, errors.New("httpserver: nil MCP server")
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	timeout := max(opts.SessionTimeout, 0) // the SDK's zero is "never"
	serverFor := func(*http.Request) *mcp.Server { return srv }
	stateful := mcp.NewStreamableHTTPHandler(serverFor, &mcp.StreamableHTTPOptions{
		Logger:              opts.Logger,
		MaxRequestBodyBytes: opts.MaxBodyBytes,
		SessionTimeout:      timeout,
	})
	stateless := mcp.NewStreamableHTTPHandler(serverFor, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		Logger:              opts.Logger,
		MaxRequestBodyBytes: opts.MaxBodyBytes,
	})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if NewProtocol(r) {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	if opts.Sessions == nil {
		opts.Sessions = func() int { return LiveSessions(srv) }
	}
	return New(handler, opts)
}

// StatelessProtocol is the first MCP revision served without sessions
// (SEP-2575, SEP-2567): its clients discover the server with
// server/discover and send the protocol version with every request.
const StatelessProtocol = "2026-07-28"

// NewProtocol reports whether r speaks a stateless revision of MCP
// ([StatelessProtocol] or later), by its Mcp-Protocol-Version header, which
// such clients send with every request. (Revision names are dates, so they
// compare as strings, as the SDK compares them.)
func NewProtocol(r *http.Request) bool {
	v := r.Header.Get("Mcp-Protocol-Version")
	return v >= StatelessProtocol
}

// LiveSessions counts the stateful sessions of srv that completed
// initialization. The SDK also opens a session for each request that
// arrives without one (a stray POST, a client's probe) and closes it right
// after unless it was an initialize; those are not counted, so that one
// closing a moment late never refuses a real client. Nor are the
// per-request sessions of stateless requests ([NewProtocol]), which have
// no id.
func LiveSessions(srv *mcp.Server) int {
	n := 0
	for ss := range srv.Sessions() {
		if ss.ID() != "" && ss.InitializeParams() != nil {
			n++
		}
	}
	return n
}

// Handler returns the full middleware chain in front of the MCP handler, for
// use with httptest or another server.
func (s *Server) Handler() http.Handler { return s.handler }

// ListenAndServe listens on Options.Addr and serves until ctx is done.
func (s *Server) ListenAndServe(ctx context.Context) error {
	ln, err := s.Listen(ctx)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Listen binds Options.Addr, for [Server.Serve]. An address already in use
// is an error with code address_in_use; a host that cannot be listened on
// (not an address of this machine, a name that does not resolve) is
// invalid_argument.
func (s *Server) Listen(ctx context.Context) (net.Listener, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.opts.Addr)
	switch {
	case err == nil:
		return ln, nil
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, noema.WrapError(err, noema.EADDRINUSE, "%s is already in use (is another noema serve running? choose another with --addr)", s.opts.Addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL), errors.Is(err, syscall.EACCES):
		return nil, noema.WrapError(err, noema.EINVALID, "cannot listen on %s: %v", s.opts.Addr, errors.Unwrap(err))
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return nil, noema.WrapError(err, noema.EINVALID, "cannot listen on %s: %v", s.opts.Addr, dnsErr)
	}
	return nil, fmt.Errorf("listen: %w", err)
}

// Serve serves on ln until ctx is done, then shuts down gracefully: it stops
// accepting, ends standalone SSE streams, waits up to ShutdownTimeout for
// other requests, closes what remains and returns nil. It closes ln. It
// refuses (ErrTokenRequired) a non-loopback listener without a token.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if len(s.tokens) == 0 && !IsLoopback(ln.Addr().String()) {
		ln.Close()
		return ErrTokenRequired
	}
	first := false
	s.serveOnce.Do(func() { first = true })
	if !first {
		ln.Close()
		return errors.New("httpserver: Serve called twice")
	}
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.log.Info("serving MCP over HTTP", "url", "http://"+ln.Addr().String()+s.opts.Path, "auth", len(s.tokens) > 0)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		s.stopStreams()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down HTTP server")
	s.stopStreams()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		s.log.Warn("graceful shutdown incomplete; closing connections", "err", err)
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// IsLoopback reports whether addr ("host:port", or a bare host) names the
// loopback interface: "localhost", 127.0.0.0/8 or ::1. An empty or
// unspecified host (":7077", "0.0.0.0:7077", "[::]:7077") listens on every
// interface and is not loopback; neither is any other name, since it could
// resolve anywhere.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// normalizeOrigin returns origin as "scheme://host[:port]" in lower case,
// without a default port, and whether it is a valid http(s) origin.
func normalizeOrigin(origin string) (string, bool) {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, true
}

// errorBody is the JSON of every refusal: a JSON-RPC error response, so
// that an MCP client that decodes the body of a non-2xx answer shows its
// message. Its id is the request's when the refused request is one small
// JSON-RPC request (clients such as go-sdk's match errors to requests by
// id), else null. The message starts with a stable code, which data repeats
// with the HTTP status.
type errorBody struct {
	JSONRPC string `json:"jsonrpc"`
	ID      any    `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code   string `json:"code"`
			Status int    `json:"status"`
		} `json:"data"`
	} `json:"error"`
}

// rpcServerError is the JSON-RPC code of every refusal: the first of the
// range JSON-RPC leaves to servers.
const rpcServerError = -32000

// refuse writes a JSON-RPC error and logs why.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	s.log.Warn("HTTP request refused", "status", status, "reason", msg, "method", r.Method,
		"path", r.URL.Path, "remote", r.RemoteAddr, "host", r.Host, "origin", r.Header.Get("Origin"))
	body := errorBody{JSONRPC: "2.0", ID: requestID(r, status)}
	body.Error.Code, body.Error.Message = rpcServerError, code+": "+msg
	body.Error.Data.Code, body.Error.Data.Status = code, status
	b, _ := json.Marshal(body)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// maxIDPeek bounds how much of a refused request is read to find its id.
const maxIDPeek = 64 << 10

// requestID returns the id of the JSON-RPC request r carries, when it is a
// POST of one request with a string or number id no longer than
// maxIDPeek; else nil. A body too large (413) is not read again.
func requestID(r *http.Request, status int) any {
	if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody || status == http.StatusRequestEntityTooLarge {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxIDPeek+1))
	if err != nil || len(b) > maxIDPeek {
		return nil
	}
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(b, &msg) != nil || len(msg.ID) == 0 {
		return nil
	}
	var id any
	dec := json.NewDecoder(bytes.NewReader(msg.ID))
	dec.UseNumber()
	if dec.Decode(&id) != nil {
		return nil
	}
	switch id.(type) {
	case string, json.Number:
		return id
	}
	return nil
}

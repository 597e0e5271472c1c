package httpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/noema-mem/noema"
)

// Codes of refusals that have no domain error code.
const (
	codeForbidden        = "forbidden"
	codeUnauthorized     = "unauthorized"
	codeMethodNotAllowed = "method_not_allowed"
)

// CORS headers sent to allowed browser origins.
const (
	corsAllowMethods  = "GET, POST, DELETE"
	corsAllowHeaders  = "Authorization, Content-Type, Accept, Last-Event-ID, Mcp-Session-Id, Mcp-Protocol-Version"
	corsExposeHeaders = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate"
)

// chain returns the middleware chain described in the package doc.
func (s *Server) chain(mcpHandler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)

		// 1. DNS rebinding: a loopback server only answers to loopback names.
		onLoopback := IsLoopback(s.opts.Addr) || (local != nil && IsLoopback(local.String()))
		if onLoopback && !IsLoopback(r.Host) {
			s.refuse(w, r, http.StatusForbidden, codeForbidden, "invalid Host header")
			return
		}

		// 2. Browser origins.
		origins := r.Header.Values("Origin")
		if len(origins) == 0 {
			// No Origin: a non-browser client, unless the browser says the
			// request comes from another site (a navigation or a no-cors
			// fetch, which carry no Origin).
			if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
				s.refuse(w, r, http.StatusForbidden, codeForbidden, "cross-site request")
				return
			}
		} else {
			if len(origins) > 1 || !(s.originAllowed(origins[0], s.port(local)) || s.ui(r) && sameOrigin(origins[0], r)) {
				s.refuse(w, r, http.StatusForbidden, codeForbidden, "origin not allowed")
				return
			}
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origins[0])
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" && r.URL.Path == s.opts.Path {
				h.Set("Access-Control-Allow-Methods", corsAllowMethods)
				h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}

		// 3. Liveness, without authentication.
		if r.URL.Path == HealthPath {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				w.Header().Set("Allow", "GET, HEAD")
				s.refuse(w, r, http.StatusMethodNotAllowed, codeMethodNotAllowed, "method not allowed")
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.Write([]byte("ok\n"))
			return
		}

		// 3b. OAuth discovery and registration: noema has no OAuth. An
		// OAuth-capable client (mcp-remote, the TypeScript SDK) answered 401
		// looks for authorization server metadata and, finding none (a 4xx),
		// registers itself at /register (dynamic client registration); a 5xx
		// ends that search, so the client reports the failure instead of
		// registering with a server that has no OAuth.
		if r.URL.Path != s.opts.Path && isOAuthPath(r.URL.Path) {
			s.refuse(w, r, http.StatusNotImplemented, codeNoOAuth, noOAuth)
			return
		}

		// 3c. The web view's sign-in and its page's code, without a token.
		if s.ui(r) {
			switch {
			case r.URL.Path == uiLoginPath:
				s.login(w, r)
				return
			case strings.HasPrefix(r.URL.Path, "/assets/") && (r.Method == http.MethodGet || r.Method == http.MethodHead):
				s.opts.UIAssets.ServeHTTP(w, r)
				return
			}
		}

		// 4. Bearer token (or, for the web view, its cookie), and what it
		// may do.
		if len(s.tokens) > 0 {
			t, presented := s.authorized(r)
			if t != nil {
				var ok bool
				if r, ok = withAccess(r, t); !ok {
					t = nil
				}
			}
			if t == nil && s.ui(r) && r.URL.Path == "/" && r.Method == http.MethodGet {
				w.Header().Set("Cache-Control", "no-store")
				w.WriteHeader(http.StatusUnauthorized)
				s.opts.UILogin.ServeHTTP(&statusWritten{ResponseWriter: w}, r)
				return
			}
			if t == nil {
				challenge := `Bearer realm="noema"`
				msg := "this server needs a bearer token: " + howToAuth
				if presented {
					challenge += `, error="invalid_token"`
					msg = "invalid bearer token: " + howToAuth
				}
				w.Header().Set("WWW-Authenticate", challenge)
				s.refuse(w, r, http.StatusUnauthorized, codeUnauthorized, msg)
				return
			}
		}

		// 5. Routing.
		if s.ui(r) {
			s.opts.UI.ServeHTTP(w, r)
			return
		}
		if r.URL.Path != s.opts.Path {
			s.refuse(w, r, http.StatusNotFound, noema.ENOTFOUND, "not found")
			return
		}

		// 6. Body size. A POST's body is read here, whole, so that one too
		// large without a Content-Length gets the same JSON-RPC 413 as one
		// that declares its length (the SDK reads it whole anyway).
		tooLarge := func() {
			s.refuse(w, r, http.StatusRequestEntityTooLarge, noema.ETOOLARGE,
				fmt.Sprintf("request body exceeds %d bytes", s.opts.MaxBodyBytes))
		}
		if r.ContentLength > s.opts.MaxBodyBytes {
			tooLarge()
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
			if r.Method == http.MethodPost {
				body, err := io.ReadAll(r.Body)
				r.Body.Close()
				var mbe *http.MaxBytesError
				if errors.As(err, &mbe) {
					tooLarge()
					return
				}
				rest := io.Reader(bytes.NewReader(body))
				if err != nil {
					rest = io.MultiReader(rest, errReader{err}) // let the SDK meet it
				}
				r.Body = io.NopCloser(rest)
			}
		}

		// 7. Session cap: an initialize without a session ID opens one.
		if r.Method == http.MethodPost && r.Header.Get(sessionIDHeader) == "" && s.opts.Sessions != nil && s.opts.MaxSessions > 0 && opensSession(r) {
			release, ok := s.admitSession()
			if !ok {
				w.Header().Set("Retry-After", sessionRetryAfter)
				s.refuse(w, r, http.StatusServiceUnavailable, noema.EUNAVAILABLE,
					fmt.Sprintf("too many MCP sessions (the limit is %d); close idle sessions or retry later", s.opts.MaxSessions))
				return
			}
			defer release()
			// The SDK answers once the session is initialized, and Sessions
			// counts it from then on: stop counting the request as opening.
			w = &onFirstWrite{ResponseWriter: w, fn: release}
		}

		// Standalone SSE streams (GET) hang until the client leaves; end
		// them when the server shuts down.
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			stop := context.AfterFunc(s.shutdown, cancel)
			defer stop()
			r = r.WithContext(ctx)
		}
		mcpHandler.ServeHTTP(w, r)
	})
}

// howToAuth tells a client without the right token what to do.
const howToAuth = `configure your MCP client to send the header "Authorization: Bearer <token>" with the token noema serve was given (--token or NOEMA_TOKEN); noema does not use OAuth`

// codeNoOAuth and noOAuth answer OAuth discovery and registration.
const (
	codeNoOAuth = "not_implemented"
	noOAuth     = "noema does not use OAuth: " + howToAuth
)

// isOAuthPath reports whether path is where an OAuth client looks for
// authorization server or protected resource metadata (RFC 8414, OpenID
// Connect discovery, RFC 9728, each also with the MCP path appended), or
// registers, authorizes and gets tokens at a server without metadata (the
// MCP specification's 2025-03-26 default endpoints).
func isOAuthPath(path string) bool {
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/.well-known/oauth-protected-resource"} {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	if strings.HasSuffix(path, "/.well-known/openid-configuration") {
		return true
	}
	switch path {
	case "/register", "/authorize", "/token":
		return true
	}
	return false
}

// sessionIDHeader names the MCP session of a streamable HTTP request.
const sessionIDHeader = "Mcp-Session-Id"

// admitSession reports whether an initialize may open a session: whether
// the live sessions plus the initializes in flight stay under the cap. Until
// release (idempotent) the request counts as opening a session.
func (s *Server) admitSession() (release func(), ok bool) {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	if s.opts.Sessions()+s.opening >= s.opts.MaxSessions {
		return nil, false
	}
	s.opening++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.sessMu.Lock()
			s.opening--
			s.sessMu.Unlock()
		})
	}, true
}

// opensSession reports whether r (a POST without a session ID) carries an
// initialize request, which opens a session. Other such requests (a
// client's server/discover probe, strays) get a session the SDK closes
// right after them. It reads the body, already capped, and puts it back.
func opensSession(r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return false
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	rest := io.Reader(bytes.NewReader(body))
	if err != nil {
		// Let the SDK meet the same error (a *http.MaxBytesError is 413).
		rest = io.MultiReader(rest, errReader{err})
	}
	r.Body = io.NopCloser(rest)
	if err != nil {
		return false
	}
	type message struct {
		Method string `json:"method"`
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var batch []message
		json.Unmarshal(body, &batch)
		for _, m := range batch {
			if m.Method == "initialize" {
				return true
			}
		}
		return false
	}
	var m message
	json.Unmarshal(body, &m)
	return m.Method == "initialize"
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// onFirstWrite calls fn before the first byte or header of the response.
type onFirstWrite struct {
	http.ResponseWriter
	fn func()
}

func (w *onFirstWrite) WriteHeader(code int) {
	w.fn()
	w.ResponseWriter.WriteHeader(code)
}

func (w *onFirstWrite) Write(b []byte) (int, error) {
	w.fn()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (Flush).
func (w *onFirstWrite) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// port returns the port the request arrived on, or the configured one.
func (s *Server) port(local net.Addr) string {
	if local != nil {
		if _, p, err := net.SplitHostPort(local.String()); err == nil {
			return p
		}
	}
	_, p, _ := net.SplitHostPort(s.opts.Addr)
	return p
}

// originAllowed reports whether origin is one of the server's own loopback
// origins on port, or an allowed extra origin.
func (s *Server) originAllowed(origin, port string) bool {
	n, ok := normalizeOrigin(origin)
	if !ok {
		return false // includes "null" and non-http schemes
	}
	if s.origins[n] {
		return true
	}
	for _, host := range []string{"127.0.0.1", "localhost", "[::1]"} {
		if own, _ := normalizeOrigin("http://" + host + ":" + port); n == own {
			return true
		}
	}
	return false
}

// authorized returns the token the request carries, or nil when it
// carries none the server knows. presented reports whether the request
// carried a bearer credential at all.
//
// A request of the web view may carry the token in its cookie instead
// (UICookie); authorized then sets it as the request's Authorization
// header, where withAccess reads it.
func (s *Server) authorized(r *http.Request) (t *tokenHash, presented bool) {
	scheme, cred, found := strings.Cut(r.Header.Get("Authorization"), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		c, err := r.Cookie(UICookie)
		if !s.ui(r) || err != nil || c.Value == "" {
			return nil, false
		}
		cred = c.Value
		r.Header.Set("Authorization", "Bearer "+cred)
	}
	t, _ = match(s.tokens, strings.TrimSpace(cred))
	return t, true
}

// UICookie is the cookie that carries the token of a browser signed in to
// the web view: HttpOnly (the page's script cannot read it),
// SameSite=Strict (no other site's page sends it), Secure over TLS.
const UICookie = "noema_token"

// uiLoginPath is where the web view's sign-in page posts the token.
const uiLoginPath = "/api/login"

// ui reports whether r is for the web view: every path but the MCP
// endpoint's when a UI is served.
func (s *Server) ui(r *http.Request) bool {
	return s.opts.UI != nil && r.URL.Path != s.opts.Path
}

// login checks the token a browser posts ({"token": …}) and sets it as
// UICookie; without tokens there is nothing to check.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		s.refuse(w, r, http.StatusMethodNotAllowed, codeMethodNotAllowed, "method not allowed")
		return
	}
	var body struct {
		Token string `json:"token"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
	if err := dec.Decode(&body); err != nil {
		s.refuse(w, r, http.StatusBadRequest, noema.EINVALID, `the body must be {"token": "…"}`)
		return
	}
	if len(s.tokens) > 0 {
		if _, ok := match(s.tokens, body.Token); !ok {
			s.refuse(w, r, http.StatusUnauthorized, codeUnauthorized, "wrong token: use a token noema serve was given (--token, NOEMA_TOKEN or --token-file)")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: UICookie, Value: body.Token, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(`{"ok":true}` + "\n"))
}

// sameOrigin reports whether origin is the origin r was sent to: its
// scheme and Host header.
func sameOrigin(origin string, r *http.Request) bool {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	n, ok := normalizeOrigin(origin)
	own, ok2 := normalizeOrigin(scheme + "://" + r.Host)
	return ok && ok2 && n == own
}

// statusWritten drops a second WriteHeader (a handler writing 200 after the
// caller wrote the status).
type statusWritten struct{ http.ResponseWriter }

func (w *statusWritten) WriteHeader(int) {}

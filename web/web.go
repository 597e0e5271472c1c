// Package web is noema's web view: the page `noema serve` serves at `/`
// beside MCP, and the JSON endpoint it calls.
//
// The page (assets/, embedded with go:embed: HTML, CSS and plain
// JavaScript, no build step and nothing fetched from elsewhere) shows search
// as you type, notes rendered from Markdown with working WikiLinks,
// a concept's context, the concept map, the duplicate review queue and the
// index's status.
//
// It calls the tools through one endpoint, POST /api/call with
// {"tool": NAME, "args": {…}}, which runs the declaration package tools
// holds for NAME — the same In and Out types and handler as the MCP tool of
// that name and its command — and answers {"result": Out} or
// {"error": {"code", "message", "param"}} with the code's HTTP status. NAME
// is an MCP tool's name, or the words of a command-line-only command
// ("graph map", which lays out the concept map). Arguments are decoded as
// MCP decodes them (tools.Tool.Decode): the parameters' defaults, so budgets
// apply (max_tokens 4000 unless the page asks for more). In [ReadOnly] mode
// a tool that is not read-only is refused with 403 forbidden.
//
// POST /api/note {"uri": REF} is read_note's result with the note's body
// rendered to HTML by goldmark (GitHub-flavoured Markdown, raw HTML left
// out), each WikiLink a link into the page: to the note when the link names
// one by path, else to its concept's context; embeds shown as links.
//
// Authentication, Host and Origin checks are the HTTP front's (package
// httpserver), which serves this handler at every path but the MCP
// endpoint's; writes (POST) are refused here as well when the browser says
// they come from another origin (http.CrossOriginProtection).
package web

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/noema-mem/noema/internal/gate"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/httpserver"
	"github.com/noema-mem/noema/tools"
)

// Mode is what the web view may do.
type Mode string

// Modes of the web view (serve --ui).
const (
	// Off serves no page.
	Off Mode = "off"
	// ReadOnly serves the page and refuses every tool that is not
	// read-only (merge, undo, writes).
	ReadOnly Mode = "readonly"
	// On serves the page with every tool.
	On Mode = "on"
)

// ParseMode reads a --ui value; "" is def.
func ParseMode(s string, def Mode) (Mode, error) {
	switch Mode(s) {
	case "":
		return def, nil
	case Off, ReadOnly, On:
		return Mode(s), nil
	}
	return "", noema.Errorf(noema.EINVALID, "--ui must be off, readonly or on, not %q", s).WithParam("ui")
}

//go:embed assets
var assets embed.FS

// MaxBodyBytes caps a request's body.
const MaxBodyBytes = 1 << 20

// Options configure the web view.
type Options struct {
	// Vaults are the vaults served, the default first (as mcpserver's).
	Vaults []tools.Vault
	Mode   Mode
	// Version is shown in the page's footer.
	Version string
	// Logger receives internal errors of tool calls (nil: discarded).
	Logger *slog.Logger
	// MapWarmMax is the largest vault, in concepts, whose concept map Warm
	// lays out ahead (0: MapWarmMaxConcepts).
	MapWarmMax int
	// Gate counts the page's tool calls as requests in flight, which the
	// vaults' background work gives way to (nil: not counted).
	Gate *gate.Gate
}

// Handler serves the page, its assets and the JSON endpoints.
type Handler struct {
	opts   Options
	log    *slog.Logger
	static http.Handler
	mux    *http.ServeMux
	csrf   *http.CrossOriginProtection
}

// New returns the web view's handler. Mode must be ReadOnly or On.
func New(opts Options) (*Handler, error) {
	if len(opts.Vaults) == 0 {
		return nil, errors.New("web: no vault to serve")
	}
	if opts.Mode != ReadOnly && opts.Mode != On {
		return nil, fmt.Errorf("web: mode %q serves no page", opts.Mode)
	}
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, err
	}
	h := &Handler{opts: opts, log: opts.Logger, static: http.FileServerFS(sub), mux: http.NewServeMux(), csrf: http.NewCrossOriginProtection()}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.mux.HandleFunc("GET /{$}", h.page("index.html"))
	h.mux.Handle("GET /assets/", http.StripPrefix("/assets", h.static))
	h.mux.HandleFunc("GET /api/config", h.config)
	h.mux.HandleFunc("POST /api/call", h.call)
	h.mux.HandleFunc("POST /api/note", h.note)
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	if r.Method == http.MethodPost {
		if err := h.csrf.Check(r); err != nil {
			writeError(w, noema.Errorf(codeForbidden, "cross-origin request refused"), http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	}
	h.mux.ServeHTTP(w, r)
}

// Login serves the page that asks a browser for the token (GET /
// without one), which posts it to the HTTP front's /api/login.
func (h *Handler) Login() http.Handler { return h.page("login.html") }

// Assets serves the page's static files (at /assets/), which the front
// serves without a token: the login page needs them, and they hold
// nothing but the page's code.
func (h *Handler) Assets() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		http.StripPrefix("/assets", h.static).ServeHTTP(w, r)
	})
}

func (h *Handler) page(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := assets.ReadFile("assets/" + name)
		if err != nil {
			http.Error(w, "missing page", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(b)
	}
}

// codeForbidden is the code of a refused call (read-only mode, another
// origin); it is the HTTP front's code for the same refusals.
const codeForbidden = "forbidden"

// toolInfo describes a tool to the page.
type toolInfo struct {
	Name     string `json:"name"`
	Title    string `json:"title"`
	ReadOnly bool   `json:"read_only"`
	// Allowed is false for writes in read-only mode.
	Allowed bool `json:"allowed"`
}

func (h *Handler) config(w http.ResponseWriter, r *http.Request) {
	access := httpserver.AccessFromContext(r.Context())
	out := struct {
		Mode    Mode              `json:"mode"`
		Version string            `json:"version"`
		Vaults  []tools.VaultInfo `json:"vaults"`
		Tools   []toolInfo        `json:"tools"`
	}{Mode: h.opts.Mode, Version: h.opts.Version, Vaults: h.vaultInfos(access)}
	if access.ReadOnly {
		out.Mode = ReadOnly
	}
	for _, t := range tools.All() {
		name := t.Name
		if name == "" {
			name = t.Command
		}
		out.Tools = append(out.Tools, toolInfo{Name: name, Title: t.Title, ReadOnly: t.Hints.ReadOnly, Allowed: h.refusal(access, t) == nil})
	}
	writeJSON(w, http.StatusOK, out)
}

// refusal is why the page may not call t with access (nil: it may): a
// read-only web view, or a read-only token, refuses every tool that is
// not read-only.
func (h *Handler) refusal(access httpserver.Access, t *tools.Tool) error {
	switch {
	case t.Hints.ReadOnly:
		return nil
	case h.opts.Mode != On:
		return noema.Errorf(noema.EREADONLY, "%s changes the vault, and this web view is read-only (noema serve --ui=readonly)", t.Label())
	case access.ReadOnly:
		return noema.Errorf(noema.EREADONLY, "this token may only read: %s changes the vault", t.Label())
	}
	return nil
}

// vaultInfos lists the vaults access may use, the default first.
func (h *Handler) vaultInfos(access httpserver.Access) []tools.VaultInfo {
	return tools.VaultInfos(h.opts.Vaults, access.Allows, access.ReadOnly)
}

// vault returns the vault called name ("": the first access may use),
// not_found as a vault that does not exist when access may not use it.
func (h *Handler) vault(access httpserver.Access, name string) (*tools.Vault, error) {
	return tools.PickVault(h.opts.Vaults, access.Allows, name)
}

// callRequest is the body of POST /api/call.
type callRequest struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
	// Vault is the vault the call runs on ("": the default).
	Vault string `json:"vault"`
}

func (h *Handler) call(w http.ResponseWriter, r *http.Request) {
	var req callRequest
	if err := readJSON(r, &req); err != nil {
		h.fail(w, req.Tool, err)
		return
	}
	defer h.opts.Gate.Begin()()
	out, err := h.run(gate.Request(r.Context(), h.opts.Gate), req.Vault, req.Tool, req.Args)
	if err != nil {
		h.fail(w, req.Tool, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"result": out})
}

// run decodes args for the tool called name and runs it on the vault
// called vault, as the request's token allows (its Access, which the HTTP
// front put in ctx; everything without one).
func (h *Handler) run(ctx context.Context, vault, name string, args json.RawMessage) (any, error) {
	t := tools.Lookup(name)
	if t == nil {
		return nil, noema.Errorf(noema.ENOTFOUND, "no tool %q", name).WithParam("tool")
	}
	access := httpserver.AccessFromContext(ctx)
	v, err := h.vault(access, vault)
	if err != nil {
		return nil, err
	}
	if err := h.refusal(access, t); err != nil {
		return nil, err
	}
	in, err := t.Decode(args)
	if err != nil {
		return nil, err
	}
	return t.Run(ctx, &tools.Env{App: v.App, Vaults: h.vaultInfos(access)}, in)
}

// readJSON decodes a request's JSON body into v.
func readJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return noema.Errorf(noema.ETOOLARGE, "request body exceeds %d bytes", MaxBodyBytes)
		}
		return noema.Errorf(noema.EINVALID, "the request body must be a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return noema.Errorf(noema.EINVALID, "the request body must be one JSON object")
	}
	return nil
}

// errorBody is the JSON of a failed call.
type errorBody struct {
	Error struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Param   string         `json:"param,omitempty"`
		Details map[string]any `json:"details,omitempty"`
	} `json:"error"`
}

// fail answers err: its code and message, or for an unexpected error a
// generic message (logged in full here), as the MCP server does.
func (h *Handler) fail(w http.ResponseWriter, tool string, err error) {
	if errors.Is(err, context.Canceled) {
		err = noema.Errorf(noema.EUNAVAILABLE, "request cancelled")
	}
	code := noema.ErrorCode(err)
	var ne *noema.Error
	if !errors.As(err, &ne) || code == noema.EINTERNAL {
		if code == noema.EINTERNAL {
			h.log.Error("web: tool failed", "tool", tool, "err", err)
		}
		ne = noema.Errorf(code, "%s", noema.ErrorMessage(err))
	}
	writeError(w, ne, status(code))
}

func writeError(w http.ResponseWriter, e *noema.Error, code int) {
	var b errorBody
	b.Error.Code, b.Error.Message, b.Error.Param, b.Error.Details = e.Code, e.Message, e.Param, e.Details
	writeJSON(w, code, b)
}

// status is the HTTP status of an error code.
func status(code string) int {
	switch code {
	case noema.ENOTFOUND:
		return http.StatusNotFound
	case noema.EINVALID:
		return http.StatusBadRequest
	case noema.ECONFLICT, noema.EMETADATACONFLICT, noema.ECHECKSUM:
		return http.StatusConflict
	case noema.ETOOLARGE:
		return http.StatusRequestEntityTooLarge
	case noema.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	case noema.ENOSPACE:
		return http.StatusInsufficientStorage
	case codeForbidden, noema.EREADONLY:
		return http.StatusForbidden
	}
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"internal error"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(b)
}

// jsonObject is the JSON object {key: value}.
func jsonObject(key, value string) (json.RawMessage, error) {
	return json.Marshal(map[string]string{key: value})
}

// MapWarmMaxConcepts is the largest vault (in concepts) whose concept map
// Warm lays out ahead by default (Options.MapWarmMax). Above it the map is computed at its first opening:
// at a million concepts the whole-graph analysis it starts from (PageRank,
// Louvain, the layout) takes minutes of CPU and gigabytes, which a server
// should not spend on a view nobody may open (issue 21).
const MapWarmMaxConcepts = 100_000

// Warm lays out each vault's concept map in the background once the
// vault's first sync has ended (or at once when it was synced before)
// and the server's first answers are ready (app.App.WarmedUp: the map
// does not compete with find_concepts' warm-up), so that the first
// opening of the map finds it computed: the layout and the PageRank and
// communities it needs take a second or more on a vault of 10,000 notes.
// A vault of more concepts than Options.MapWarmMax is left for the first
// opening. It returns when ctx is done or every map is computed; errors
// are left for the page's own request to meet.
func (h *Handler) Warm(ctx context.Context) {
	maxConcepts := cmp.Or(h.opts.MapWarmMax, MapWarmMaxConcepts)
	for _, v := range h.opts.Vaults {
		select {
		case <-v.App.WarmedUp():
		case <-ctx.Done():
			return
		}
		for {
			p := v.App.Progress()
			if !p.Running && (!p.FinishedAt.IsZero() || p.StartedAt.IsZero()) {
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
		if n, err := v.App.Concepts.Count(ctx); err != nil || n > maxConcepts {
			h.log.Debug("web: the concept map is left for its first opening", "vault", v.Name, "concepts", n, "err", err)
			continue
		}
		if _, err := v.App.Graph.Map(ctx, graph.MapOptions{}); err != nil && ctx.Err() == nil {
			h.log.Debug("web: the concept map was not laid out ahead", "vault", v.Name, "err", err)
		}
	}
}

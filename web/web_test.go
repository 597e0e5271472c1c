package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/httpserver"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/tools"
	"github.com/noema-mem/noema/web"
)

// one is a's vault as the only one served.
func one(a *app.App) []tools.Vault { return []tools.Vault{{Name: tools.DefaultVaultName, App: a}} }

// TestCall calls tools through POST /api/call as the page does: the same
// declarations as MCP (defaults, checks, error codes), read-only mode, and
// the cross-origin check.
func TestCall(t *testing.T) {
	a := noematest.AppWith(t, vaultFiles)
	on, err := web.New(web.Options{Vaults: one(a), Mode: web.On})
	if err != nil {
		t.Fatal(err)
	}
	ro, err := web.New(web.Options{Vaults: one(a), Mode: web.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	scenarios := []struct {
		Name    string
		Handler http.Handler
		Body    string
		Header  map[string]string
		Status  int
		Want    []string
	}{
		{Name: "OK", Handler: on, Body: `{"tool":"search_notes","args":{"query":"unreachable"}}`, Status: 200,
			Want: []string{`"title":"Garbage Collection"`, `"max_tokens":4000`, `"mode":"hybrid"`}},
		{Name: "CommandLineOnly", Handler: on, Body: `{"tool":"graph map","args":{"limit":3}}`, Status: 200, Want: []string{`"graph_nodes":6`, `"has_more":true`}},
		{Name: "UnknownTool", Handler: on, Body: `{"tool":"nope"}`, Status: 404, Want: []string{`"code":"not_found"`, `no tool \"nope\"`}},
		{Name: "UnknownParameter", Handler: on, Body: `{"tool":"status","args":{"x":1}}`, Status: 400, Want: []string{`"code":"invalid_argument"`, `"param":"x"`}},
		{Name: "WrongType", Handler: on, Body: `{"tool":"search_notes","args":{"query":1}}`, Status: 400, Want: []string{`query must be a string`}},
		{Name: "OutOfBounds", Handler: on, Body: `{"tool":"search_notes","args":{"query":"a","limit":1000}}`, Status: 400, Want: []string{`limit must be at most 100`}},
		{Name: "Required", Handler: on, Body: `{"tool":"read_note","args":{}}`, Status: 400, Want: []string{`uri is required`}},
		{Name: "NotFound", Handler: on, Body: `{"tool":"read_note","args":{"uri":"nowhere"}}`, Status: 404, Want: []string{`"code":"not_found"`}},
		{Name: "DryRunByDefault", Handler: on, Body: `{"tool":"merge_concepts","args":{"sources":["Mutexes"],"target":"Mutex"}}`, Status: 200, Want: []string{`"dry_run":true`}},
		{Name: "ReadOnlyRefusesWrites", Handler: ro, Body: `{"tool":"merge_concepts","args":{"sources":["Mutexes"],"target":"Mutex"}}`, Status: 403, Want: []string{`"code":"read_only"`, "read-only"}},
		{Name: "ReadOnlyReads", Handler: ro, Body: `{"tool":"status"}`, Status: 200, Want: []string{`"notes":6`}},
		{Name: "CrossOrigin", Handler: on, Body: `{"tool":"status"}`, Header: map[string]string{"Sec-Fetch-Site": "cross-site"}, Status: 403, Want: []string{"cross-origin"}},
		{Name: "OtherOrigin", Handler: on, Body: `{"tool":"status"}`, Header: map[string]string{"Origin": "http://evil.example"}, Status: 403, Want: []string{"cross-origin"}},
		{Name: "NotJSON", Handler: on, Body: `tool=status`, Status: 400, Want: []string{"JSON object"}},
		{Name: "TwoObjects", Handler: on, Body: `{"tool":"status"}{}`, Status: 400, Want: []string{"one JSON object"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7077/api/call", strings.NewReader(sc.Body))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range sc.Header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			sc.Handler.ServeHTTP(rec, req)
			body := rec.Body.String()
			if rec.Code != sc.Status {
				t.Errorf("status %d, want %d: %s", rec.Code, sc.Status, body)
			}
			for _, w := range sc.Want {
				if !strings.Contains(body, w) {
					t.Errorf("the answer lacks %s: %s", w, body)
				}
			}
		})
	}
}

// TestNote renders a note: WikiLinks (by name, by path, with a heading,
// embedded) become links into the page, front matter is not in the body,
// raw HTML and javascript: links are left out.
func TestNote(t *testing.T) {
	files := map[string]string{
		"a.md":        "---\ntitle: A\nx: 1\n---\nSee [[B]], [[folder/C|the c]], [[B#Part]] and ![[B]].\n\n`[[not a link]]`\n\n<img src=x onerror=alert(1)>\n\n[bad](javascript:alert(1))\n",
		"folder/C.md": "c\n",
	}
	a := noematest.AppWith(t, files)
	h, err := web.New(web.Options{Vaults: one(a), Mode: web.On})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/note", strings.NewReader(`{"uri":"A"}`))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var out struct {
		Result notes.Note `json:"result"`
		HTML   string     `json:"html"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<a class="wikilink" href="#/context/B" title="context of B">B</a>`,
		`<a class="wikilink" href="#/note/folder%2FC.md" title="note folder/C.md">the c</a>`,
		`<a class="wikilink" href="#/context/B" title="context of B">B › Part</a>`,
		`<a class="wikilink embed" href="#/context/B" title="embedded: context of B">⧉ B</a>`,
		`<code>[[not a link]]</code>`,
	} {
		if !strings.Contains(out.HTML, want) {
			t.Errorf("the body lacks %s:\n%s", want, out.HTML)
		}
	}
	for _, bad := range []string{"x: 1", "<img", "onerror", "javascript:", "\uE000"} {
		if strings.Contains(out.HTML, bad) {
			t.Errorf("the body holds %q:\n%s", bad, out.HTML)
		}
	}
	if out.Result.Title != "A" || out.Result.FrontMatter["x"] != float64(1) {
		t.Errorf("read_note's result: %+v", out.Result)
	}
}

// TestAssets: the page and its assets are embedded and served; a fresh
// clone needs no build step (every file the page loads is in assets/).
func TestAssets(t *testing.T) {
	a := noematest.AppWith(t, vaultFiles)
	h, err := web.New(web.Options{Vaults: one(a), Mode: web.On})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string, http.Header) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.String(), rec.Header()
	}
	code, page, hdr := get("/")
	if code != 200 || !strings.Contains(page, `<script src="/assets/app.js"`) || !strings.Contains(hdr.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("GET /: %d %s %v", code, page, hdr)
	}
	for _, src := range []string{"app.js", "map.js", "style.css", "login.js"} {
		code, body, _ := get("/assets/" + src)
		want, err := os.ReadFile(filepath.Join("assets", src))
		if err != nil {
			t.Fatal(err)
		}
		if code != 200 || body != string(want) {
			t.Errorf("GET /assets/%s: %d, %d bytes (want the file's %d)", src, code, len(body), len(want))
		}
		if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
			t.Errorf("%s names a URL: the page fetches nothing from elsewhere", src)
		}
	}
	rec := httptest.NewRecorder()
	h.Login().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if b, _ := io.ReadAll(rec.Body); !strings.Contains(string(b), `<label for="token">`) {
		t.Errorf("the sign-in page: %s", b)
	}
	if _, err := web.New(web.Options{Vaults: one(a), Mode: web.Off}); err == nil {
		t.Error("web.New serves a page with --ui=off")
	}
}

// TestScopedTokens serves two vaults through the HTTP front with tokens
// of a --token-file: the web view's calls get each token's access, as MCP
// calls do — a vault outside the token's scope is not_found as a missing
// one, the default is the first vault the token may use, a read-only
// token may not merge, and the cookie carries the token like the header.
func TestScopedTokens(t *testing.T) {
	work := noematest.AppWith(t, vaultFiles)
	home := noematest.AppWith(t, map[string]string{"Home.md": "Only at [[Home]].\n"})
	vaults := []tools.Vault{{Name: "home", App: home}, {Name: "work", App: work}}
	ui, err := web.New(web.Options{Vaults: vaults, Mode: web.On})
	if err != nil {
		t.Fatal(err)
	}
	hs, err := httpserver.New(http.NotFoundHandler(), httpserver.Options{Addr: "127.0.0.1:0", UI: ui, UILogin: ui.Login(), UIAssets: ui.Assets(),
		Tokens: []httpserver.Token{
			{Name: "work", Secret: "work-secret", Access: httpserver.Access{Vaults: []string{"work"}}},
			{Name: "reader", Secret: "reader-secret", Access: httpserver.Access{ReadOnly: true}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(hs.Handler())
	defer srv.Close()
	do := func(auth, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		if body == "" {
			req.Method = http.MethodGet
		}
		req.Header.Set("Content-Type", "application/json")
		if strings.HasPrefix(auth, "cookie:") {
			req.AddCookie(&http.Cookie{Name: httpserver.UICookie, Value: strings.TrimPrefix(auth, "cookie:")})
		} else if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	merge := `{"tool":"merge_concepts","args":{"sources":["Mutexes"],"target":"Mutex"},"vault":"work"}`
	scenarios := []struct {
		Name, Auth, Path, Body string
		Status                 int
		Want, Not              []string
	}{
		{Name: "ConfigListsTheTokensVaults", Auth: "work-secret", Path: "/api/config", Status: 200, Want: []string{`"vaults":[{"name":"work","default":true,"read_only":false}]`, `"mode":"on"`}, Not: []string{`"home"`}},
		{Name: "DefaultIsTheFirstAllowed", Auth: "work-secret", Path: "/api/call", Body: `{"tool":"status"}`, Status: 200, Want: []string{`"notes":6`}},
		{Name: "OutOfScopeIsNotFound", Auth: "work-secret", Path: "/api/call", Body: `{"tool":"status","vault":"home"}`, Status: 404, Want: []string{`"code":"not_found"`, `no vault named \"home\"`}},
		{Name: "MissingIsNotFound", Auth: "work-secret", Path: "/api/call", Body: `{"tool":"status","vault":"nope"}`, Status: 404, Want: []string{`no vault named \"nope\"`}},
		{Name: "CookieCarriesTheToken", Auth: "cookie:work-secret", Path: "/api/call", Body: merge, Status: 200, Want: []string{`"dry_run":true`}},
		{Name: "WrongCookie", Auth: "cookie:nope", Path: "/api/call", Body: `{"tool":"status"}`, Status: 401, Want: []string{"unauthorized"}},
		{Name: "ReaderReadsBoth", Auth: "reader-secret", Path: "/api/call", Body: `{"tool":"status","vault":"home"}`, Status: 200, Want: []string{`"notes":1`}},
		{Name: "ReaderMayNotMerge", Auth: "reader-secret", Path: "/api/call", Body: merge, Status: 403, Want: []string{`"code":"read_only"`, "this token may only read"}},
		{Name: "ReaderSeesReadOnly", Auth: "reader-secret", Path: "/api/config", Status: 200, Want: []string{`"mode":"readonly"`, `"read_only":true`}},
		{Name: "NoToken", Path: "/api/call", Body: `{"tool":"status"}`, Status: 401, Want: []string{"unauthorized"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			code, body := do(sc.Auth, sc.Path, sc.Body)
			if code != sc.Status {
				t.Errorf("status %d, want %d: %s", code, sc.Status, body)
			}
			for _, w := range sc.Want {
				if !strings.Contains(body, w) {
					t.Errorf("the answer lacks %s: %s", w, body)
				}
			}
			for _, w := range sc.Not {
				if strings.Contains(body, w) {
					t.Errorf("the answer holds %s: %s", w, body)
				}
			}
		})
	}
}

// TestWarmBoundsTheMap checks that Warm lays out ahead only the maps of
// vaults of at most Options.MapWarmMax concepts (issue 21: at a million
// concepts the whole-graph analysis competed with the server's start),
// and returns once every vault is done.
func TestWarmBoundsTheMap(t *testing.T) {
	a := noematest.AppWith(t, vaultFiles)
	n, err := a.Concepts.Count(context.Background())
	if err != nil || n == 0 {
		t.Fatalf("Count = %d, %v; want the vault's concepts", n, err)
	}
	for _, tc := range []struct {
		max    int
		warmed bool
	}{{0, true}, {n, true}, {n - 1, false}} {
		var logs strings.Builder
		ui, err := web.New(web.Options{Vaults: one(a), Mode: web.On, MapWarmMax: tc.max,
			Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		ui.Warm(ctx)
		if ctx.Err() != nil {
			t.Fatalf("MapWarmMax %d: Warm did not return", tc.max)
		}
		cancel()
		if left := strings.Contains(logs.String(), "left for its first opening"); left == tc.warmed {
			t.Errorf("MapWarmMax %d with %d concepts: map laid out ahead = %v, want %v (log: %s)", tc.max, n, !left, tc.warmed, logs.String())
		}
	}
}

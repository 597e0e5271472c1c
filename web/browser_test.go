package web_test

import (
	"context"
	"encoding/json"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/cli"
	"github.com/noema-mem/noema/httpserver"
	"github.com/noema-mem/noema/mcpserver"
	"github.com/noema-mem/noema/web"
)

// The browser tests drive Debian's Chromium headless (package chromium;
// .ci/run installs it) through the DevTools protocol (chromedp). Without
// a Chromium they skip, except under CI=true, where they fail: CI must
// never pass by testing nothing.
var (
	shotsFlag = flag.String("web-shots", "", "folder for the browser tests' screenshots (default $NOEMA_WEB_SHOTS, else a temporary folder)")
)

// chromiumPath finds the browser: $NOEMA_CHROMIUM, else chromium,
// chromium-browser or google-chrome on the PATH.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("NOEMA_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium (chromium, chromium-browser or google-chrome on the PATH, or $NOEMA_CHROMIUM): CI must run the browser tests (apt-get install chromium)")
	}
	t.Skip("no Chromium on the PATH (apt-get install chromium); the browser tests are skipped")
	return ""
}

// browser starts a headless Chromium with the flags this machine needs
// and returns a tab's context. The page's console errors and exceptions
// fail the test, but those containing one of allow, and the refused
// connections of the page's last requests once the test's server stopped.
func browser(t *testing.T, allow ...string) context.Context {
	t.Helper()
	path := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancel2)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	// The page's console errors and exceptions fail the test.
	var mu sync.Mutex
	var problems []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			allowed := strings.Contains(m.Text, "net::ERR_CONNECTION_REFUSED")
			for _, a := range allow {
				allowed = allowed || strings.Contains(m.Text, a)
			}
			if (m.IsException() || m.Type == chromedp.ConsoleError) && !allowed {
				mu.Lock()
				problems = append(problems, m.String())
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("the page's console: %s", p)
		}
	})
	return ctx
}

// shots is the folder screenshots go to.
func shots(t *testing.T) string {
	t.Helper()
	dir := *shotsFlag
	if dir == "" {
		dir = os.Getenv("NOEMA_WEB_SHOTS")
	}
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// shot writes a full-page screenshot of the tab to dir/name.png.
func shot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// serveOptions are a test server's.
type serveOptions struct {
	addr  string // default 127.0.0.1:0
	token string
	mode  web.Mode
}

// serve serves a over MCP and the web view as noema serve does, and
// returns the listener's address.
func serve(t *testing.T, a *app.App, o serveOptions) string {
	t.Helper()
	if o.addr == "" {
		o.addr = "127.0.0.1:0"
	}
	if o.mode == "" {
		o.mode = cli.DefaultUI(o.addr)
	}
	srv, err := mcpserver.New(a, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ui, err := web.New(web.Options{Vaults: one(a), Mode: o.mode, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs, err := httpserver.NewMCP(srv, httpserver.Options{Addr: o.addr, Token: o.token, UI: ui, UILogin: ui.Login(), UIAssets: ui.Assets()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := hs.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ctx, ln) }()
	go ui.Warm(ctx) // as noema serve does
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// eval evaluates a JavaScript expression in the tab into out.
func eval(t *testing.T, ctx context.Context, expr string, out any) {
	t.Helper()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("evaluate %s: %v (%s)", expr, err, raw)
	}
}

// run runs actions with a timeout; a failure fails the test, saying what
// the step was.
func run(t *testing.T, ctx context.Context, step string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, actions...); err != nil {
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		t.Fatalf("%s: %v (page at %s)", step, err, loc)
	}
}

// waitJS polls a JavaScript condition until it is true (through a
// navigation or a reload, which end an evaluation).
func waitJS(t *testing.T, ctx context.Context, step, cond string) {
	t.Helper()
	deadline := time.Now().Add(25 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		ok, err := chromedp.Run(tctx, chromedp.Evaluate[bool]("!!("+cond+")", chromedp.EvalIgnoreExceptions))
		cancel()
		if err == nil && ok {
			return
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	t.Fatalf("%s: %s still false after 25 s (last error: %v; page at %s)", step, cond, last, loc)
}

// unlabelled lists the page's controls without a label (no <label>, no
// aria-label or aria-labelledby, and for a button no text).
const unlabelled = `[...document.querySelectorAll("input, select, textarea, button, canvas[tabindex]")].filter((e) =>
	!(e.labels && e.labels.length) && !e.getAttribute("aria-label") && !e.getAttribute("aria-labelledby") &&
	!(e.tagName === "BUTTON" && e.textContent.trim())).map((e) => e.outerHTML.slice(0, 80))`

func checkLabels(t *testing.T, ctx context.Context, view string) {
	t.Helper()
	var missing []string
	eval(t, ctx, unlabelled, &missing)
	if len(missing) > 0 {
		t.Errorf("%s: controls without a label: %s", view, strings.Join(missing, "; "))
	}
}

// nonLoopback returns an address of this machine beyond loopback to bind
// ("IP:0"), or "" when it has none.
func nonLoopback() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
			return net.JoinHostPort(ipn.IP.String(), "0")
		}
	}
	return ""
}

// textOf is the text of the first element sel selects.
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	var s string
	eval(t, ctx, `document.querySelector(`+jsString(sel)+`).textContent`, &s)
	return s
}

// wantIn fails the test for each of wants that text lacks.
func wantIn(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q: %s", what, w, text)
		}
	}
}

// jsString quotes s for JavaScript.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

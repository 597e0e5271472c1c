package web_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/noema-mem/noema/internal/noematest"
)

// TestBrowserToken serves beyond loopback with a token, bound to an
// address of this machine's network interface (or, on a machine without
// one, to every interface: 0.0.0.0, reached through 127.0.0.1 — the test
// logs which), in the default mode beyond loopback (read-only). Without
// the token the page asks for it and the JSON endpoint refuses (401); a
// wrong token is refused; the right one signs the browser in with an
// HttpOnly cookie the page cannot read, and the page works; a merge is
// refused (read-only); a write from another origin is refused even with
// the cookie.
func TestBrowserToken(t *testing.T) {
	// The sign-in page is answered 401, and so is the wrong token.
	ctx := browser(t, "status of 401")
	dir := shots(t)
	a := noematest.AppWith(t, vaultFiles)
	const token = "s3cret-token"
	bind := nonLoopback()
	how := "a non-loopback interface address"
	if bind == "" {
		bind, how = "0.0.0.0:0", "0.0.0.0 (no non-loopback interface address), reached through 127.0.0.1"
	}
	addr := serve(t, a, serveOptions{addr: bind, token: token})
	if strings.HasPrefix(addr, "0.0.0.0:") || strings.HasPrefix(addr, "[::]:") {
		_, port, _ := strings.Cut(addr, ":")
		addr = "127.0.0.1:" + port
	}
	t.Logf("serving beyond loopback on %s: %s", addr, how)
	base := "http://" + addr + "/"

	// Without the token: the sign-in page, and 401 from the endpoint.
	res, err := http.Post(base+"api/call", "application/json", strings.NewReader(`{"tool":"status"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "unauthorized") {
		t.Errorf("POST /api/call without the token: %d %s, want 401 unauthorized", res.StatusCode, body)
	}
	run(t, ctx, "open the page without the token", chromedp.Navigate(base), chromedp.WaitVisible(chromedp.CSS("#token")))
	checkLabels(t, ctx, "sign-in")
	shot(t, ctx, dir, "sign-in")

	// A wrong token is refused and said so.
	run(t, ctx, "a wrong token", chromedp.SendKeys(chromedp.CSS("#token"), "wrong"), chromedp.Click(chromedp.CSS("#login button")))
	waitJS(t, ctx, "the refusal is shown", `document.getElementById("error").textContent.includes("wrong token")`)
	shot(t, ctx, dir, "sign-in-refused")

	// The right one: signed in, the cookie out of the page's reach.
	var cleared string
	eval(t, ctx, `document.getElementById("token").value = ""`, &cleared)
	run(t, ctx, "the right token", chromedp.SendKeys(chromedp.CSS("#token"), token), chromedp.Click(chromedp.CSS("#login button")))
	waitJS(t, ctx, "the page loads", `document.getElementById("q") !== null`)
	var cookies string
	eval(t, ctx, `document.cookie`, &cookies)
	if cookies != "" {
		t.Errorf("the page can read cookies %q; the token's must be HttpOnly", cookies)
	}
	var mode string
	waitJS(t, ctx, "the mode is shown", `document.getElementById("mode").textContent !== ""`)
	eval(t, ctx, `document.getElementById("mode").textContent`, &mode)
	if mode != "read-only" {
		t.Errorf("the page says mode %q; beyond loopback the default is read-only", mode)
	}
	run(t, ctx, "search", chromedp.SendKeys(chromedp.CSS("#q"), "unreachable"))
	waitJS(t, ctx, "the hit appears", `[...document.querySelectorAll("#hits a.title")].some((a) => a.textContent === "Garbage Collection")`)
	run(t, ctx, "open the review", chromedp.Navigate(base+"#/review"))
	waitJS(t, ctx, "the groups load", `document.querySelector(".group button.merge") !== null`)
	var disabled bool
	eval(t, ctx, `document.querySelector(".group button.merge").disabled`, &disabled)
	if !disabled {
		t.Error("the merge button is enabled in a read-only web view")
	}
	shot(t, ctx, dir, "review-read-only")

	// The same with an HTTP client: the cookie's attributes, a refused
	// merge, and a write from another origin.
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	res, err = client.Post(base+"api/login", "application/json", strings.NewReader(`{"token":"`+token+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	setCookie := res.Header.Get("Set-Cookie")
	for _, want := range []string{"noema_token=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", setCookie, want)
		}
	}
	post := func(origin, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, base+"api/call", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	u, _ := url.Parse(base)
	if code, body := post("http://"+u.Host, `{"tool":"status"}`); code != http.StatusOK {
		t.Errorf("a same-origin call with the cookie: %d %s", code, body)
	}
	merge := `{"tool":"merge_concepts","args":{"sources":["Mutexes"],"target":"Mutex","dry_run":false}}`
	if code, body := post("http://"+u.Host, merge); code != http.StatusForbidden || !strings.Contains(body, "read-only") {
		t.Errorf("a merge in read-only mode: %d %s, want 403", code, body)
	}
	if code, body := post("http://evil.example", `{"tool":"status"}`); code != http.StatusForbidden {
		t.Errorf("a call from another origin with the cookie: %d %s, want 403", code, body)
	}
}

package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/noema-mem/noema/internal/noematest"
)

// TestBrowserSupersession: the search view says what replaced a note and
// answers as of a date (docs/time.md): the current fact first, the old one
// marked superseded; as of a date before the new note, the old one alone
// is current; a concept's context lists the old note after the new one,
// marked.
func TestBrowserSupersession(t *testing.T) {
	ctx := browser(t)
	dir := shots(t)
	a := noematest.AppWith(t, map[string]string{
		"Coffee 2024.md": "---\ncreated: 2024-01-10\n---\n[[Ana]] drinks her espresso with oat milk.\n",
		"Coffee 2025.md": "---\ncreated: 2025-03-01\nsupersedes: \"[[Coffee 2024]]\"\n---\n[[Ana]] now drinks her espresso black.\n",
		"Tea.md":         "Ben prefers green tea in the afternoon.\n",
	})
	base := "http://" + serve(t, a, serveOptions{}) + "/"

	run(t, ctx, "search", chromedp.Navigate(base+"#/search?q=espresso"))
	waitJS(t, ctx, "two hits", `document.querySelectorAll("#hits li.hit").length === 2`)
	var titles []string
	eval(t, ctx, `[...document.querySelectorAll("#hits a.title")].map((a) => a.textContent)`, &titles)
	if len(titles) != 2 || titles[0] != "Coffee 2025" {
		t.Fatalf("hits %v, want Coffee 2025 first", titles)
	}
	wantIn(t, "the old fact's why", textOf(t, ctx, "#hits li.stale .why"), "superseded by Coffee 2025")
	checkLabels(t, ctx, "search with as of")
	shot(t, ctx, dir, "search-superseded")

	run(t, ctx, "as of a date before the new fact", chromedp.Navigate(base+"#/search?q=espresso&as_of=2024-06-01"))
	waitJS(t, ctx, "one hit", `document.querySelectorAll("#hits li.hit").length === 1 && document.querySelector("#hits a.title").textContent === "Coffee 2024"`)
	var stale int
	eval(t, ctx, `document.querySelectorAll("#hits li.stale").length`, &stale)
	if stale != 0 {
		t.Errorf("as of 2024-06-01 the old fact is marked stale")
	}
	shot(t, ctx, dir, "search-as-of")

	// A concept's context lists the old note after the new, marked.
	run(t, ctx, "open Ana's context", chromedp.Navigate(base+"#/context/Ana"))
	waitJS(t, ctx, "the notes load", `document.querySelectorAll("ul.notes li").length === 2`)
	eval(t, ctx, `[...document.querySelectorAll("ul.notes li > a")].map((a) => a.textContent)`, &titles)
	if len(titles) != 2 || titles[0] != "Coffee 2025" {
		t.Errorf("context notes %v, want Coffee 2025 first", titles)
	}
	wantIn(t, "the old note in the context", textOf(t, ctx, "ul.notes li.stale"), "Coffee 2024", "superseded by Coffee 2025")
	shot(t, ctx, dir, "context-superseded")
}

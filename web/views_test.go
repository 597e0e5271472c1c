package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/noema-mem/noema/internal/noematest"
)

// vaultFiles is a small vault: links between notes and concepts, a typed
// relation, front matter, an embed, and a pair of duplicate concepts
// (Mutex, Mutexes) for the review queue.
var vaultFiles = map[string]string{
	"Garbage Collection.md": "---\ntags: [go, runtime]\nstatus: draft\nrelations:\n  - type: part_of\n    to: \"[[Memory Management]]\"\n---\n" +
		"# Garbage Collection\n\nTracing collectors free **unreachable objects**; see [[Memory Management]] and [[Escape Analysis|escape analysis]].\n\n" +
		"Shared state needs a [[Mutex]].\n\n![[Escape Analysis]]\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>alert(1)</script>\n",
	"Memory Management.md": "Memory is managed by [[Garbage Collection]] and the [[Allocator]].\n",
	"Locks.md":             "Use one of the [[Mutexes]] when sharing; a [[Mutex]] guards state. See [[Allocator]].\n",
	"Threads.md":           "Threads contend on a [[Mutex]] and the [[Allocator]]; [[Memory Management]] matters.\n",
	"Escape.md":            "[[Escape Analysis]] decides heap or stack for the [[Allocator]].\n",
	"projects/Plan.md":     "Plan: guard the queue with [[Mutexes]]; read up on [[Memory Management]] and [[Mutex]].\n",
}

// TestBrowserViews opens every view of the page in Chromium on a loopback
// server without a token: a search typed as you type and its hit, a note
// and one of its links, a concept's context, the map and a click on a
// concept, the review queue's dry run, merge (the files on disk change)
// and undo (they change back), "Not a duplicate" (the pair leaves the
// queue), and the status; a screenshot of each.
func TestBrowserViews(t *testing.T) {
	ctx := browser(t)
	dir := shots(t)
	a := noematest.AppWith(t, vaultFiles)
	addr := serve(t, a, serveOptions{})
	base := "http://" + addr + "/"

	// Search as you type, from the keyboard: "/" focuses the box.
	run(t, ctx, "open the page", chromedp.Navigate(base), chromedp.WaitVisible(chromedp.CSS("#q")))
	run(t, ctx, "press /", chromedp.KeyEvent("/"))
	var active string
	eval(t, ctx, `document.activeElement.id`, &active)
	if active != "q" {
		t.Errorf("/ focused %q, want the search box", active)
	}
	var cleared string
	eval(t, ctx, `document.getElementById("q").value = ""`, &cleared)
	run(t, ctx, "type a search", chromedp.SendKeys(chromedp.CSS("#q"), "unreachable"))
	waitJS(t, ctx, "the hit appears", `[...document.querySelectorAll("#hits a.title")].some((a) => a.textContent === "Garbage Collection")`)
	if snippet := textOf(t, ctx, "#hits .snippet mark"); !strings.EqualFold(snippet, "unreachable") {
		t.Errorf("the snippet marks %q, want unreachable", snippet)
	}
	wantIn(t, "the hit's explanation", textOf(t, ctx, "#hits .why"), "full text #1", "decay")
	checkLabels(t, ctx, "search")
	shot(t, ctx, dir, "search")
	// Arrow down reaches the first hit; Enter opens it.
	run(t, ctx, "arrow to the hit", chromedp.Focus(chromedp.CSS("#q")), chromedp.KeyEvent(kb.ArrowDown))
	var focused string
	eval(t, ctx, `document.activeElement.textContent`, &focused)
	if focused != "Garbage Collection" {
		t.Errorf("ArrowDown from the search box focused %q, want the first hit", focused)
	}
	run(t, ctx, "open the hit with Enter", chromedp.KeyEvent(kb.Enter))

	// The note: rendered Markdown, WikiLinks, properties, backlinks, relations.
	waitJS(t, ctx, "the note renders", `document.querySelector("#note-body strong") !== null`)
	var noteInfo struct {
		Links     []string `json:"links"`
		Embeds    int      `json:"embeds"`
		Props     string   `json:"props"`
		Script    bool     `json:"script"`
		Table     bool     `json:"table"`
		Relations string   `json:"relations"`
	}
	waitJS(t, ctx, "backlinks and relations load", `[...document.querySelectorAll(".side section")].every((s) => !s.textContent.endsWith("…"))`)
	eval(t, ctx, `({links: [...document.querySelectorAll("#note-body a.wikilink")].map((a) => a.textContent + " " + a.getAttribute("href")),
		embeds: document.querySelectorAll("#note-body a.embed").length,
		props: document.querySelector("table.props").textContent,
		script: document.querySelector("#note-body script") !== null,
		table: document.querySelector("#note-body table") !== null,
		relations: document.querySelector("[aria-label=Relations]").textContent})`, &noteInfo)
	wantLinks := []string{"Memory Management #/context/Memory%20Management", "escape analysis #/context/Escape%20Analysis", "Mutex #/context/Mutex", "⧉ Escape Analysis #/context/Escape%20Analysis"}
	if strings.Join(noteInfo.Links, "|") != strings.Join(wantLinks, "|") {
		t.Errorf("the note's links are %q, want %q", noteInfo.Links, wantLinks)
	}
	if noteInfo.Embeds != 1 || !strings.Contains(noteInfo.Props, "status") || !strings.Contains(noteInfo.Props, "draft") || noteInfo.Script || !noteInfo.Table {
		t.Errorf("note: %+v; want one embed, the status property, a table and no script", noteInfo)
	}
	if !strings.Contains(noteInfo.Relations, "part_of") {
		t.Errorf("the note's relations say %q, want part_of", noteInfo.Relations)
	}
	wantIn(t, "the backlinks (Memory Management links [[Garbage Collection]])", textOf(t, ctx, "[aria-label=Backlinks]"), "Memory Management")
	checkLabels(t, ctx, "note")
	shot(t, ctx, dir, "note")

	// Follow a link: the concept's context.
	run(t, ctx, "follow the link", chromedp.Click(chromedp.CSS(`#note-body a.wikilink[href="#/context/Memory%20Management"]`)))
	waitJS(t, ctx, "the context opens", `document.querySelector("h1") && document.querySelector("h1").textContent === "Memory Management" && document.querySelector(".context") !== null`)
	wantIn(t, "the context", textOf(t, ctx, ".context"), "Garbage Collection", "Threads", "Related concepts", "Allocator")
	checkLabels(t, ctx, "context")
	shot(t, ctx, dir, "context")

	// The map: click a concept, open its context.
	run(t, ctx, "open the map", chromedp.Navigate(base+"#/map"))
	waitJS(t, ctx, "the map paints", `window.noemaMap.metrics.firstPaintMs > 0`)
	var at struct{ X, Y float64 }
	eval(t, ctx, `window.noemaMap.screenOf("Allocator")`, &at)
	run(t, ctx, "click a concept", chromedp.MouseClickXY(at.X, at.Y))
	waitJS(t, ctx, "the concept is selected", `document.querySelector("#map-info h2") && document.querySelector("#map-info h2").textContent === "Allocator"`)
	checkLabels(t, ctx, "map")
	shot(t, ctx, dir, "map")
	run(t, ctx, "click through to the context", chromedp.Click(chromedp.CSS("#map-open")))
	waitJS(t, ctx, "the concept's context opens", `document.querySelector("h1") && document.querySelector("h1").textContent === "Allocator"`)

	// The review queue: dry run, merge with confirmation, files change, undo.
	run(t, ctx, "open the review", chromedp.Navigate(base+"#/review"))
	waitJS(t, ctx, "the groups load", `document.querySelector(".group") !== null`)
	var groupID string
	eval(t, ctx, `[...document.querySelectorAll(".group")].find((g) => g.textContent.includes("Mutexes")).id`, &groupID)
	// From the keyboard: the dry run is a button Tab reaches, Enter runs it.
	run(t, ctx, "dry run from the keyboard", chromedp.Focus(chromedp.CSS("#"+groupID+" button.dry-run")), chromedp.KeyEvent(kb.Enter))
	waitJS(t, ctx, "the dry run's diff", `document.querySelector("#`+groupID+` pre.patch") !== null`)
	wantIn(t, "the dry run's diff", textOf(t, ctx, "#"+groupID+" pre.patch"), "- Use one of the [[Mutexes]]", "+ Use one of the [[Mutex|Mutexes]]")
	locks := filepath.Join(a.Vault.Root, "Locks.md")
	if b, _ := os.ReadFile(locks); !strings.Contains(string(b), "[[Mutexes]]") {
		t.Fatalf("the dry run changed Locks.md: %s", b)
	}
	checkLabels(t, ctx, "review")
	shot(t, ctx, dir, "review-dry-run")
	run(t, ctx, "merge, then confirm", chromedp.Click(chromedp.CSS("#"+groupID+" button.merge")), chromedp.WaitVisible(chromedp.CSS("#"+groupID+" button.confirm-merge")))
	shot(t, ctx, dir, "review-confirm")
	run(t, ctx, "confirm", chromedp.Click(chromedp.CSS("#"+groupID+" button.confirm-merge")))
	waitJS(t, ctx, "the undo is offered", `document.querySelector("#undo-box button.undo") !== null`)
	if b, _ := os.ReadFile(locks); !strings.Contains(string(b), "[[Mutex|Mutexes]]") {
		t.Errorf("after the merge Locks.md reads %q, want [[Mutex|Mutexes]]", b)
	}
	shot(t, ctx, dir, "review-merged")
	run(t, ctx, "undo", chromedp.Click(chromedp.CSS("#undo-box button.undo")))
	waitJS(t, ctx, "the undo answers", `document.querySelector("#undo-box button.undo") === null`)
	if b, _ := os.ReadFile(locks); !strings.Contains(string(b), "one of the [[Mutexes]]") {
		t.Errorf("after the undo Locks.md reads %q, want [[Mutexes]] back", b)
	}

	// Not a duplicate: the pair leaves the queue for the kept-apart list.
	run(t, ctx, "reopen the review", chromedp.Navigate(base+"#/status"), chromedp.Navigate(base+"#/review"))
	waitJS(t, ctx, "the groups load again", `[...document.querySelectorAll(".group")].some((g) => g.textContent.includes("Mutexes"))`)
	eval(t, ctx, `[...document.querySelectorAll(".group")].find((g) => g.textContent.includes("Mutexes")).id`, &groupID)
	run(t, ctx, "not a duplicate", chromedp.Click(chromedp.CSS("#"+groupID+" button.not-duplicate")))
	waitJS(t, ctx, "the mark is confirmed", `document.querySelector("#`+groupID+` .diff .message") !== null`)
	wantIn(t, "the mark's message", textOf(t, ctx, "#"+groupID+" .diff .message"), "not a duplicate")
	shot(t, ctx, dir, "review-not-duplicate")
	run(t, ctx, "reload the review", chromedp.Navigate(base+"#/status"), chromedp.Navigate(base+"#/review"))
	waitJS(t, ctx, "the kept-apart list names the pair", `document.querySelector(".dnm") !== null && document.querySelector(".dnm").textContent.includes("marked_distinct")`)
	var stillQueued bool
	eval(t, ctx, `[...document.querySelectorAll(".group")].some((g) => g.textContent.includes("Mutexes"))`, &stillQueued)
	if stillQueued {
		t.Error("the pair marked not a duplicate is still in the review queue")
	}

	// Status, live.
	run(t, ctx, "open the status", chromedp.Navigate(base+"#/status"))
	waitJS(t, ctx, "the status loads", `document.querySelector("#status-box table") !== null`)
	// Seven notes: the mark gave Mutex its concept page (concepts/Mutex.md, distinct_from in its properties).
	wantIn(t, "the status", textOf(t, ctx, "#status-box"), "Notes7", "Concepts6", "Sync: idle")
	checkLabels(t, ctx, "status")
	shot(t, ctx, dir, "status")
}

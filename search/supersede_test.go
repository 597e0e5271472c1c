package search_test

import (
	"testing"

	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/search"
)

// TestSupersededRanking: a superseded note ranks below its successor, which
// takes over its score and joins the answer when the query did not find
// it — unless a filter leaves it out; paging keeps every hit once; decay
// off leaves supersession on (docs/time.md).
func TestSupersededRanking(t *testing.T) {
	e := newEnv(t)
	e.note("team", "Deploy checklist", "2026-05-01", nil, "Deploy checklist: run the migration, then restart the deploy workers, then check the deploy dashboard.")
	e.note("archive", "Release steps", "2026-05-20", nil, "From now on: blue-green switch, no restarts.")
	e.note("team", "Deploy dashboard", "2026-05-25", nil, "The deploy dashboard lives on the wiki.")
	if _, err := e.a.Notes.Edit(t.Context(), notes.EditInput{URI: "Release steps", Op: notes.OpAppend,
		TimeInput: notes.TimeInput{Supersedes: []string{"Deploy checklist"}}}); err != nil {
		t.Fatal(err)
	}
	e.svc.Time = e.a.DB.Time()

	for _, decay := range []*bool{nil, off()} {
		// Full text: in hybrid mode the query names the concept Deploy
		// checklist, which the successor links (supersedes by title is a
		// link), so it would be found.
		res := e.search(search.Input{Query: "deploy checklist workers", Mode: search.ModeFulltext, Decay: decay})
		got := titles(res)
		if len(got) != 3 || got[0] != "Release steps" || got[1] != "Deploy checklist" {
			t.Fatalf("decay %v: %q, want the successor first, then the note it supersedes", decay, got)
		}
		if h := res.Hits[0]; !h.Successor || h.Score < res.Hits[1].Score {
			t.Errorf("successor hit %+v", h)
		}
		if h := res.Hits[1]; len(h.SupersededBy) != 1 || h.SupersededBy[0] != "memory://archive/Release steps" {
			t.Errorf("superseded hit %+v", h)
		}
		// Page by page, each hit once, in the same order.
		var paged []string
		for off := 0; off < 3; off++ {
			p := e.search(search.Input{Query: "deploy checklist workers", Mode: search.ModeFulltext, Decay: decay, Limit: 1, Offset: off})
			paged = append(paged, titles(p)...)
		}
		if len(paged) != 3 || paged[0] != got[0] || paged[1] != got[1] || paged[2] != got[2] {
			t.Errorf("paged %q, want %q", paged, got)
		}
	}
	// The successor is in another folder: a folder filter leaves it out,
	// and the superseded note still says what replaced it.
	res := e.search(search.Input{Query: "deploy checklist workers", Folder: "team"})
	if got := titles(e.search(search.Input{Query: "deploy checklist workers"})); len(got) != 3 || got[0] != "Release steps" {
		t.Fatalf("hybrid: %q, want the successor first", got)
	}
	if got := titles(res); len(got) != 2 || got[0] == "Release steps" || got[1] == "Release steps" {
		t.Fatalf("folder team: %q", got)
	}
	for _, h := range res.Hits {
		if h.Title == "Deploy checklist" && len(h.SupersededBy) != 1 {
			t.Errorf("the superseded note under a filter: %+v", h)
		}
	}
}

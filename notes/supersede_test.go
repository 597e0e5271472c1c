package notes_test

import (
	"context"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
)

// TestWriteSupersedes: the link write_note and edit_note write for each
// superseded note (its title when that opens it in noema and Obsidian,
// else its path), no repeats, and the refusals (docs/time.md).
func TestWriteSupersedes(t *testing.T) {
	ctx := context.Background()
	a := noematest.AppWith(t, map[string]string{
		"Plan.md":          "---\ntitle: Plan\n---\nfirst plan\n",
		"old/plan-2025.md": "---\ntitle: Plan 2025\n---\nslug-named\n",
		"a/Shared.md":      "shared one\n",
		"b/Shared.md":      "shared two\n",
		"Bad dates.md":     "---\nvalid_until: someday\n---\nwritten by hand\n",
	})
	res, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Plan v2", Content: "second plan\n",
		TimeInput: notes.TimeInput{Supersedes: []string{"Plan", "memory://old/plan-2025", "b/Shared.md", "Plan"}, ValidFrom: "2026-05-01", ValidUntil: "2026-12-31T18:00:00Z"}})
	if err != nil {
		t.Fatal(err)
	}
	got := noematest.ReadFile(t, a, res.Path)
	for _, want := range []string{"supersedes:", "[[Plan]]", "[[old/plan-2025.md]]", "[[b/Shared.md]]", "valid_from: \"2026-05-01\"", "valid_until: \"2026-12-31T18:00:00Z\""} {
		if !strings.Contains(got, want) {
			t.Errorf("the note lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "[[Plan]]") != 1 {
		t.Errorf("a note named twice is written once:\n%s", got)
	}

	// edit_note adds what is not there yet, and changes nothing else.
	if _, err := a.Notes.Edit(ctx, notes.EditInput{URI: res.URI, Op: notes.OpAppend, TimeInput: notes.TimeInput{Supersedes: []string{"a/Shared.md", "Plan"}}}); err != nil {
		t.Fatal(err)
	}
	edited := noematest.ReadFile(t, a, res.Path)
	if strings.Count(edited, "[[Plan]]") != 1 || !strings.Contains(edited, "[[a/Shared.md]]") || !strings.HasSuffix(edited, "second plan\n") {
		t.Errorf("after the edit:\n%s", edited)
	}

	// An edit of a note whose dates were malformed by hand succeeds when it
	// does not touch them; setting one that is not a date fails.
	if _, err := a.Notes.Edit(ctx, notes.EditInput{URI: "Bad dates", Op: notes.OpAppend, Content: "more"}); err != nil {
		t.Errorf("an append to a note with a hand-written bad date: %v", err)
	}
	for _, c := range []struct {
		in   notes.EditInput
		code string
	}{
		{notes.EditInput{URI: "Bad dates", Op: notes.OpAppend, TimeInput: notes.TimeInput{ValidFrom: "2026-13-01"}}, noema.EINVALID},
		{notes.EditInput{URI: "Plan", Op: notes.OpReplaceAll, Content: "---\nvalid_from: tomorrow\n---\nx\n"}, noema.EINVALID},
		{notes.EditInput{URI: "Plan", Op: notes.OpAppend, TimeInput: notes.TimeInput{Supersedes: []string{"Plan"}}}, noema.EINVALID},
		{notes.EditInput{URI: "Plan", Op: notes.OpAppend, TimeInput: notes.TimeInput{Supersedes: []string{"Nope"}}}, noema.ENOTFOUND},
	} {
		before := noematest.ReadFile(t, a, "Plan.md")
		if _, err := a.Notes.Edit(ctx, c.in); noema.ErrorCode(err) != c.code {
			t.Errorf("edit %+v: %v, want %s", c.in, err, c.code)
		}
		if after := noematest.ReadFile(t, a, "Plan.md"); after != before {
			t.Errorf("a failed edit changed Plan.md:\n%s", after)
		}
	}
}

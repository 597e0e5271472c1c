package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/vault"
)

// supersedesForms are the notes that supersede notes/Old Plan.md, one per
// form of `supersedes` (docs/time.md).
var supersedesForms = map[string]string{
	"link.md":       "supersedes: \"[[Old Plan]]\"",
	"list.md":       "supersedes:\n  - \"[[Old Plan|the old one]]\"\n  - \"[[Unrelated]]\"",
	"title.md":      "supersedes: Old Plan",
	"path.md":       "supersedes: notes/Old Plan.md",
	"pathlink.md":   "supersedes: \"[[notes/Old Plan]]\"",
	"uri.md":        "supersedes: memory://notes/Old Plan",
	"flowtitle.md":  "supersedes: [Old Plan, Unrelated]",
	"withlinks.md":  "supersedes: \"[[Old Plan]]\"\nrelations:\n  - {type: supersedes, to: \"[[Old Plan]]\", weight: 0.5}",
	"casefolded.md": "supersedes: \"[[old plan]]\"",
}

// supersedingVault opens a vault holding notes/Old Plan.md (linked from a
// body, so it is the page of the concept Old Plan), the notes of
// supersedesForms, and a note Plan B (a concept page too).
func supersedingVault(t *testing.T) *app.App {
	t.Helper()
	files := map[string]string{
		"notes/Old Plan.md": "---\ntitle: Old Plan\ncreated: 2026-01-01\n---\nLaunch in March.\n",
		"Plan B.md":         "---\ntitle: Plan B\ncreated: 2026-01-02\n---\nLaunch in May.\n",
		"Unrelated.md":      "Something else.\n",
		"mentions.md":       "See [[Old Plan]] and [[Plan B]].\n",
	}
	for name, fm := range supersedesForms {
		files["new/"+name] = "---\n" + fm + "\ncreated: 2026-02-01\n---\nThe plan changed.\n"
	}
	return noematest.AppWith(t, files)
}

// supersededBy returns, by the path of each note the index's timeline
// names as superseded, the paths of the notes superseding it.
func supersededBy(t *testing.T, a *app.App) map[string][]string {
	t.Helper()
	tl, err := a.DB.Time().Timeline(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, n := range tl.Notes {
		for _, by := range n.SupersededBy {
			out[n.Path] = append(out[n.Path], tl.Notes[by].Path)
		}
		slices.Sort(out[n.Path])
	}
	return out
}

// wantSuperseding is every note of supersedesForms, as paths.
func wantSuperseding() []string {
	var out []string
	for name := range supersedesForms {
		out = append(out, "new/"+name)
	}
	slices.Sort(out)
	return out
}

// checkSupersedes fails unless the note at want is superseded by every
// note of supersedesForms, and no other note by any of them but
// Unrelated.md.
func checkSupersedes(t *testing.T, a *app.App, step, want string) {
	t.Helper()
	by := supersededBy(t, a)
	if got := by[want]; !slices.Equal(got, wantSuperseding()) {
		t.Errorf("%s: %s is superseded by %q, want every form %q", step, want, got, wantSuperseding())
	}
	for p, from := range by {
		if p != want && p != "Unrelated.md" {
			t.Errorf("%s: %s is superseded by %q", step, p, from)
		}
	}
	// Every file still parses and names its target in the form it had.
	for name := range supersedesForms {
		content := noematest.ReadFile(t, a, "new/"+name)
		if _, err := vault.Parse("new/"+name, []byte(content)); err != nil {
			t.Errorf("%s: new/%s: %v", step, name, err)
		}
	}
}

// TestSupersedesSurvivesRenames: every form of `supersedes` keeps naming
// its note through move_note (a move, then a rename), update_concept with
// a new label (which renames the page) and its undo, and merge_concepts
// (its targets then name the target's page, as every relation's do).
func TestSupersedesSurvivesRenames(t *testing.T) {
	ctx := context.Background()
	a := supersedingVault(t)
	checkSupersedes(t, a, "before", "notes/Old Plan.md")
	// A supersedes target by name is linked, so it resolves: no form
	// leaves a dangling relation.
	for _, w := range noematest.Sync(t, a).Warnings {
		if w.Code == "dangling_relation" {
			t.Errorf("warning %s: %s", w.Path, w.Message)
		}
	}

	if _, err := a.Notes.Move(ctx, "notes/Old Plan.md", "archive/Old Plan.md"); err != nil {
		t.Fatal(err)
	}
	checkSupersedes(t, a, "moved to another folder", "archive/Old Plan.md")

	if _, err := a.Notes.Move(ctx, "archive/Old Plan.md", "archive/Previous Plan.md"); err != nil {
		t.Fatal(err)
	}
	checkSupersedes(t, a, "renamed", "archive/Previous Plan.md")
	if got := noematest.ReadFile(t, a, "new/title.md"); !strings.Contains(got, "supersedes: Previous Plan\n") {
		t.Errorf("a plain title stays plain:\n%s", got)
	}
	if got := noematest.ReadFile(t, a, "new/path.md"); !strings.Contains(got, "supersedes: archive/Previous Plan.md\n") {
		t.Errorf("a plain path stays plain:\n%s", got)
	}

	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Previous Plan", Label: "Final Plan"}); err != nil {
		t.Fatal(err)
	}
	checkSupersedes(t, a, "concept relabelled", "archive/Final Plan.md")
	ops, err := a.Notes.Operations(ctx, notes.OperationsInput{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(ops.Operations) != 1 || ops.Operations[0].Tool != "update_concept" {
		t.Fatalf("operations = %+v", ops.Operations)
	}
	if _, err := a.Notes.Undo(ctx, notes.UndoInput{ID: ops.Operations[0].ID}); err != nil {
		t.Fatal(err)
	}
	checkSupersedes(t, a, "relabel undone", "archive/Previous Plan.md")

	apply := false
	if _, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Previous Plan"}, Target: "Plan B", DryRun: &apply, Force: true}); err != nil {
		t.Fatal(err)
	}
	by := supersededBy(t, a)
	for _, p := range wantSuperseding() {
		found := false
		for target, from := range by {
			if slices.Contains(from, p) && target != "Unrelated.md" {
				found = true
			}
		}
		if !found {
			t.Errorf("after the merge %s supersedes no note: %v", p, by)
		}
	}
}

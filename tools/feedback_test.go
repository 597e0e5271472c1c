package tools_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/tools"
)

// tool is the declaration of the MCP tool name.
func tool(t *testing.T, name string) *tools.Tool {
	t.Helper()
	return lookup(t, "tool "+name, func(tl *tools.Tool) bool { return tl.Name == name })
}

// command is the declaration of the CLI command.
func command(t *testing.T, command string) *tools.Tool {
	t.Helper()
	return lookup(t, "command "+command, func(tl *tools.Tool) bool { return tl.Command == command })
}

// newEnv is the environment of the tools on a fresh vault.
func newEnv(t *testing.T) *tools.Env {
	t.Helper()
	return &tools.Env{App: noematest.OpenApp(t, t.TempDir(), app.Options{})}
}

// mustRun runs the MCP tool name with in and returns its result, failing
// the test on an error.
func mustRun[Out any](t *testing.T, e *tools.Env, name string, in any) Out {
	t.Helper()
	out, err := tool(t, name).Run(context.Background(), e, in)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.(Out)
}

func lookup(t *testing.T, what string, match func(*tools.Tool) bool) *tools.Tool {
	t.Helper()
	for _, tl := range tools.All() {
		if match(tl) {
			return tl
		}
	}
	t.Fatalf("no %s", what)
	return nil
}

// TestConceptFeedback: write_note and edit_note report the concepts the
// note links, which the write created, and near-duplicates of those.
func TestConceptFeedback(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	a := e.App
	write := func(in notes.WriteInput) *notes.WriteResult {
		t.Helper()
		return mustRun[*notes.WriteResult](t, e, "write_note", in)
	}
	type got struct {
		Label string
		New   bool
		Near  []string
	}
	summary := func(res *notes.WriteResult) []got {
		var out []got
		for _, c := range res.Concepts {
			g := got{Label: c.Label, New: c.New}
			for _, n := range c.NearDuplicates {
				g.Near = append(g.Near, n.Label)
			}
			out = append(out, g)
		}
		return out
	}

	first := write(notes.WriteInput{Title: "One", Content: "[[Garbage Collection]] and [[Go]]"})
	if want := []got{{"Garbage Collection", true, nil}, {"Go", true, nil}}; !reflect.DeepEqual(summary(first), want) {
		t.Errorf("first write: %+v, want %+v", summary(first), want)
	}
	if len(first.Warnings) != 0 {
		t.Errorf("first write warnings: %q", first.Warnings)
	}

	// A misspelling of an existing concept is new, and named as a likely
	// duplicate; linking the existing one is not new.
	second := write(notes.WriteInput{Title: "Two", Content: "[[Garbage Colection]] in [[Go]]; [[Rust]]"})
	want := []got{{"Garbage Colection", true, []string{"Garbage Collection"}}, {"Go", false, nil}, {"Rust", true, nil}}
	if !reflect.DeepEqual(summary(second), want) {
		t.Errorf("second write: %+v, want %+v", summary(second), want)
	}
	if len(second.Warnings) != 1 || !strings.Contains(second.Warnings[0], `"Garbage Colection" is close to existing "Garbage Collection"`) {
		t.Errorf("second write warnings: %q", second.Warnings)
	}
	if n := second.Concepts[0].NearDuplicates[0]; n.Spelling < 85 || n.ID != first.Concepts[0].ID {
		t.Errorf("near duplicate = %+v", n)
	}

	// An edit reports as new only what it introduced.
	edited := mustRun[*notes.WriteResult](t, e, "edit_note", notes.EditInput{URI: second.URI, Op: notes.OpAppend, Content: "\n[[Python]]"})
	var fresh []string
	for _, c := range edited.Concepts {
		if c.New {
			fresh = append(fresh, c.Label)
		}
	}
	if !slices.Equal(fresh, []string{"Python"}) || len(edited.Concepts) != 4 {
		t.Errorf("edit: new %q of %+v", fresh, edited.Concepts)
	}

	// A concept with a page is not new, even when one note links it.
	if _, err := a.Concepts.Create(ctx, concepts.CreateInput{Label: "Haskell"}); err != nil {
		t.Fatal(err)
	}
	// Once the registry is embedded, meaning is checked too (the built-in
	// embedder: spelling-like similarity), and merged with spelling.
	if err := a.Semantic.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	fourth := write(notes.WriteInput{Title: "Four", Content: "[[Garbage Collections]]"})
	near := fourth.Concepts[0].NearDuplicates
	if len(near) == 0 || near[0].Label != "Garbage Collection" || near[0].Meaning < 0.85 || near[0].Spelling < 85 {
		t.Errorf("fourth write near-duplicates = %+v (warnings %q)", near, fourth.Warnings)
	}
	third := write(notes.WriteInput{Title: "Three", Content: "[[Haskell]]"})
	if want := []got{{"Haskell", false, nil}}; !reflect.DeepEqual(summary(third), want) {
		t.Errorf("third write: %+v, want %+v", summary(third), want)
	}
}

// TestFeedbackSkipsSuperseded: a write keeps today's near-duplicate
// feedback for the notes it does not supersede, and raises none against
// the notes it does (docs/time.md).
func TestFeedbackSkipsSuperseded(t *testing.T) {
	e := newEnv(t)
	write := func(in notes.WriteInput) *notes.WriteResult {
		t.Helper()
		return mustRun[*notes.WriteResult](t, e, "write_note", in)
	}
	near := func(res *notes.WriteResult, label string) []string {
		for _, c := range res.Concepts {
			if c.Label == label {
				var out []string
				for _, n := range c.NearDuplicates {
					out = append(out, n.Label)
				}
				return out
			}
		}
		t.Fatalf("%s does not link %q: %+v", res.URI, label, res.Concepts)
		return nil
	}
	write(notes.WriteInput{Title: "Coffee Preference", Content: "Black, no sugar.\n"})
	write(notes.WriteInput{Title: "Index", Content: "See [[Coffee Preference]].\n"})

	res := write(notes.WriteInput{Title: "Coffee update", Content: "Now with oat milk: [[Coffee Preferences]].\n",
		TimeInput: notes.TimeInput{Supersedes: []string{"Coffee Preference"}}})
	if got := near(res, "Coffee Preferences"); slices.Contains(got, "Coffee Preference") {
		t.Errorf("near-duplicates %q name the note the write supersedes; warnings %q", got, res.Warnings)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, `"Coffee Preference"`) {
			t.Errorf("warning against the superseded note: %s", w)
		}
	}
	res = write(notes.WriteInput{Title: "Tea update", Content: "Also [[Coffee Preferencs]].\n"})
	if got := near(res, "Coffee Preferencs"); !slices.Contains(got, "Coffee Preference") {
		t.Errorf("near-duplicates %q of a note that supersedes nothing lack Coffee Preference; warnings %q", got, res.Warnings)
	}
}

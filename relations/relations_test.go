package relations_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/relations"
)

func TestRelationLifecycle(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	noematest.WriteNote(t, a, notes.WriteInput{Title: "Paper", Content: "About [[Gradient Checkpointing]] and [[Memory]].", Tags: []string{"x"}})
	w := 0.8
	r, err := a.Relations.Create(ctx, relations.CreateInput{From: "gradient checkpointing", Type: "reduces", To: "Memory", Weight: &w, Metadata: map[string]any{"source": "paper"}})
	if err != nil {
		t.Fatal(err)
	}
	gc, _ := a.Concepts.Get(ctx, "gradient checkpointing")
	mem, _ := a.Concepts.Get(ctx, "memory")
	if r.From != gc.ID || r.To != mem.ID || r.Type != "reduces" || *r.Weight != 0.8 || r.Metadata["source"] != "paper" {
		t.Fatalf("created = %+v", r)
	}
	if gc.Page == "" {
		t.Fatal("the source concept did not gain a page")
	}
	page := noematest.ReadFile(t, a, gc.Page)
	if !strings.Contains(page, "relations:") || !strings.Contains(page, "[[Memory]]") {
		t.Errorf("page = %s", page)
	}
	if _, err := a.Relations.Create(ctx, relations.CreateInput{From: gc.ID, Type: "reduces", To: "memory"}); noema.ErrorCode(err) != noema.ECONFLICT {
		t.Errorf("duplicate: %v", err)
	}
	// Note → concept.
	nr, err := a.Relations.Create(ctx, relations.CreateInput{From: "memory://Paper", Type: "cites", To: gc.ID})
	if err != nil || nr.From != "memory://Paper" || nr.To != gc.ID {
		t.Fatalf("note relation = %+v %v", nr, err)
	}
	cases := []struct {
		in   relations.CreateInput
		code string
	}{
		{relations.CreateInput{From: "nope", Type: "x", To: "memory"}, noema.ENOTFOUND},
		{relations.CreateInput{From: "memory", Type: "", To: "memory"}, noema.EINVALID},
		{relations.CreateInput{From: "memory://../../etc/passwd", Type: "x", To: "memory"}, noema.EINVALID},
		{relations.CreateInput{From: "memory", Type: "bad\ntype", To: "memory"}, noema.EINVALID},
	}
	for _, c := range cases {
		if _, err := a.Relations.Create(ctx, c.in); noema.ErrorCode(err) != c.code {
			t.Errorf("%+v: %v, want %s", c.in, err, c.code)
		}
	}
	if _, err := a.Relations.Update(ctx, relations.UpdateInput{ID: r.ID, Metadata: map[string]any{"source": "blog"}}); noema.ErrorCode(err) != noema.EMETADATACONFLICT {
		t.Errorf("metadata conflict: %v", err)
	}
	up, err := a.Relations.Update(ctx, relations.UpdateInput{ID: r.ID, Type: "lowers", Metadata: map[string]any{"year": 2016}})
	if err != nil || up.ID != r.ID || up.Type != "lowers" || up.Metadata["year"] != float64(2016) {
		t.Fatalf("update = %+v %v", up, err)
	}
	// Relations survive a rebuild from files.
	if _, err := a.Sync(ctx, true, nil); err != nil {
		t.Fatal(err)
	}
	if again, err := a.Relations.Get(ctx, r.ID); err != nil || again.Type != "lowers" {
		t.Errorf("after reindex: %+v %v", again, err)
	}
	if _, err := a.Relations.Delete(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Relations.Get(ctx, r.ID); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Errorf("after delete: %v", err)
	}
	st, _ := a.Status(ctx)
	if st.Relations != 1 {
		t.Errorf("relations = %d, want 1", st.Relations)
	}
}

// TestRelationsAsProperties: relations are written as Obsidian's Properties
// view shows them — a property per type holding "[[Target]]" links — with
// weight and metadata in the `relations:` list; properties Dataview users
// wrote by hand are relations too; the older `relations:` form still reads,
// and becomes a property when updated.
func TestRelationsAsProperties(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	noematest.WriteNote(t, a, notes.WriteInput{Title: "Paper", Content: "About [[Rust]], [[Go]] and [[C]]."})
	r1, err := a.Relations.Create(ctx, relations.CreateInput{From: "Rust", Type: "influenced", To: "Go"})
	if err != nil {
		t.Fatal(err)
	}
	w := 0.5
	r2, err := a.Relations.Create(ctx, relations.CreateInput{From: "Rust", Type: "influenced", To: "C", Weight: &w, Metadata: map[string]any{"year": 1972}})
	if err != nil {
		t.Fatal(err)
	}
	r3, err := a.Relations.Create(ctx, relations.CreateInput{From: "Rust", Type: "cited_by", To: "memory://Paper"})
	if err != nil {
		t.Fatal(err)
	}
	page := noematest.ReadFile(t, a, "concepts/Rust.md")
	for _, want := range []string{"influenced:\n  - '[[Go]]'\n  - '[[C]]'\n", "cited_by:\n  - '[[Paper.md]]'\n", "relations:\n", "to: '[[C]]'", "weight: 0.5", "year: 1972"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "to: '[[Go]]'") {
		t.Errorf("a relation without details has a relations: entry:\n%s", page)
	}
	for _, r := range []*relations.Relation{r1, r2, r3} {
		if got, err := a.Relations.Get(ctx, r.ID); err != nil || got.Type != r.Type || got.To != r.To {
			t.Errorf("get %s = %+v, %v", r.ID, got, err)
		}
	}
	if r3.To != "memory://Paper" {
		t.Errorf("note target = %q", r3.To)
	}
	// The same relation again is a conflict, whatever form declared it.
	if _, err := a.Relations.Create(ctx, relations.CreateInput{From: "Rust", Type: "influenced", To: "go"}); noema.ErrorCode(err) != noema.ECONFLICT {
		t.Errorf("duplicate: %v", err)
	}

	// Update: a new type moves the link to another property; the id stays.
	up, err := a.Relations.Update(ctx, relations.UpdateInput{ID: r2.ID, Type: "inspired_by", Weight: &w})
	if err != nil || up.ID != r2.ID || up.Type != "inspired_by" || *up.Weight != 0.5 || up.Metadata["year"] != float64(1972) {
		t.Fatalf("update = %+v, %v", up, err)
	}
	page = noematest.ReadFile(t, a, "concepts/Rust.md")
	if !strings.Contains(page, "influenced:\n  - '[[Go]]'\n") || !strings.Contains(page, "inspired_by:\n  - '[[C]]'\n") {
		t.Errorf("after update:\n%s", page)
	}
	// Delete: the link goes, and the property with its last link.
	if _, err := a.Relations.Delete(ctx, r1.ID); err != nil {
		t.Fatal(err)
	}
	if page = noematest.ReadFile(t, a, "concepts/Rust.md"); strings.Contains(page, "influenced:") {
		t.Errorf("after delete:\n%s", page)
	}

	// Written by hand, as Dataview users do; and the older form.
	hand := "---\ntitle: Hand\nstatus: draft\nrelated: \"[[Go]]\"\nparts:\n  - \"[[Rust]]\"\n  - \"[[C]]\"\nmixed: [\"[[Go]]\", plain]\n" +
		"relations:\n  - {type: parts, to: \"[[C]]\", weight: 2}\n  - {type: old_style, to: memory://Paper}\n---\nbody\n"
	treetest.Write(t, a.Vault.Root, "Hand.md", hand)
	noematest.Sync(t, a)
	got := map[string]string{}
	page2, err := graph.Neighbors(ctx, a.DB.Graph(), "memory://Hand", graph.NeighborOptions{Direction: "out"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range page2.Neighbors {
		if n.Edge.Kind != "relation" {
			continue
		}
		w := ""
		if n.Edge.Weight != nil {
			w = "w"
		}
		got[n.Edge.Type+" "+n.Edge.Target+w] = n.Edge.ID
	}
	goID := mustConcept(t, a, "Go")
	rustID, cID := mustConcept(t, a, "Rust"), mustConcept(t, a, "C")
	for _, want := range []string{"related " + goID, "parts " + rustID, "parts " + cID + "w", "old_style memory://Paper"} {
		if _, ok := got[want]; !ok {
			t.Errorf("hand-written relations %v lack %q", got, want)
		}
	}
	if len(got) != 4 {
		t.Errorf("hand-written relations = %v, want 4 (status and mixed are not relations)", got)
	}
	// Updating the older form turns it into a property.
	if _, err := a.Relations.Update(ctx, relations.UpdateInput{ID: got["old_style memory://Paper"], Metadata: map[string]any{"k": "v"}}); err != nil {
		t.Fatal(err)
	}
	if h := noematest.ReadFile(t, a, "Hand.md"); !strings.Contains(h, "old_style:\n  - '[[Paper.md]]'") || !strings.Contains(h, "status: draft") || !strings.Contains(h, "mixed: [\"[[Go]]\", plain]") {
		t.Errorf("after updating the older form:\n%s", h)
	}
	// A type that names a property holding other values, or a reserved key.
	if _, err := a.Relations.Create(ctx, relations.CreateInput{From: "memory://Hand", Type: "status", To: "Go"}); noema.ErrorCode(err) != noema.ECONFLICT {
		t.Errorf("type status: %v, want conflict", err)
	}
	if _, err := a.Relations.Create(ctx, relations.CreateInput{From: "memory://Hand", Type: "tags", To: "Go"}); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("type tags: %v, want invalid_argument", err)
	}
}

func mustConcept(t *testing.T, a *app.App, name string) string {
	t.Helper()
	c, err := a.Concepts.Get(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// TestDanglingRelations: a relation whose target is gone is marked by
// relation show and reported by sync and status.
func TestDanglingRelations(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	for _, title := range []string{"Source", "Target"} {
		noematest.WriteNote(t, a, notes.WriteInput{Title: title, Content: "text\n"})
	}
	r, err := a.Relations.Create(ctx, relations.CreateInput{From: "memory://Source", Type: "cites", To: "memory://Target"})
	if err != nil || r.Dangling {
		t.Fatalf("create = %+v, %v", r, err)
	}
	hand := "---\nsee: \"[[Nowhere Concept]]\"\n---\nx\n"
	treetest.Write(t, a.Vault.Root, "Hand.md", hand)
	if err := os.Remove(filepath.Join(a.Vault.Root, "Target.md")); err != nil {
		t.Fatal(err)
	}
	res := noematest.Sync(t, a)
	var dangling []string
	for _, w := range res.Warnings {
		if w.Code == "dangling_relation" {
			dangling = append(dangling, w.Path+": "+w.Message)
		}
	}
	if len(dangling) != 2 || !strings.Contains(dangling[0], "Hand.md") || !strings.Contains(dangling[0], `"nowhere concept"`) ||
		!strings.Contains(dangling[1], "memory://Target") {
		t.Errorf("sync warnings: %q", dangling)
	}
	got, err := a.Relations.Get(ctx, r.ID)
	if err != nil || !got.Dangling || got.To != "memory://Target" {
		t.Errorf("relation show = %+v, %v", got, err)
	}
	st, err := a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range st.Warnings {
		if w.Code == "dangling_relation" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("status warnings = %+v", st.Warnings)
	}
}

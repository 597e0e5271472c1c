package relations_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/relations"
)

func TestRelationLifecycle(t *testing.T) {
	ctx := context.Background()
	a := noematest.OpenApp(t, "", app.Options{})
	if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Paper", Content: "About [[Gradient Checkpointing]] and [[Memory]].", Tags: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
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
	page, _ := os.ReadFile(filepath.Join(a.Vault.Root, strings.TrimPrefix(gc.Page, "memory://")+".md"))
	if !strings.Contains(string(page), "relations:") || !strings.Contains(string(page), "[[Memory]]") {
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

package concepts_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
)

// concepts.ignore: matching links stay in the text, never become concepts,
// and a write that makes one warns.
func TestIgnoreList(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Concepts.Ignore = []string{"todo", "*.cs", "daily/*"}
	a := noematest.OpenApp(t, "", app.Options{Config: &cfg})
	res, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Plan", Content: "[[TODO]] fix [[GraphTools.cs]] from [[daily/2026-11-30]] about [[Raft]]"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"todo", "GraphTools.cs", "daily/2026-11-30"} {
		if _, err := a.Concepts.Get(ctx, name); noema.ErrorCode(err) != noema.ENOTFOUND {
			t.Errorf("%s is a concept: %v", name, err)
		}
	}
	if _, err := a.Concepts.Get(ctx, "Raft"); err != nil {
		t.Errorf("Raft: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(a.Vault.Root, res.Path))
	if err != nil || !strings.Contains(string(data), "[[TODO]] fix [[GraphTools.cs]]") {
		t.Errorf("the links must stay in the text: %q, %v", data, err)
	}
	_, warnings := a.Concepts.Feedback(ctx, res.Path, map[string]bool{}, nil)
	if len(warnings) != 3 || !strings.Contains(strings.Join(warnings, "\n"), `"*.cs"`) {
		t.Errorf("warnings = %q", warnings)
	}
	// A reindex keeps them out too.
	if _, err := a.Sync(ctx, true, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Concepts.Get(ctx, "todo"); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Errorf("after reindex, todo: %v", err)
	}
}

// Changing the list applies at the next sync to notes that did not change.
func TestIgnoreListChanged(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	a := noematest.OpenApp(t, dir, app.Options{})
	if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Plan", Content: "[[TODO]] about [[Raft]]"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Concepts.Get(ctx, "todo"); err != nil {
		t.Fatalf("before: %v", err)
	}
	a.Close()
	cfg := config.Default()
	cfg.Concepts.Ignore = []string{"todo"}
	b := noematest.OpenApp(t, dir, app.Options{Config: &cfg})
	if _, err := b.Sync(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Concepts.Get(ctx, "todo"); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Errorf("after the list changed: %v", err)
	}
	if _, err := b.Concepts.Get(ctx, "Raft"); err != nil {
		t.Errorf("Raft: %v", err)
	}
}

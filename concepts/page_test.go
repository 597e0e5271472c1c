package concepts_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/sqlite"
	"github.com/noema-mem/noema/vault"
)

// TestPageNotDuplicatedWhenNotIndexed: a concept whose page exists on disk
// but is missing from the index (a rebuild in progress, another process
// not caught up) gets that page updated, not a second page concepts/x-2.md.
func TestPageNotDuplicatedWhenNotIndexed(t *testing.T) {
	ctx := context.Background()
	a := noematest.OpenApp(t, "", app.Options{})
	if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Seed", Content: "About [[Hub]]."}); err != nil {
		t.Fatal(err)
	}
	desc := "first"
	c, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Hub", Description: &desc})
	if err != nil {
		t.Fatal(err)
	}
	// Drop the page from the index only.
	if err := a.DB.Write(ctx, func(tx *sqlite.Tx) error {
		if err := sqlite.DeleteNote(tx, "concepts/Hub.md"); err != nil {
			return err
		}
		_, err := sqlite.RecomputeConcepts(tx, vault.Key)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	desc = "second"
	c2, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Hub", Description: &desc})
	if err != nil {
		t.Fatal(err)
	}
	if c2.ID != c.ID || c2.Page != "memory://concepts/Hub" {
		t.Errorf("updated concept = %s page %s, want %s page memory://concepts/Hub", c2.ID, c2.Page, c.ID)
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, "concepts", "Hub 2.md")); err == nil {
		t.Error("a second page concepts/Hub 2.md was written")
	}
}

package semantic_test

import (
	"context"
	"strings"
	"testing"

	"github.com/noema-mem/noema/notes"
)

func TestRefreshChunksReembedsOnlyChangedChunks(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	section := func(name, word string) string {
		return "## " + name + "\n" + strings.Repeat(word+" text here. ", 100) + "\n\n"
	}
	body := section("One", "alpha") + section("Two", "bravo") + section("Three", "charlie")
	w, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Long", Content: body})
	if err != nil {
		t.Fatal(err)
	}
	write(t, a, "Short", "", "just [[One Concept]]")
	if err := a.Semantic.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	p := a.Semantic.Progress()
	if p.Chunks < 4 || p.ChunksEmbedded != p.Chunks || p.ChunkNotesPending != 0 {
		t.Fatalf("progress = %+v", p)
	}
	count := func() int {
		var n int
		a.DB.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings`).Scan(&n)
		return n
	}
	before := count()
	// Edit one section: only its chunk is new.
	if _, err := a.Notes.Edit(ctx, notes.EditInput{URI: w.URI, Op: notes.OpReplaceSection, Section: "Two", Content: strings.Repeat("delta text. ", 100)}); err != nil {
		t.Fatal(err)
	}
	if err := a.Semantic.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	if added := count() - before; added != 1 {
		t.Errorf("an edit of one section embedded %d new chunks, want 1", added)
	}
	// A no-op refresh embeds nothing.
	before = count()
	if err := a.Semantic.RefreshChunks(ctx); err != nil || count() != before {
		t.Errorf("no-op refresh: %v, %d new", err, count()-before)
	}
	// Another model re-embeds every chunk, without touching the old vectors.
	a.Semantic.Embedder = constant{dim: 8}
	if err := a.Semantic.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	if p := a.Semantic.Progress(); p.ChunksEmbedded != p.Chunks {
		t.Errorf("after switching models: %+v", p)
	}
}

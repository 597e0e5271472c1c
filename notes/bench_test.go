package notes_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/notes"
)

// BenchmarkWriteNote writes one new note (3 links) into a synced vault of
// 10,000 generated notes: the file write, its indexing and the concept
// registry update, as write_note does.
//
//	go test -run '^$' -bench WriteNote -benchtime 50x ./notes/
func BenchmarkWriteNote(b *testing.B) {
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "vault")
	if _, err := corpus.Generate(ctx, dir, corpus.Options{Seed: 42, Notes: 10000}); err != nil {
		b.Fatal(err)
	}
	a, err := app.Open(ctx, dir, app.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Sync(ctx, false, nil); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		_, err := a.Notes.Write(ctx, notes.WriteInput{Title: fmt.Sprintf("bench note %d", i),
			Content: fmt.Sprintf("About [[Bench Concept %d]], [[Shared Bench]] and [[gradient]].\n", i%7)})
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
}

package notes_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
)

// TestTooManyLinks: write_note and edit_note refuse a note that links more
// than notes.MaxNoteLinks distinct concepts with too_large naming the limit,
// and leave the vault as it was; many links to few concepts are fine.
func TestTooManyLinks(t *testing.T) {
	ctx := context.Background()
	a := noematest.OpenApp(t, "", app.Options{MaxNoteBytes: 4 << 20})
	var many strings.Builder
	for i := range notes.MaxNoteLinks + 1 {
		fmt.Fprintf(&many, "[[c%d]] ", i)
	}
	_, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Too many", Content: many.String()})
	if noema.ErrorCode(err) != noema.ETOOLARGE || !strings.Contains(err.Error(), fmt.Sprint(notes.MaxNoteLinks)) {
		t.Fatalf("write with %d distinct links: err = %v, want too_large naming the limit", notes.MaxNoteLinks+1, err)
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, "too-many.md")); !os.IsNotExist(err) {
		t.Errorf("refused note was written: %v", err)
	}

	repeated := strings.Repeat("[[same]] ", notes.MaxNoteLinks+1)
	w, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Repeated", Content: repeated})
	if err != nil {
		t.Fatalf("write with %d links to one concept: %v", notes.MaxNoteLinks+1, err)
	}
	_, err = a.Notes.Edit(ctx, notes.EditInput{URI: w.URI, Op: notes.OpAppend, Content: many.String()})
	if noema.ErrorCode(err) != noema.ETOOLARGE {
		t.Fatalf("append of %d distinct links: err = %v, want too_large", notes.MaxNoteLinks+1, err)
	}
	n, err := a.Notes.Read(ctx, w.URI)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(n.Content, "[[c0]]") {
		t.Error("refused edit was written")
	}
}

package notes_test

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/vault"
)

// Names that would not be portable, or that the file system cannot hold,
// are invalid_argument with a clear message, never an internal error, and
// a folder with a leading '/' is refused rather than silently made relative.
func TestWriteAndMoveNames(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)

	// An over-long title is kept whole in the front matter; its file name is
	// cut to vault.MaxTitleNameBytes.
	long := strings.Repeat("a", 300)
	w, err := a.Notes.Write(ctx, notes.WriteInput{Title: long, Content: "x"})
	if err != nil {
		t.Fatalf("write with a 300-byte title: %v", err)
	}
	if base := path.Base(w.Path); len(base) > vault.MaxTitleNameBytes+len(".md") || w.Title != long {
		t.Errorf("300-byte title: path %q (%d bytes), title %d bytes", w.Path, len(base), len(w.Title))
	}
	if n, err := a.Notes.Read(ctx, w.URI); err != nil || n.Title != long {
		t.Errorf("read back: %v", err)
	}

	for _, tt := range []struct{ folder, msg string }{
		{"/abs", "relative to the vault"},
		{"//abs/x", "relative to the vault"},
		{" /abs", "relative to the vault"},
		{strings.Repeat("f", 300), "too long"},
		{"ok/" + strings.Repeat("f", 256), "too long"},
		{"con", "reserved"},
		{"a\tb", "control character"},
		{"what?", "Windows"},
		{"trailing.", "ends in"},
	} {
		_, err := a.Notes.Write(ctx, notes.WriteInput{Title: "In folder", Content: "x", Folder: tt.folder})
		if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("write in folder %q: %v, want invalid_argument about %q", tt.folder, err, tt.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, "abs")); err == nil {
		t.Errorf("folder /abs was created as abs")
	}
	if w, err := a.Notes.Write(ctx, notes.WriteInput{Title: "In folder", Content: "x", Folder: "sub/"}); err != nil || w.Path != "sub/In folder.md" {
		t.Errorf("write in folder sub/: %+v, %v", w, err)
	}

	for _, to := range []string{"con.md", "a:b.md", "tab\there.md", strings.Repeat("m", 300) + ".md", "dir /x.md"} {
		if _, err := a.Notes.Move(ctx, w.URI, to); noema.ErrorCode(err) != noema.EINVALID {
			t.Errorf("move to %q: %v, want invalid_argument", to, err)
		}
	}
	if _, err := a.Notes.Read(ctx, w.URI); err != nil {
		t.Errorf("the note is gone after refused moves: %v", err)
	}
}

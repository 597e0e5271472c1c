package notes_test

import (
	"context"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/notes"
)

// A title resolves exactly, then by key among notes whose title has the
// key (the first by path); an alias is not a title.
func TestResolveTitleByKey(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	deep, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Deep Work", Aliases: []string{"Focus Time"}, Content: "x", Folder: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: "deep_work", Content: "y", Folder: "c"}); err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{"Deep Work": deep.Path, "DEEP-WORK": deep.Path, "deep  work": deep.Path} {
		if p, err := a.Notes.Resolve(ctx, ref); err != nil || p != want {
			t.Errorf("resolve %q = %q, %v; want %q", ref, p, err, want)
		}
	}
	for _, ref := range []string{"focus time", "Focus Time", "shallow work"} {
		if p, err := a.Notes.Resolve(ctx, ref); noema.ErrorCode(err) != noema.ENOTFOUND {
			t.Errorf("resolve %q = %q, %v; want not_found", ref, p, err)
		}
	}
}

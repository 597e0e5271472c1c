package notes_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/vault"
)

func TestEditOps(t *testing.T) {
	const body = "intro\n\n## One\nfirst\n\n## Two\nsecond\n"
	cases := []struct {
		name string
		in   notes.EditInput
		want string // the body after the front matter
		code string
	}{
		{"append", notes.EditInput{Op: notes.OpAppend, Content: "tail"}, body + "tail\n", ""},
		{"prepend", notes.EditInput{Op: notes.OpPrepend, Content: "head"}, "head\n" + body, ""},
		{"find_replace", notes.EditInput{Op: notes.OpFindReplace, Find: "second", Replace: "2nd"}, strings.Replace(body, "second", "2nd", 1), ""},
		{"find_replace count", notes.EditInput{Op: notes.OpFindReplace, Find: "## ", Replace: "### ", ExpectedCount: 2}, strings.ReplaceAll(body, "## ", "### "), ""},
		{"find_replace wrong count", notes.EditInput{Op: notes.OpFindReplace, Find: "## ", Replace: "x"}, "", noema.EINVALID},
		{"replace_section", notes.EditInput{Op: notes.OpReplaceSection, Section: "one", Content: "uno"}, "intro\n\n## One\nuno\n\n## Two\nsecond\n", ""},
		{"replace_section last", notes.EditInput{Op: notes.OpReplaceSection, Section: "## Two", Content: "dos"}, "intro\n\n## One\nfirst\n\n## Two\ndos\n", ""},
		{"replace_section missing", notes.EditInput{Op: notes.OpReplaceSection, Section: "Three", Content: "x"}, "", noema.ENOTFOUND},
		{"replace_all", notes.EditInput{Op: notes.OpReplaceAll, Content: "all new\n"}, "all new\n", ""},
		{"unknown op", notes.EditInput{Op: "rewrite"}, "", noema.EINVALID},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			a := noematest.App(t)
			w := noematest.WriteNote(t, a, notes.WriteInput{Title: "Doc", Content: body, Tags: []string{"keep"}})
			c.in.URI = w.URI
			_, err := a.Notes.Edit(ctx, c.in)
			if noema.ErrorCode(err) != c.code {
				t.Fatalf("err = %v, want %q", err, c.code)
			}
			n, _ := a.Notes.Read(ctx, w.URI)
			got := n.Content[strings.Index(n.Content, "\n---\n")+5:]
			if c.code != "" {
				if got != body {
					t.Errorf("a failed edit changed the note: %q", got)
				}
				return
			}
			if got != c.want {
				t.Errorf("body = %q, want %q", got, c.want)
			}
			if n.FrontMatter["title"] != "Doc" || len(n.Tags) != 1 {
				t.Errorf("front matter lost: %v", n.FrontMatter)
			}
		})
	}
}

func TestWriteNamesAndResolve(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	w1 := noematest.WriteNote(t, a, notes.WriteInput{Title: "A/B", Content: "x"})
	// Another title with the same file name is a conflict ([[A-B]] opens
	// A-B.md in Obsidian); asked for, it gets its own file, never the other's.
	if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: "A-B", Content: "y"}); noema.ErrorCode(err) != noema.ECONFLICT {
		t.Errorf("a title that is another note's file name: %v, want conflict", err)
	}
	w2 := noematest.WriteNote(t, a, notes.WriteInput{Title: "A-B", Content: "y", AllowDuplicateTitle: true})
	if w1.Path == w2.Path || !w2.Created {
		t.Fatalf("slug collision: %s and %s", w1.Path, w2.Path)
	}
	// Overwrite replaces only when asked.
	if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: "A/B", Content: "z"}); noema.ErrorCode(err) != noema.ECONFLICT {
		t.Errorf("overwrite without asking: %v", err)
	}
	w3, err := a.Notes.Write(ctx, notes.WriteInput{Title: "A/B", Content: "z", Overwrite: true})
	if err != nil || w3.Created || w3.Path != w1.Path {
		t.Errorf("overwrite: %+v %v", w3, err)
	}
	for _, ref := range []string{w1.URI, w1.Path, strings.TrimSuffix(w1.Path, ".md"), "A/B", "a/b"} {
		if p, err := a.Notes.Resolve(ctx, ref); err != nil || p != w1.Path {
			t.Errorf("resolve %q = %q, %v", ref, p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, w1.Path)); err != nil {
		t.Error(err)
	}
}

// Names that would not be portable, or that the file system cannot hold,
// are invalid_argument with a clear message, never an internal error, and
// a folder with a leading '/' is refused rather than silently made relative.
func TestWriteAndMoveNames(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)

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

// A title resolves exactly, then by key among notes whose title has the
// key (the first by path); an alias is not a title.
func TestResolveTitleByKey(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	deep := noematest.WriteNote(t, a, notes.WriteInput{Title: "Deep Work", Aliases: []string{"Focus Time"}, Content: "x", Folder: "b"})
	noematest.WriteNote(t, a, notes.WriteInput{Title: "deep_work", Content: "y", Folder: "c", AllowDuplicateTitle: true})
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

// TestWriteTitleIsOneNote: a title another note already answers to — by
// its title (noema) or its file name (Obsidian), in any folder, compared
// case-insensitively — is a conflict naming that note, and nothing is
// written; with allow_duplicate_title the note is written and the answer
// warns.
func TestWriteTitleIsOneNote(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"stdlib/Mutex.md": "---\ntitle: Mutex\n---\nA lock.\n",
		"old/Lock.md":     "---\ntitle: Mutual Exclusion\n---\nTitled otherwise than its file.\n",
		"Ref.md":          "[[Mutex]] and [[Lock]]\n",
	}
	for _, tt := range []struct {
		name     string
		in       notes.WriteInput
		conflict string // the note named in the conflict, "" for none
	}{
		{"same title, other folder", notes.WriteInput{Title: "Mutex"}, "memory://stdlib/Mutex"},
		{"other case, other folder", notes.WriteInput{Title: "mutex", Folder: "go"}, "memory://stdlib/Mutex"},
		{"other case, same folder", notes.WriteInput{Title: "mutex", Folder: "stdlib"}, "memory://stdlib/Mutex"},
		{"other case, same folder, overwrite", notes.WriteInput{Title: "MUTEX", Folder: "stdlib", Overwrite: true}, "memory://stdlib/Mutex"},
		{"title of a note named otherwise", notes.WriteInput{Title: "mutual-exclusion"}, "memory://old/Lock"},
		{"another note's file name", notes.WriteInput{Title: "LOCK", Folder: "new"}, "memory://old/Lock"},
		{"overwrite is not a licence", notes.WriteInput{Title: "Mutex", Overwrite: true}, "memory://stdlib/Mutex"},
		{"a new title", notes.WriteInput{Title: "Semaphore"}, ""},
		{"asked for", notes.WriteInput{Title: "Mutex", AllowDuplicateTitle: true}, ""},
		{"overwrite in its own folder", notes.WriteInput{Title: "Mutex", Folder: "stdlib", Overwrite: true}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := noematest.AppWith(t, files)
			tt.in.Content = "3-line note"
			res, err := a.Notes.Write(ctx, tt.in)
			if tt.conflict != "" {
				var e *noema.Error
				if !errors.As(err, &e) || e.Code != noema.ECONFLICT || e.Details["uri"] != tt.conflict || !strings.Contains(e.Message, tt.conflict) {
					t.Fatalf("err = %v, want conflict naming %s", err, tt.conflict)
				}
				if n, err := a.Notes.Read(ctx, "Mutex"); err != nil || n.Path != "stdlib/Mutex.md" {
					t.Errorf("read Mutex after the refused write: %+v, %v", n, err)
				}
				var count int
				filepath.WalkDir(a.Vault.Root, func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
						count++
					}
					return nil
				})
				if count != len(files) {
					t.Errorf("a refused write left %d notes, want %d", count, len(files))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			warned := slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "memory://stdlib/Mutex") })
			if want := tt.in.AllowDuplicateTitle; warned != want {
				t.Errorf("warnings = %q, want a duplicate-title warning: %v", res.Warnings, want)
			}
		})
	}
}

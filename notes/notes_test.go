package notes_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
)

func openApp(t *testing.T) *app.App {
	t.Helper()
	a := noematest.OpenApp(t, "", app.Options{})
	return a
}

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
			a := openApp(t)
			w, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Doc", Content: body, Tags: []string{"keep"}})
			if err != nil {
				t.Fatal(err)
			}
			c.in.URI = w.URI
			_, err = a.Notes.Edit(ctx, c.in)
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
	a := openApp(t)
	w1, err := a.Notes.Write(ctx, notes.WriteInput{Title: "A/B", Content: "x"})
	if err != nil {
		t.Fatal(err)
	}
	// Another title with the same slug gets its own file, never the other's.
	w2, err := a.Notes.Write(ctx, notes.WriteInput{Title: "A-B", Content: "y"})
	if err != nil {
		t.Fatal(err)
	}
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

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-05-01":           time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC),
		"2026-05-01T10:00:00Z": time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC),
		"24h":                  now.Add(-24 * time.Hour),
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"1.5d":                 now.Add(-36 * time.Hour),
	} {
		if got, err := notes.ParseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "-3d", ""} {
		if _, err := notes.ParseSince(bad, now); noema.ErrorCode(err) != noema.EINVALID {
			t.Errorf("ParseSince(%q): %v", bad, err)
		}
	}
}

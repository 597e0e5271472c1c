package notes_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
)

// TestRenameFiles: slug-named notes (older noema) are renamed by title, the
// links naming them by path follow, links by title need nothing, and a dry
// run changes nothing.
func TestRenameFiles(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"ml/garbage-collection.md": "---\ntitle: Garbage Collection\n---\nAbout GC.\n",
		"ml/go.md":                 "---\ntitle: Go\n---\nA language.\n",
		"ml/Go.md":                 "---\ntitle: Go\n---\nThe other Go file.\n", // the name Go would take is taken
		"Index.md": "---\ntitle: Index\nsee_also:\n  - \"[[ml/garbage-collection.md]]\"\nrelations:\n  - {type: old, to: memory://ml/garbage-collection}\n---\n" +
			"By path [[ml/garbage-collection]], with .md ![[ml/garbage-collection.md#Part|shown]], by title [[Garbage Collection]],\n" +
			"in code `[[ml/garbage-collection]]`, and [[ml/go]].\n",
		"already-fine.md": "plain file whose title is its name\n",
		"custom-name.md":  "---\ntitle: Something Else\n---\nnot a slug of its title\n",
	}
	a := noematest.AppWith(t, files)
	root := a.Vault.Root
	dry, err := a.Notes.RenameFiles(ctx, notes.RenameFilesInput{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Renamed) != 2 || dry.Renamed[0].From != "memory://ml/garbage-collection" || dry.Renamed[0].To != "memory://ml/Garbage Collection" ||
		dry.Renamed[1].To != "memory://ml/Go 2" {
		t.Errorf("dry run renames = %+v", dry.Renamed)
	}
	if len(dry.Links) != 4 {
		t.Errorf("dry run links = %+v", dry.Links)
	}
	if _, err := os.Stat(filepath.Join(root, "ml/garbage-collection.md")); err != nil {
		t.Fatalf("a dry run renamed: %v", err)
	}

	res, err := a.Notes.RenameFiles(ctx, notes.RenameFilesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Renamed) != 2 {
		t.Fatalf("renamed = %+v", res.Renamed)
	}
	index := noematest.ReadFile(t, a, "Index.md")
	for _, want := range []string{
		`"[[ml/Garbage Collection.md]]"`, "memory://ml/Garbage Collection}",
		"By path [[ml/Garbage Collection]], with .md ![[ml/Garbage Collection.md#Part|shown]], by title [[Garbage Collection]]",
		"`[[ml/garbage-collection]]`", "and [[ml/Go 2]].",
	} {
		if !strings.Contains(index, want) {
			t.Errorf("Index.md lacks %q:\n%s", want, index)
		}
	}
	for _, rel := range []string{"ml/Garbage Collection.md", "ml/Go 2.md", "ml/Go.md", "already-fine.md", "custom-name.md"} {
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
	}
	// The index follows: the renamed notes are found at their new names,
	// and the concept page of [[Garbage Collection]] is the renamed file.
	if n, err := a.Notes.Read(ctx, "memory://ml/Garbage Collection"); err != nil || n.Title != "Garbage Collection" {
		t.Errorf("read renamed: %+v, %v", n, err)
	}
	if c, err := a.Concepts.Get(ctx, "garbage collection"); err != nil || c.Page != "memory://ml/Garbage Collection" {
		t.Errorf("concept page = %+v, %v", c, err)
	}
	// Running it again finds nothing to do.
	again, err := a.Notes.RenameFiles(ctx, notes.RenameFilesInput{})
	if err != nil || len(again.Renamed) != 0 || len(again.Links) != 0 {
		t.Errorf("second run = %+v, %v", again, err)
	}
}

// TestFilesEndWithNewline: every file noema writes ends with a newline,
// whatever the content given.
func TestFilesEndWithNewline(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	w := noematest.WriteNote(t, a, notes.WriteInput{Title: "No newline", Content: "text without a final newline"})
	check := func(what string) {
		t.Helper()
		if b := noematest.ReadFile(t, a, w.Path); !strings.HasSuffix(b, "\n") {
			t.Errorf("%s: file %q does not end with a newline", what, b)
		}
	}
	check("write")
	for _, in := range []notes.EditInput{
		{Op: notes.OpReplaceAll, Content: "---\ntitle: No newline\n---\nreplaced"},
		{Op: notes.OpFindReplace, Find: "replaced", Replace: "found"},
		{Op: notes.OpAppend, Content: "appended"},
	} {
		in.URI = w.URI
		if _, err := a.Notes.Edit(ctx, in); err != nil {
			t.Fatal(err)
		}
		check(in.Op)
	}
}

// TestMoveRewritesLinks: moving a note rewrites the links that point to it,
// as Obsidian does: by path, relation targets, and by title when the move
// renames the note (its title comes from its file name).
func TestMoveRewritesLinks(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"drafts/Plan.md": "The plan.\n",
		"Index.md": "---\nrefs: \"[[drafts/Plan.md]]\"\n---\n[[Plan]] and [[Plan|the plan]] and [[drafts/Plan#Goals]] and [[Planning]].\n" +
			"`[[Plan]]` stays.\n",
		"Titled.md": "---\ntitle: Fixed Title\n---\nbody\n",
		"Other.md":  "[[Fixed Title]] and [[Titled]]\n",
	}
	a := noematest.AppWith(t, files)
	res, err := a.Notes.Move(ctx, "drafts/Plan.md", "archive/Roadmap")
	if err != nil {
		t.Fatal(err)
	}
	index := noematest.ReadFile(t, a, "Index.md")
	want := "---\nrefs: \"[[archive/Roadmap.md]]\"\n---\n[[Roadmap|Plan]] and [[Roadmap|the plan]] and [[archive/Roadmap#Goals]] and [[Planning]].\n" +
		"`[[Plan]]` stays.\n"
	if index != want {
		t.Errorf("Index.md =\n%s\nwant\n%s", index, want)
	}
	if len(res.Links) != 2 || res.Links[0].URI != "memory://Index" {
		t.Errorf("links = %+v", res.Links)
	}
	if c, err := a.Concepts.Get(ctx, "Roadmap"); err != nil || c.Page != "memory://archive/Roadmap" {
		t.Errorf("concept Roadmap = %+v, %v", c, err)
	}
	// A note whose title is in its front matter is renamed too: its title
	// becomes the file name, links by the old title and by the old file
	// name follow.
	if _, err := a.Notes.Move(ctx, "Titled.md", "Moved.md"); err != nil {
		t.Fatal(err)
	}
	if other := noematest.ReadFile(t, a, "Other.md"); other != "[[Moved|Fixed Title]] and [[Moved|Titled]]\n" {
		t.Errorf("Other.md = %q", other)
	}
}

// TestMoveRenamesNote: a move that changes the file name changes what the
// note is called, as Obsidian (which resolves links by file name) sees it:
// the title becomes the new name, the old one an alias, and every link that
// meant the note — by title, by path, with heading or shown text — still
// opens it in noema and in Obsidian. A move that keeps the file name keeps
// the title. No empty folder is left behind, and a new name another note
// answers to is a conflict.
func TestMoveRenamesNote(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	w := noematest.WriteNote(t, a, notes.WriteInput{Title: "Connection Pool", Folder: "project", Content: "Pools [[Connection Pool|itself]]."})
	noematest.WriteNote(t, a, notes.WriteInput{Title: "Mutex", Folder: "stdlib", Content: "A lock."})
	uses := noematest.WriteNote(t, a, notes.WriteInput{Title: "Uses", Content: "[[Connection Pool]], [[connection pool|the pool]], [[Connection Pool#Sizing]],\n" +
		"![[Connection Pool]], [[project/Connection Pool]] and `[[Connection Pool]]` in code.\n"})

	res, err := a.Notes.Move(ctx, "project/Connection Pool", "database/Database Connection Pool")
	if err != nil {
		t.Fatal(err)
	}
	const dst = "database/Database Connection Pool.md"
	want := "[[Database Connection Pool|Connection Pool]], [[Database Connection Pool|the pool]], [[Database Connection Pool#Sizing]],\n" +
		"![[Database Connection Pool]], [[database/Database Connection Pool]] and `[[Connection Pool]]` in code.\n"
	if got := noematest.ReadFile(t, a, uses.Path); !strings.HasSuffix(got, "\n---\n"+want) {
		t.Errorf("Uses.md =\n%s\nwant its body\n%s", got, want)
	}
	if len(res.Links) != 3 { // two lines of Uses, one of the note itself
		t.Errorf("links followed = %+v, want 3 lines", res.Links)
	}
	n, err := a.Notes.Read(ctx, "memory://database/Database Connection Pool")
	if err != nil {
		t.Fatal(err)
	}
	if n.Title != "Database Connection Pool" || !slices.Equal(n.Aliases, []string{"Connection Pool"}) ||
		!strings.Contains(n.Content, "Pools [[Database Connection Pool|itself]].") {
		t.Errorf("moved note: title %q, aliases %q, content\n%s", n.Title, n.Aliases, n.Content)
	}
	if c, err := a.Concepts.Get(ctx, "Database Connection Pool"); err != nil || c.Page != "memory://database/Database Connection Pool" {
		t.Errorf("concept = %+v, %v", c, err)
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, "project")); !os.IsNotExist(err) {
		t.Errorf("the emptied folder project/ is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, w.Path)); !os.IsNotExist(err) {
		t.Errorf("the old file is still there: %v", err)
	}

	// Keeping the file name keeps the title; only path links follow.
	if _, err := a.Notes.Move(ctx, "memory://database/Database Connection Pool", "archive/Database Connection Pool"); err != nil {
		t.Fatal(err)
	}
	want = strings.ReplaceAll(want, "[[database/", "[[archive/")
	if got := noematest.ReadFile(t, a, uses.Path); !strings.HasSuffix(got, "\n---\n"+want) {
		t.Errorf("after a move keeping the name, Uses.md =\n%s\nwant its body\n%s", got, want)
	}
	if n, err := a.Notes.Read(ctx, "memory://archive/Database Connection Pool"); err != nil || n.Title != "Database Connection Pool" {
		t.Errorf("after a move keeping the name: %+v, %v", n, err)
	}

	// A name another note answers to is refused, and nothing moves.
	_, err = a.Notes.Move(ctx, "memory://archive/Database Connection Pool", "archive/mutex")
	if noema.ErrorCode(err) != noema.ECONFLICT || !strings.Contains(err.Error(), "memory://stdlib/Mutex") {
		t.Errorf("move onto another note's name: %v, want conflict naming memory://stdlib/Mutex", err)
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, "archive", "Database Connection Pool.md")); err != nil {
		t.Errorf("a refused move moved: %v", err)
	}
}

// TestMoveFollowsFileNameLinks: links by the old file name follow a rename
// because Obsidian opened the note by them — also when noema gives the name
// to another concept's page, and when the title does not change (a
// slug-named note renamed to its title).
func TestMoveFollowsFileNameLinks(t *testing.T) {
	ctx := context.Background()
	a := noematest.AppWith(t, map[string]string{
		"project/Glacier Basalt.md": "---\ntitle: Glacier Basalt\n---\nA note.\n",
		"concepts/Target.md":        "---\ntitle: Target\nconcept: Target\naliases: [Glacier Basalt]\n---\nA page that took the name.\n",
		"ml/connection-pool.md":     "---\ntitle: Connection Pool\n---\nFrom an older noema.\n",
		"Uses.md":                   "[[Glacier Basalt]], [[glacier basalt|x]], [[connection-pool]] and [[Connection Pool]].\n",
	})
	if _, err := a.Notes.Move(ctx, "project/Glacier Basalt.md", "project/Garnet Prairie.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Notes.Move(ctx, "ml/connection-pool.md", "ml/Connection Pool.md"); err != nil {
		t.Fatal(err)
	}
	want := "[[Garnet Prairie|Glacier Basalt]], [[Garnet Prairie|x]], [[Connection Pool|connection-pool]] and [[Connection Pool]].\n"
	if got := noematest.ReadFile(t, a, "Uses.md"); got != want {
		t.Errorf("Uses.md = %q, want %q", got, want)
	}
}

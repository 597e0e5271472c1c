package app_test

import (
	"context"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/notes"
)

// undoVault holds a little of everything the recorded operations change:
// concepts with pages and aliases, links by name and by path, a relation,
// and slug-named notes.
var undoVault = map[string]string{
	"concepts/Garbage Collection.md": "---\nconcept: Garbage Collection\naliases: [GC]\n---\n# Garbage Collection\n\nReclaims memory. See [[Heap]].\n",
	"concepts/GC pauses.md":          "---\nconcept: GC pauses\n---\n# GC pauses\n\nStop the world.\n",
	"go/runtime.md":                  "# Runtime\n\nThe [[Garbage Collection]] and [[GC pauses]] of [[Heap]] objects; see [[go/escape-analysis]].\n",
	"go/escape-analysis.md":          "---\ntitle: Escape Analysis\nrelations:\n  - type: affects\n    to: \"[[Heap]]\"\n---\n# Escape Analysis\n\nKeeps values off the [[Heap]]; [[GC pauses|pauses]] shrink.\n",
	"java/g1.md":                     "# G1\n\n[[Garbage Collection]] in regions, see [[go/runtime]] and [[go/escape-analysis|escape]].\n",
}

// indexDump is what an index holds of the files, without the ids and
// times that differ between two indexes of the same files.
func indexDump(t *testing.T, a *app.App) string {
	t.Helper()
	return noematest.Rows(t, a.DB.Read(),
		`SELECT path, title, tags, aliases, hash FROM notes ORDER BY path`,
		`SELECT n.path, l.key, l.target, l.count FROM links l JOIN notes n ON n.id = l.note_id ORDER BY 1, 2, 3`,
		`SELECT c.key, c.label, c.aliases, c.description, c.metadata, COALESCE(n.path, '') FROM concepts c LEFT JOIN notes n ON n.id = c.page_note_id ORDER BY c.key`,
		`SELECT k.key, c.key, k.text, k.is_label FROM concept_keys k JOIN concepts c ON c.id = k.concept_id ORDER BY 1`,
		`SELECT key, target, count FROM link_spellings ORDER BY key, target`)
}

// files returns the vault's files outside .noema.
func files(t *testing.T, a *app.App) map[string]string {
	t.Helper()
	out := treetest.Files(t, a.Vault.Root)
	maps.DeleteFunc(out, func(p, _ string) bool { return strings.HasPrefix(p, ".noema/") })
	return out
}

// dirs returns the vault's folders outside .noema.
func dirs(t *testing.T, a *app.App) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(a.Vault.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(a.Vault.Root, p)
		if d.IsDir() && rel == ".noema" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// freshIndex indexes a copy of a's files from scratch and dumps it.
func freshIndex(t *testing.T, a *app.App) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "copy")
	treetest.WriteAll(t, dir, files(t, a))
	return indexDump(t, noematest.OpenSynced(t, dir, app.Options{}))
}

// TestUndoEachOperation: every kind of recorded operation, undone, gives
// the vault its bytes back and leaves an index equal to a fresh one; the
// undo of the undo makes the change again.
func TestUndoEachOperation(t *testing.T) {
	ctx := context.Background()
	no := false
	scenarios := []struct {
		tool string
		run  func(a *app.App) error
	}{
		{"merge_concepts", func(a *app.App) error {
			_, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"GC pauses"}, Target: "Garbage Collection", DryRun: &no, Force: true})
			return err
		}},
		{"move_note", func(a *app.App) error {
			_, err := a.Notes.Move(ctx, "go/escape-analysis.md", "compilers/Escape Analysis.md")
			return err
		}},
		{"update_concept", func(a *app.App) error {
			_, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Garbage Collection", Label: "Garbage Collector"})
			return err
		}},
		{"delete_concept", func(a *app.App) error {
			_, err := a.Concepts.Delete(ctx, concepts.DeleteInput{Concept: "GC pauses", Unlink: true, CascadeRelations: true})
			return err
		}},
		{"vault rename-files", func(a *app.App) error {
			_, err := a.Notes.RenameFiles(ctx, notes.RenameFilesInput{})
			return err
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.tool, func(t *testing.T) {
			a := noematest.AppWith(t, undoVault)
			before, beforeDirs := files(t, a), dirs(t, a)
			if err := sc.run(a); err != nil {
				t.Fatal(err)
			}
			after := files(t, a)
			if treetest.Same(before, after) {
				t.Fatal("the operation changed nothing")
			}
			log, err := a.Notes.Operations(ctx, notes.OperationsInput{})
			if err != nil {
				t.Fatal(err)
			}
			if len(log.Operations) != 1 || log.Operations[0].Tool != sc.tool {
				t.Fatalf("log = %+v", log.Operations)
			}
			res, err := a.Notes.Undo(ctx, notes.UndoInput{ID: log.Operations[0].ID})
			if err != nil {
				t.Fatal(err)
			}
			if got := files(t, a); !treetest.Same(got, before) {
				t.Fatalf("after undo:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(before))
			}
			if got := dirs(t, a); !slices.Equal(got, beforeDirs) {
				t.Errorf("folders after undo %v, want %v", got, beforeDirs)
			}
			if got, want := indexDump(t, a), freshIndex(t, a); got != want {
				t.Fatalf("index after undo:\n%s\na fresh index:\n%s", got, want)
			}
			if _, err := a.Notes.Undo(ctx, notes.UndoInput{ID: res.Operation}); err != nil { // redo
				t.Fatal(err)
			}
			if got := files(t, a); !treetest.Same(got, after) {
				t.Fatalf("after redo:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(after))
			}
			if got, want := indexDump(t, a), freshIndex(t, a); got != want {
				t.Fatalf("index after redo:\n%s\na fresh index:\n%s", got, want)
			}
		})
	}
}

// TestUndoAfterHandEdit: a note edited since the merge makes the undo a
// conflict naming it; with force the rest is reverted, the index follows.
func TestUndoAfterHandEdit(t *testing.T) {
	ctx := context.Background()
	a := noematest.AppWith(t, undoVault)
	before := files(t, a)
	no := false
	if _, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"GC pauses"}, Target: "Garbage Collection", DryRun: &no, Force: true}); err != nil {
		t.Fatal(err)
	}
	log, _ := a.Notes.Operations(ctx, notes.OperationsInput{})
	id := log.Operations[0].ID
	edited := "# Runtime\n\nRewritten by hand.\n"
	treetest.Write(t, a.Vault.Root, "go/runtime.md", edited)
	noematest.Sync(t, a)
	_, err := a.Notes.Undo(ctx, notes.UndoInput{ID: id})
	if noema.ErrorCode(err) != noema.ECONFLICT || !strings.Contains(noema.ErrorMessage(err), "go/runtime") {
		t.Fatalf("undo after a hand edit: %v, want conflict naming go/runtime", err)
	}
	res, err := a.Notes.Undo(ctx, notes.UndoInput{ID: id, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 1 || res.Skipped[0] != noema.NoteURI("go/runtime.md") {
		t.Fatalf("forced undo = %+v", res)
	}
	want := maps.Clone(before)
	want["go/runtime.md"] = edited
	if got := files(t, a); !treetest.Same(got, want) {
		t.Fatalf("after forced undo:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(want))
	}
	if got, want := indexDump(t, a), freshIndex(t, a); got != want {
		t.Fatalf("index after forced undo:\n%s\na fresh index:\n%s", got, want)
	}
}

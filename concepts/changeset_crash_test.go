package concepts_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/vault"
)

// conceptVault writes 19 notes linking [[Target]] (and [[Other]]) and
// Target's page under concepts/: deleting Target with unlink is a 20-file
// changeset (19 rewrites, one deletion).
func conceptVault(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, content string) { treetest.Write(t, dir, rel, content) }
	write("concepts/Target.md", "---\nconcept: Target\naliases: [Aim]\n---\n# Target\n\nabout [[Other]]\n")
	for i := range 19 {
		write(fmt.Sprintf("notes/n%02d.md", i), fmt.Sprintf("# n%d\n\n[[Target]] and [[Aim|the aim]] near [[Other]] and [[Topic %d]]\n", i, i%4))
	}
	return dir
}

func openAppAt(t *testing.T, dir string) *app.App {
	t.Helper()
	a, err := app.Open(context.Background(), dir, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// indexDump lists what the index holds about notes, concepts and links.
func indexDump(t *testing.T, a *app.App) string {
	t.Helper()
	return noematest.Rows(t, a.DB.Read(),
		`SELECT path, title, hash, aliases FROM notes ORDER BY path`,
		`SELECT id, key, label, aliases, (SELECT path FROM notes WHERE id = page_note_id) FROM concepts ORDER BY id`,
		`SELECT key, concept_id, is_label FROM concept_keys ORDER BY key`,
		`SELECT n.path, m.concept_id, m.count FROM mentions m JOIN notes n ON n.id = m.note_id ORDER BY n.path, m.concept_id`)
}

// TestDeleteConceptCrashAfterEachFile stops delete_concept --unlink after
// each file of its 20-file changeset in turn, reopens the app, and checks
// that the files are all in their after-state (the recovery rolls forward),
// that status reports the recovery, and that the index equals a clean
// reindex of the files.
func TestDeleteConceptCrashAfterEachFile(t *testing.T) {
	ctx := context.Background()
	// the after-state, from a delete that is not interrupted
	clean := conceptVault(t)
	ca := openAppAt(t, clean)
	if _, err := ca.Sync(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	res, err := ca.Concepts.Delete(ctx, concepts.DeleteInput{Concept: "Target", Unlink: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unlinked) != 19 || res.PageDeleted == "" {
		t.Fatalf("delete = %+v, want 19 notes unlinked and the page deleted", res)
	}
	ca.Close()
	want := treetest.NotesOnly(treetest.Files(t, clean))

	for k := 0; k <= 20; k++ {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			t.Parallel()
			dir := conceptVault(t)
			a := openAppAt(t, dir)
			if _, err := a.Sync(ctx, false, nil); err != nil {
				t.Fatal(err)
			}
			before := treetest.NotesOnly(treetest.Files(t, dir))
			remove := setHook(a.Vault, func(i int) error {
				if i == k {
					return errCrash
				}
				return nil
			})
			_, err := a.Concepts.Delete(ctx, concepts.DeleteInput{Concept: "Target", Unlink: true})
			remove()
			if !errors.Is(err, errCrash) {
				t.Fatalf("delete: %v", err)
			}
			if got := treetest.NotesOnly(treetest.Files(t, dir)); k > 0 && k < 20 && (treetest.Same(got, before) || treetest.Same(got, want)) {
				t.Fatal("the crash left no mix to recover from; the hook runs at the wrong place")
			}
			a.Close()

			a = openAppAt(t, dir) // reopen: recovers and re-indexes
			defer a.Close()
			if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, want) {
				t.Fatalf("after recovery the files are:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(want))
			}
			st, err := a.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if r := st.RecoveredChangeset; r == nil || r.Action != vault.RolledForward || len(r.Files) != 20 {
				t.Fatalf("status recovered_changeset = %+v", r)
			}
			got := indexDump(t, a)
			if _, err := a.Sync(ctx, true, nil); err != nil {
				t.Fatal(err)
			}
			if clean := indexDump(t, a); got != clean {
				t.Fatalf("index after recovery:\n%s\nclean reindex:\n%s", got, clean)
			}
			if strings.Contains(got, "concepts/Target.md") {
				t.Error("the deleted page is still indexed")
			}
		})
	}
}

var errCrash = errors.New("simulated crash")

// setHook installs fn as v's fault hook and returns the function that
// removes it.
func setHook(v *vault.Vault, fn func(i int) error) (remove func()) {
	v.FaultHook = fn
	return func() { v.FaultHook = nil }
}

// TestMergeCrashAfterEachFile stops merge_concepts after each file of its
// changeset (8 notes rewritten, the target's page rewritten, the source's
// page deleted) and checks that reopening finishes it: the files are those
// of an uninterrupted merge and the index equals a clean reindex.
func TestMergeCrashAfterEachFile(t *testing.T) {
	ctx := context.Background()
	mergeVault := func(t *testing.T) string {
		dir := t.TempDir()
		write := func(rel, content string) { treetest.Write(t, dir, rel, content) }
		write("concepts/Target.md", "---\nconcept: Target\n---\n# Target\n")
		write("concepts/Targt.md", "---\nconcept: Targt\naliases: [Trgt]\nrelated:\n  - \"[[Other]]\"\n---\n# Targt\n")
		for i := range 8 {
			write(fmt.Sprintf("notes/n%02d.md", i), fmt.Sprintf("[[Targt]] and [[Trgt|the target]] near [[Other]] %d\n", i))
		}
		return dir
	}
	force := false
	in := concepts.MergeInput{Sources: []string{"Targt"}, Target: "Target", DryRun: &force, Force: true}
	// Pages record when noema first wrote them: one clock for every run.
	now := func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }
	clean := mergeVault(t)
	ca := openAppAt(t, clean)
	ca.Concepts.Now = now
	if _, err := ca.Sync(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Concepts.Merge(ctx, in); err != nil {
		t.Fatal(err)
	}
	ca.Close()
	want := treetest.NotesOnly(treetest.Files(t, clean))
	const files = 10
	for k := 0; k <= files; k++ {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			t.Parallel()
			dir := mergeVault(t)
			a := openAppAt(t, dir)
			a.Concepts.Now = now
			if _, err := a.Sync(ctx, false, nil); err != nil {
				t.Fatal(err)
			}
			remove := setHook(a.Vault, func(i int) error {
				if i == k {
					return errCrash
				}
				return nil
			})
			_, err := a.Concepts.Merge(ctx, in)
			remove()
			if !errors.Is(err, errCrash) {
				t.Fatalf("merge: %v", err)
			}
			a.Close()
			a = openAppAt(t, dir)
			defer a.Close()
			if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, want) {
				t.Fatalf("after recovery the files are:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(want))
			}
			got := indexDump(t, a)
			if _, err := a.Sync(ctx, true, nil); err != nil {
				t.Fatal(err)
			}
			if clean := indexDump(t, a); got != clean {
				t.Fatalf("index after recovery:\n%s\nclean reindex:\n%s", got, clean)
			}
		})
	}
}

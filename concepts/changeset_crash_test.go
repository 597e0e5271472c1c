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

// crashRun opens the vault at dir, syncs it and runs op with a crash (the
// fault hook fails) at change k of op's changeset: op must fail with that
// crash, or succeed when k < 0. The app is closed after.
func crashRun(t *testing.T, dir string, k int, op func(a *app.App) error) {
	t.Helper()
	a := openAppAt(t, dir)
	defer a.Close()
	noematest.Sync(t, a)
	remove := setHook(a.Vault, func(i int) error {
		if i == k {
			return errCrash
		}
		return nil
	})
	defer remove()
	err := op(a)
	if k < 0 && err != nil {
		t.Fatal(err)
	}
	if k >= 0 && !errors.Is(err, errCrash) {
		t.Fatalf("crash at change %d: %v", k, err)
	}
}

// reopened reopens the vault at dir, which recovers an interrupted
// changeset, and checks that its notes are want. The app is closed when
// the test ends.
func reopened(t *testing.T, dir string, want map[string]string) *app.App {
	t.Helper()
	a := openAppAt(t, dir)
	t.Cleanup(func() { a.Close() })
	if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, want) {
		t.Fatalf("after recovery the files are:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(want))
	}
	return a
}

// sameAsReindex checks that a's index equals a clean reindex of its files
// and returns its dump (see indexDump) from before the reindex.
func sameAsReindex(t *testing.T, a *app.App) string {
	t.Helper()
	got := indexDump(t, a)
	if _, err := a.Sync(context.Background(), true, nil); err != nil {
		t.Fatal(err)
	}
	if clean := indexDump(t, a); got != clean {
		t.Fatalf("index after recovery:\n%s\nclean reindex:\n%s", got, clean)
	}
	return got
}

// TestDeleteConceptCrashAfterEachFile stops delete_concept --unlink after
// each file of its 20-file changeset in turn, reopens the app, and checks
// that the files are all in their after-state (the recovery rolls forward),
// that status reports the recovery, and that the index equals a clean
// reindex of the files.
func TestDeleteConceptCrashAfterEachFile(t *testing.T) {
	ctx := context.Background()
	in := concepts.DeleteInput{Concept: "Target", Unlink: true}
	del := func(a *app.App) error {
		_, err := a.Concepts.Delete(ctx, in)
		return err
	}
	// the after-state, from a delete that is not interrupted
	clean := conceptVault(t)
	var res *concepts.DeleteResult
	crashRun(t, clean, -1, func(a *app.App) (err error) {
		res, err = a.Concepts.Delete(ctx, in)
		return err
	})
	if len(res.Unlinked) != 19 || res.PageDeleted == "" {
		t.Fatalf("delete = %+v, want 19 notes unlinked and the page deleted", res)
	}
	want := treetest.NotesOnly(treetest.Files(t, clean))

	for k := 0; k <= 20; k++ {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			t.Parallel()
			dir := conceptVault(t)
			before := treetest.NotesOnly(treetest.Files(t, dir))
			crashRun(t, dir, k, del)
			if got := treetest.NotesOnly(treetest.Files(t, dir)); k > 0 && k < 20 && (treetest.Same(got, before) || treetest.Same(got, want)) {
				t.Fatal("the crash left no mix to recover from; the hook runs at the wrong place")
			}

			a := reopened(t, dir, want)
			st, err := a.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if r := st.RecoveredChangeset; r == nil || r.Action != vault.RolledForward || len(r.Files) != 20 {
				t.Fatalf("status recovered_changeset = %+v", r)
			}
			if got := sameAsReindex(t, a); strings.Contains(got, "concepts/Target.md") {
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
	merge := func(a *app.App) error {
		// Pages record when noema first wrote them: one clock for every run.
		a.Concepts.Now = func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }
		_, err := a.Concepts.Merge(ctx, in)
		return err
	}
	clean := mergeVault(t)
	crashRun(t, clean, -1, merge)
	want := treetest.NotesOnly(treetest.Files(t, clean))
	const files = 10
	for k := 0; k <= files; k++ {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			t.Parallel()
			dir := mergeVault(t)
			crashRun(t, dir, k, merge)
			sameAsReindex(t, reopened(t, dir, want))
		})
	}
}

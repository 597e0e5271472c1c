package vault_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/vault"
)

var errCrash = errors.New("simulated crash")

// twenty writes a vault whose 20-file changeset replaces 18 notes (in two
// folders), deletes one and creates one (in a new folder).
func twenty(t *testing.T) (dir string, plan func(v *vault.Vault) *noema.Changeset) {
	t.Helper()
	dir = t.TempDir()
	for i := range 19 {
		treetest.Write(t, dir, fmt.Sprintf("f%d/n%02d.md", i%2, i), fmt.Sprintf("# note %d\n\nsee [[X]]\n", i))
	}
	plan = func(v *vault.Vault) *noema.Changeset {
		var cs noema.Changeset
		for i := range 19 {
			rel := fmt.Sprintf("f%d/n%02d.md", i%2, i)
			old, _, err := v.ReadFile(rel)
			if err != nil {
				t.Fatal(err)
			}
			if i == 7 {
				cs.Remove(rel, old)
				continue
			}
			cs.Replace(rel, old, []byte(strings.ReplaceAll(string(old), "[[X]]", "X")))
		}
		cs.Create("new/created.md", []byte("# created\n"))
		if len(cs.Changes) != 20 {
			t.Fatalf("%d changes", len(cs.Changes))
		}
		return &cs
	}
	return dir, plan
}

func apply(ctx context.Context, v *vault.Vault, cs *noema.Changeset) error {
	return v.Locked(ctx, func(w *vault.Writer) error { return w.Apply(ctx, cs) })
}

// noLeftovers checks that no journal and no temporary file remain.
func noLeftovers(t *testing.T, dir string) {
	t.Helper()
	for p := range treetest.Files(t, dir) {
		if strings.HasPrefix(filepath.Base(p), ".") {
			t.Errorf("temporary file left: %s", p)
		}
	}
	noJournal(t, dir)
}

// noJournal checks that no journal, complete or not, remains.
func noJournal(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{vault.JournalFile, vault.JournalFile + ".tmp"} {
		if _, err := os.Stat(filepath.Join(dir, ".noema", name)); err == nil {
			t.Errorf("%s left", name)
		}
	}
}

func TestChangesetApply(t *testing.T) {
	ctx := context.Background()
	dir, plan := twenty(t)
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	before := treetest.Files(t, dir)
	cs := plan(v)
	if err := apply(ctx, v, cs); err != nil {
		t.Fatal(err)
	}
	after := treetest.Files(t, dir)
	if _, ok := after["f1/n07.md"]; ok {
		t.Error("deleted file still there")
	}
	if after["new/created.md"] != "# created\n" {
		t.Error("created file missing")
	}
	if after["f0/n00.md"] != "# note 0\n\nsee X\n" {
		t.Errorf("f0/n00.md = %q", after["f0/n00.md"])
	}
	if len(after) != len(before) {
		t.Errorf("%d files, want %d", len(after), len(before))
	}
	noLeftovers(t, dir)
	if r, err := v.Recover(ctx); err != nil || r != nil {
		t.Errorf("Recover after a complete apply = %v, %v", r, err)
	}
}

// TestChangesetNeedsLock: Apply is a method of the held lock, so that
// code without it does not compile; a Writer kept past its Locked function
// no longer holds the lock and changes nothing.
func TestChangesetNeedsLock(t *testing.T) {
	dir, plan := twenty(t)
	v, _ := vault.Open(dir)
	before := treetest.Files(t, dir)
	var kept *vault.Writer
	if err := v.Locked(context.Background(), func(w *vault.Writer) error { kept = w; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := kept.Apply(context.Background(), plan(v)); err == nil {
		t.Fatal("Apply after the write lock was released succeeded")
	}
	if !treetest.Same(before, treetest.Files(t, dir)) {
		t.Error("files changed")
	}
}

// TestChangesetCrashAfterEachFile stops a 20-file changeset after each
// file in turn (0: journal written, nothing renamed; 20: everything renamed,
// journal still there), reopens the vault and recovers: every file must be
// in its after-state; with the temporary files gone (a sync removed them),
// every file must be back in its before-state. Never a mix.
func TestChangesetCrashAfterEachFile(t *testing.T) {
	ctx := context.Background()
	for _, lostTemps := range []bool{false, true} {
		for k := 0; k <= 20; k++ {
			t.Run(fmt.Sprintf("lostTemps=%v/k=%d", lostTemps, k), func(t *testing.T) {
				dir, plan := twenty(t)
				v, _ := vault.Open(dir)
				before := treetest.NotesOnly(treetest.Files(t, dir))
				cs := plan(v)
				crashAt(ctx, t, v, cs, k)
				if lostTemps {
					for p := range treetest.Files(t, dir) {
						if strings.Contains(filepath.Base(p), ".tmp-") {
							os.Remove(filepath.Join(dir, p))
						}
					}
				}

				v2, _ := vault.Open(dir) // "reopen"
				rec, err := v2.Recover(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if rec == nil || len(rec.Files) != 20 || len(rec.Conflicts) != 0 {
					t.Fatalf("recovery = %+v", rec)
				}
				got := treetest.NotesOnly(treetest.Files(t, dir))
				// the after-state, by a clean apply on a copy
				cdir, cplan := twenty(t)
				cv, _ := vault.Open(cdir)
				if err := apply(ctx, cv, cplan(cv)); err != nil {
					t.Fatal(err)
				}
				want := treetest.NotesOnly(treetest.Files(t, cdir))
				action := vault.RolledForward
				if lostTemps && k < 20 {
					want, action = before, vault.RolledBack
				}
				if !treetest.Same(got, want) {
					t.Fatalf("after recovery (%s), the files are:\n%swant:\n%s", rec.Action, treetest.Describe(got), treetest.Describe(want))
				}
				if rec.Action != action {
					t.Errorf("action %s, want %s", rec.Action, action)
				}
				noLeftovers(t, dir)
				if v2.LastRecovery() != rec {
					t.Error("LastRecovery does not report the recovery")
				}
				if r, err := v2.Recover(ctx); err != nil || r != nil {
					t.Errorf("second Recover = %+v, %v", r, err)
				}
			})
		}
	}
}

// TestChangesetChangedBeforeApply: a file changed between plan and apply
// stops the apply with checksum_mismatch, and nothing is written.
func TestChangesetChangedBeforeApply(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, path, content string
		sum                 string
	}{
		{"edited", "f1/n13.md", "edited by hand\n", noema.Checksum([]byte("edited by hand\n"))},
		{"created meanwhile", "new/created.md", "someone else's\n", noema.Checksum([]byte("someone else's\n"))},
		{"deleted meanwhile", "f0/n04.md", "", noema.Absent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, plan := twenty(t)
			v, _ := vault.Open(dir)
			cs := plan(v)
			p := filepath.Join(dir, filepath.FromSlash(tc.path))
			if tc.sum == noema.Absent {
				os.Remove(p)
			} else {
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(tc.content), 0o644)
			}
			before := treetest.Files(t, dir)
			err := apply(ctx, v, cs)
			if noema.ErrorCode(err) != noema.ECHECKSUM {
				t.Fatalf("apply: %v, want checksum_mismatch", err)
			}
			var e *noema.Error
			errors.As(err, &e)
			if e.Details["path"] != tc.path || e.Details["checksum"] != tc.sum {
				t.Errorf("details %v, want path %s checksum %s", e.Details, tc.path, tc.sum)
			}
			if after := treetest.Files(t, dir); !treetest.Same(before, after) {
				t.Errorf("files changed:\n%s", treetest.Describe(after))
			}
			noLeftovers(t, dir)
		})
	}
}

// TestChangesetEditorDuringApply: an editor that takes no lock changes a
// file after some were renamed: the apply rolls back what it did and
// reports checksum_mismatch; the editor's change stays.
func TestChangesetEditorDuringApply(t *testing.T) {
	ctx := context.Background()
	dir, plan := twenty(t)
	v, _ := vault.Open(dir)
	before := treetest.NotesOnly(treetest.Files(t, dir))
	cs := plan(v)
	edited := filepath.Join(dir, filepath.FromSlash(cs.Changes[10].Path))
	remove := setHook(v, func(i int) error {
		if i == 10 {
			return os.WriteFile(edited, []byte("the editor's version\n"), 0o644)
		}
		return nil
	})
	defer remove()
	if err := apply(ctx, v, cs); noema.ErrorCode(err) != noema.ECHECKSUM {
		t.Fatalf("apply: %v, want checksum_mismatch", err)
	}
	want := before
	want[cs.Changes[10].Path] = "the editor's version\n"
	if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, want) {
		t.Fatalf("files after the rollback:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(want))
	}
	noLeftovers(t, dir)
}

// TestChangesetConflictAfterCrash: a file another program changed after
// the crash is left alone and reported; the rest is rolled forward.
func TestChangesetConflictAfterCrash(t *testing.T) {
	ctx := context.Background()
	dir, plan := twenty(t)
	v, _ := vault.Open(dir)
	cs := plan(v)
	crashAt(ctx, t, v, cs, 5)
	other := cs.Changes[12].Path
	os.WriteFile(filepath.Join(dir, filepath.FromSlash(other)), []byte("changed after the crash\n"), 0o644)
	rec, err := v.Recover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Action != vault.RolledForward || len(rec.Conflicts) != 1 || rec.Conflicts[0] != other {
		t.Fatalf("recovery = %+v", rec)
	}
	got := treetest.Files(t, dir)
	if got[other] != "changed after the crash\n" {
		t.Errorf("%s overwritten: %q", other, got[other])
	}
	if got[cs.Changes[13].Path] != string(cs.Changes[13].After) {
		t.Errorf("%s not rolled forward", cs.Changes[13].Path)
	}
	noLeftovers(t, dir)
}

// TestChangesetTruncatedJournal: a journal cut short (a crash while it was
// written) is not a journal: recovery sets it aside and changes no file,
// which is safe because nothing is renamed before the journal is complete.
// The same holds for a journal that never got its final name.
func TestChangesetTruncatedJournal(t *testing.T) {
	ctx := context.Background()
	for _, cut := range []string{"empty", "header", "half", "one byte short", "never renamed"} {
		t.Run(cut, func(t *testing.T) {
			dir, plan := twenty(t)
			v, _ := vault.Open(dir)
			before := treetest.NotesOnly(treetest.Files(t, dir))
			crashAt(ctx, t, v, plan(v), 0)
			jp := filepath.Join(dir, ".noema", vault.JournalFile)
			data, err := os.ReadFile(jp)
			if err != nil {
				t.Fatal(err)
			}
			switch cut {
			case "empty":
				data = nil
			case "header":
				data = data[:strings.IndexByte(string(data), '\n')+1]
			case "half":
				data = data[:len(data)/2]
			case "one byte short":
				data = data[:len(data)-1]
			}
			if cut == "never renamed" {
				if err := os.Rename(jp, jp+".tmp"); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(jp, data, 0o600); err != nil {
				t.Fatal(err)
			}
			rec, err := v.Recover(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if cut == "never renamed" {
				if rec != nil {
					t.Errorf("recovery = %+v, want none", rec)
				}
			} else if rec == nil || rec.Action != vault.Discarded {
				t.Errorf("recovery = %+v, want discarded", rec)
			}
			if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, before) {
				t.Fatalf("files changed:\n%s", treetest.Describe(got))
			}
			noJournal(t, dir)
			// the vault works: the same changeset applies now
			if err := apply(ctx, v, plan(v)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestChangesetJournalOutsideVault: a journal naming a path outside the
// vault is refused, not followed.
func TestChangesetJournalOutsideVault(t *testing.T) {
	ctx := context.Background()
	dir, plan := twenty(t)
	v, _ := vault.Open(dir)
	crashAt(ctx, t, v, plan(v), 0)
	jp := filepath.Join(dir, ".noema", vault.JournalFile)
	data, _ := os.ReadFile(jp)
	tampered := strings.Replace(string(data), `"path":"f0/n00.md"`, `"path":"../outside.md"`, 1)
	if tampered == string(data) {
		t.Fatal("journal format changed; update the test")
	}
	// a valid checksum over the tampered body
	os.WriteFile(jp, []byte(vault.ResealJournal([]byte(tampered))), 0o600)
	rec, err := v.Recover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Action != vault.Discarded {
		t.Errorf("recovery = %+v, want discarded", rec)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside.md")); err == nil {
		t.Error("wrote outside the vault")
	}
}

// crashAt applies cs to v with a crash (the fault hook fails) at its
// change k, and fails the test unless the apply reports that crash.
func crashAt(ctx context.Context, t *testing.T, v *vault.Vault, cs *noema.Changeset, k int) {
	t.Helper()
	remove := setHook(v, func(i int) error {
		if i == k {
			return errCrash
		}
		return nil
	})
	err := apply(ctx, v, cs)
	remove()
	if !errors.Is(err, errCrash) {
		t.Fatalf("apply: %v", err)
	}
}

// setHook installs fn as v's fault hook and returns the function that
// removes it.
func setHook(v *vault.Vault, fn func(i int) error) (remove func()) {
	v.FaultHook = fn
	return func() { v.FaultHook = nil }
}

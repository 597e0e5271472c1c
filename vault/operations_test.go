package vault_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/vault"
)

func undo(ctx context.Context, v *vault.Vault, id string, force bool) (*vault.Undone, error) {
	return vault.LockedValue(ctx, v, func(w *vault.Writer) (*vault.Undone, error) { return w.Undo(ctx, id, force) })
}

// onlyOperation returns the one operation in v's log.
func onlyOperation(ctx context.Context, t *testing.T, v *vault.Vault) vault.Operation {
	t.Helper()
	ops, _, err := v.Operations(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1 {
		t.Fatalf("%d operations in the log, want 1: %+v", len(ops), ops)
	}
	return ops[0]
}

// TestOperationUndoRedo: a changeset naming its operation is recorded;
// undoing it gives every file its bytes back (the created one removed, the
// deleted one restored), and undoing the undo makes the change again.
func TestOperationUndoRedo(t *testing.T) {
	ctx := context.Background()
	dir, plan := twenty(t)
	v, _ := vault.Open(dir)
	before := treetest.NotesOnly(treetest.Files(t, dir))
	cs := plan(v)
	cs.Operation = "merge_concepts"
	if err := apply(ctx, v, cs); err != nil {
		t.Fatal(err)
	}
	after := treetest.NotesOnly(treetest.Files(t, dir))
	op := onlyOperation(ctx, t, v)
	if op.Tool != "merge_concepts" || len(op.Files) != 20 || time.Since(op.At) > time.Minute {
		t.Fatalf("operation = %+v", op)
	}
	if f := op.Files[19]; f.Path != "new/created.md" || f.Before != noema.Absent || f.After != noema.Checksum([]byte("# created\n")) {
		t.Errorf("created file recorded as %+v", f)
	}
	res, err := undo(ctx, v, op.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reverted) != 20 || len(res.Skipped) != 0 || res.Operation == "" {
		t.Fatalf("undo = %+v", res)
	}
	if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, before) {
		t.Fatalf("after undo:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(before))
	}
	ops, _, _ := v.Operations(ctx, 0, 0)
	if len(ops) != 2 || ops[0].ID != res.Operation || ops[0].Tool != vault.UndoTool || ops[1].ID != op.ID {
		t.Fatalf("log after undo: %+v", ops)
	}
	if _, err := undo(ctx, v, res.Operation, false); err != nil { // redo
		t.Fatal(err)
	}
	if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, after) {
		t.Fatalf("after redo:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(after))
	}
	// Paging: newest first.
	page, total, err := v.Operations(ctx, 0, 1)
	if err != nil || len(page) != 1 || total != 3 {
		t.Fatalf("page 1 = %+v, %d, %v", page, total, err)
	}
	rest, _, err := v.Operations(ctx, 1, 0)
	if err != nil || len(rest) != 2 || rest[0].ID != res.Operation {
		t.Fatalf("page 2 = %+v, %v", rest, err)
	}
	noLeftovers(t, dir)
}

// TestOperationNotRecorded: a changeset naming no operation leaves the log
// empty.
func TestOperationNotRecorded(t *testing.T) {
	ctx := context.Background()
	dir, plan := twenty(t)
	v, _ := vault.Open(dir)
	if err := apply(ctx, v, plan(v)); err != nil {
		t.Fatal(err)
	}
	if ops, _, err := v.Operations(ctx, 0, 0); err != nil || len(ops) != 0 {
		t.Fatalf("log = %+v, %v", ops, err)
	}
}

// TestOperationUndoConflict: a file edited by hand since the operation
// stops the undo (conflict naming it, nothing written); with force the
// other files are reverted and the edited one is reported.
func TestOperationUndoConflict(t *testing.T) {
	ctx := context.Background()
	dir, plan := twenty(t)
	v, _ := vault.Open(dir)
	before := treetest.NotesOnly(treetest.Files(t, dir))
	cs := plan(v)
	cs.Operation = "move_note"
	if err := apply(ctx, v, cs); err != nil {
		t.Fatal(err)
	}
	op := onlyOperation(ctx, t, v)
	treetest.Write(t, dir, "f0/n04.md", "edited by hand\n")
	edited := treetest.NotesOnly(treetest.Files(t, dir))
	_, err := undo(ctx, v, op.ID, false)
	if noema.ErrorCode(err) != noema.ECONFLICT {
		t.Fatalf("undo after a hand edit: %v, want conflict", err)
	}
	if e, _ := err.(*noema.Error); e == nil || !slices.Equal(e.Details["files"].([]string), []string{"f0/n04.md"}) {
		t.Errorf("conflict details: %#v", err)
	}
	if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, edited) {
		t.Fatal("a refused undo changed files")
	}
	res, err := undo(ctx, v, op.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reverted) != 19 || !slices.Equal(res.Skipped, []string{"f0/n04.md"}) {
		t.Fatalf("forced undo = %+v", res)
	}
	want := maps(before)
	want["f0/n04.md"] = "edited by hand\n"
	if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, want) {
		t.Fatalf("after forced undo:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(want))
	}
	if _, err := undo(ctx, v, "20260101T000000.000000000Z-00000000", false); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Errorf("undo of an unknown id: %v", err)
	}
	if _, err := undo(ctx, v, "../../x", false); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("undo of an invalid id: %v", err)
	}
}

func maps(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestOperationLogBounded: entries older than the age limit go, then the
// oldest until the log fits its size; the newest always stays.
func TestOperationLogBounded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	v, _ := vault.Open(dir)
	logDir := filepath.Join(dir, ".noema", vault.OperationsDir)
	// an entry from 40 days ago, left by an earlier run
	old := time.Now().Add(-40*24*time.Hour).UTC().Format("20060102T150405.000000000Z") + "-0badc0de"
	treetest.Write(t, dir, ".noema/operations/"+old+".json", "noema-operation 1 sha256:00\n{}")
	write := func(i int) {
		t.Helper()
		rel := fmt.Sprintf("n%d.md", i)
		cs := &noema.Changeset{Operation: "move_note"}
		cs.Create(rel, make([]byte, 1000))
		if err := apply(ctx, v, cs); err != nil {
			t.Fatal(err)
		}
	}
	write(0)
	if _, err := os.Stat(filepath.Join(logDir, old+".json")); !os.IsNotExist(err) {
		t.Fatalf("an entry 40 days old stays (default limit 30 days): %v", err)
	}
	v.OperationLimits = vault.OperationLimits{MaxBytes: 5000} // about 3 entries of 1,000 bytes (base64) each
	for i := 1; i < 10; i++ {
		write(i)
	}
	ops, _, err := v.Operations(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	entries, _ := os.ReadDir(logDir)
	for _, e := range entries {
		info, _ := e.Info()
		total += info.Size()
	}
	if total > 5000 || len(ops) < 2 || ops[0].Files[0].Path != "n9.md" {
		t.Fatalf("log of %d bytes holds %d entries, newest %+v", total, len(ops), ops[0])
	}
	for i, op := range ops {
		if want := fmt.Sprintf("n%d.md", 9-i); op.Files[0].Path != want {
			t.Errorf("entry %d is of %s, want %s (oldest pruned first)", i, op.Files[0].Path, want)
		}
	}
	v.OperationLimits = vault.OperationLimits{MaxBytes: 1}
	write(10)
	if ops, _, _ := v.Operations(ctx, 0, 0); len(ops) != 1 || ops[0].Files[0].Path != "n10.md" {
		t.Fatalf("over the limit, the log holds %+v; want the newest only", ops)
	}
}

// TestOperationCrash: a crash at any point of a recorded changeset leaves,
// after recovery, the change and its entry together: both when it rolls
// forward, neither when it rolls back.
func TestOperationCrash(t *testing.T) {
	ctx := context.Background()
	for _, lostTemps := range []bool{false, true} {
		for _, k := range []int{0, 1, 10, 19, 20} {
			t.Run(fmt.Sprintf("lostTemps=%v/k=%d", lostTemps, k), func(t *testing.T) {
				dir, plan := twenty(t)
				v, _ := vault.Open(dir)
				before := treetest.NotesOnly(treetest.Files(t, dir))
				cs := plan(v)
				cs.Operation = "delete_concept"
				crashAt(ctx, t, v, cs, k)
				if lostTemps {
					for p := range treetest.Files(t, dir) {
						if filepath.Base(p)[0] == '.' {
							os.Remove(filepath.Join(dir, p))
						}
					}
				}
				v2, _ := vault.Open(dir)
				rec, err := v2.Recover(ctx)
				if err != nil || rec == nil {
					t.Fatalf("recover = %+v, %v", rec, err)
				}
				ops, _, err := v2.Operations(ctx, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				if rec.Action == vault.RolledBack {
					if len(ops) != 0 {
						t.Fatalf("rolled back, but the log holds %+v", ops)
					}
					return
				}
				if len(ops) != 1 || ops[0].Tool != "delete_concept" {
					t.Fatalf("rolled forward, log = %+v", ops)
				}
				if _, err := undo(ctx, v2, ops[0].ID, false); err != nil {
					t.Fatal(err)
				}
				if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, before) {
					t.Fatalf("after recovery and undo:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(before))
				}
			})
		}
	}
}

// TestOperationUndoCrash: an undo killed at any point (the fault hook
// after the journal, after each file, before the journal goes) is, after
// recovery, either not done — the files as the operation left them, the
// log without the undo — or done: the files as before the operation and
// the undo in the log, undoable (redo).
func TestOperationUndoCrash(t *testing.T) {
	ctx := context.Background()
	for _, k := range []int{0, 1, 10, 19, 20} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			dir, plan := twenty(t)
			v, _ := vault.Open(dir)
			before := treetest.NotesOnly(treetest.Files(t, dir))
			cs := plan(v)
			cs.Operation = "merge_concepts"
			if err := apply(ctx, v, cs); err != nil {
				t.Fatal(err)
			}
			after := treetest.NotesOnly(treetest.Files(t, dir))
			op := onlyOperation(ctx, t, v)
			remove := setHook(v, func(i int) error {
				if i == k {
					return errCrash
				}
				return nil
			})
			_, err := undo(ctx, v, op.ID, false)
			remove()
			if !errors.Is(err, errCrash) {
				t.Fatalf("undo: %v", err)
			}
			v2, _ := vault.Open(dir)
			rec, err := v2.Recover(ctx)
			if err != nil || rec == nil || rec.Action != vault.RolledForward {
				t.Fatalf("recover = %+v, %v", rec, err)
			}
			if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, before) {
				t.Fatalf("after the recovered undo:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(before))
			}
			ops, _, err := v2.Operations(ctx, 0, 0)
			if err != nil || len(ops) != 2 || ops[0].Tool != vault.UndoTool {
				t.Fatalf("log = %+v, %v", ops, err)
			}
			if _, err := undo(ctx, v2, ops[0].ID, false); err != nil {
				t.Fatal(err)
			}
			if got := treetest.NotesOnly(treetest.Files(t, dir)); !treetest.Same(got, after) {
				t.Fatalf("after redo:\n%swant:\n%s", treetest.Describe(got), treetest.Describe(after))
			}
			noLeftovers(t, dir)
		})
	}
}

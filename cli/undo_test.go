package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUndoMerge: a merge applied from the command line shows in history
// and noema undo gives every file its bytes back; a hand edit since makes
// undo a conflict (exit 1) until --force.
func TestUndoMerge(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "A", "--content", "[[GC]] and [[Garbage Collection]]")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "B", "--content", "only [[GC]]")
	read := func() (string, string) {
		a, _ := os.ReadFile(filepath.Join(vault, "A.md"))
		b, _ := os.ReadFile(filepath.Join(vault, "B.md"))
		return string(a), string(b)
	}
	a0, b0 := read()
	runJSON(t, vault, 0, nil, "concept", "merge", "GC", "--into", "Garbage Collection", "--apply", "--force")
	if a, _ := read(); a == a0 {
		t.Fatal("the merge changed nothing")
	}
	var hist struct {
		Operations []struct {
			ID, Tool string
			Files    []string
		}
		Total int
	}
	runJSON(t, vault, 0, &hist, "history")
	if hist.Total != 1 || hist.Operations[0].Tool != "merge_concepts" || len(hist.Operations[0].Files) < 2 {
		t.Fatalf("history = %+v", hist)
	}
	id := hist.Operations[0].ID
	if out, code := run(t, vault, "", "history"); code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "merge_concepts") {
		t.Errorf("history text: exit %d, %q", code, out)
	}
	var undone struct {
		Operation string
		Reverted  []string
	}
	runJSON(t, vault, 0, &undone, "undo", id)
	if a, b := read(); a != a0 || b != b0 || undone.Operation == "" {
		t.Fatalf("after undo %+v: A = %q, B = %q", undone, a, b)
	}
	// Redo, edit B by hand, then undo the redo.
	runJSON(t, vault, 0, nil, "undo", undone.Operation)
	var redo struct{ Operations []struct{ ID string } }
	runJSON(t, vault, 0, &redo, "history", "--limit", "1")
	if err := os.WriteFile(filepath.Join(vault, "B.md"), []byte("# B\n\nby hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var conflict errOut
	runJSON(t, vault, 1, &conflict, "undo", redo.Operations[0].ID)
	if conflict.Error.Code != "conflict" || !strings.Contains(conflict.Error.Message, "B") {
		t.Fatalf("undo after a hand edit: %+v", conflict)
	}
	var forced struct{ Reverted, Skipped []string }
	runJSON(t, vault, 0, &forced, "undo", redo.Operations[0].ID, "--force")
	if a, b := read(); a != a0 || b != "# B\n\nby hand\n" || len(forced.Skipped) != 1 {
		t.Fatalf("after forced undo %+v: A = %q, B = %q", forced, a, b)
	}
}

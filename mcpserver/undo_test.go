package mcpserver_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/noema-mem/noema/mcpserver"
)

// TestUndoMergeOverMCP: merge_concepts applied over MCP, found with
// list_operations and reverted with undo_operation, leaves the notes as
// they were; undo_operation of an unknown id is not_found.
func TestUndoMergeOverMCP(t *testing.T) {
	cs, a := connect(t, mcpserver.Options{})
	mustCall(t, cs, "write_note", map[string]any{"title": "A", "content": "[[GC]] and [[Garbage Collection]]"}, nil)
	mustCall(t, cs, "write_note", map[string]any{"title": "B", "content": "only [[GC]]"}, nil)
	read := func() string {
		a1, _ := os.ReadFile(filepath.Join(a.Vault.Root, "A.md"))
		b1, _ := os.ReadFile(filepath.Join(a.Vault.Root, "B.md"))
		return string(a1) + "\x00" + string(b1)
	}
	before := read()
	mustCall(t, cs, "merge_concepts", map[string]any{"sources": []string{"GC"}, "target": "Garbage Collection", "dry_run": false, "force": true}, nil)
	merged := read()
	if merged == before {
		t.Fatal("the merge changed nothing")
	}
	var list struct {
		Operations []struct{ ID, Tool string }
		HasMore    bool `json:"has_more"`
	}
	mustCall(t, cs, "list_operations", map[string]any{}, &list)
	if len(list.Operations) != 1 || list.Operations[0].Tool != "merge_concepts" || list.HasMore {
		t.Fatalf("list_operations = %+v", list)
	}
	var undone struct{ Operation string }
	mustCall(t, cs, "undo_operation", map[string]any{"id": list.Operations[0].ID}, &undone)
	if got := read(); got != before {
		t.Fatalf("after undo_operation: %q, want %q", got, before)
	}
	mustCall(t, cs, "undo_operation", map[string]any{"id": undone.Operation}, nil) // redo
	if got := read(); got != merged {
		t.Fatalf("after redo: %q, want %q", got, merged)
	}
	wantFailure(t, cs, "undo_operation", map[string]any{"id": "20200101T000000.000000000Z-00000000"}, "not_found")
}

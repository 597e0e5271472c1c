package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/mcpserver"
	"github.com/noema-mem/noema/sqlite"
)

// TestVaultGoneWhileServing: a vault folder renamed or deleted under a
// running server makes every call answer unavailable naming the folder,
// and nothing is created at the old path. The server recreated an empty
// folder there, acknowledged write_note into it, and answered every index
// read with internal ("no such table: notes").
func TestVaultGoneWhileServing(t *testing.T) {
	for _, c := range []struct {
		name string
		gone func(root string) error
	}{
		{"renamed", func(root string) error { return os.Rename(root, root+"-moved") }},
		{"deleted", os.RemoveAll},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs, a := connect(t, mcpserver.Options{})
			call(t, cs, "write_note", map[string]any{"title": "Pool", "content": "about [[Memory]]"}, nil)
			root := a.Vault.Root
			if err := c.gone(root); err != nil {
				t.Fatal(err)
			}
			for _, call1 := range []struct {
				tool string
				args map[string]any
			}{
				{"write_note", map[string]any{"title": "After", "content": "x"}},
				{"edit_note", map[string]any{"uri": "memory://Pool", "op": "append", "content": "x"}},
				{"read_note", map[string]any{"uri": "memory://Pool"}},
				{"search_notes", map[string]any{"query": "memory"}},
				{"list_concepts", map[string]any{}},
				{"sync", map[string]any{}},
			} {
				got := call(t, cs, call1.tool, call1.args, nil)
				if !strings.HasPrefix(got, "unavailable: ") || !strings.Contains(got, root) {
					t.Errorf("%s with the vault %s: %q, want unavailable naming %s", call1.tool, c.name, got, root)
				}
			}
			if _, err := os.Stat(root); !os.IsNotExist(err) {
				t.Errorf("a folder is back at the old path %s: %v", root, err)
			}
			if _, err := os.Stat(filepath.Join(root+"-moved", "After.md")); err == nil {
				t.Errorf("write_note wrote into the moved vault")
			}
		})
	}
}

// TestIndexDeletedWhileServing: .noema/ deleted under a running server is
// rebuilt from the files at the next call, which answers as before.
func TestIndexDeletedWhileServing(t *testing.T) {
	cs, a := connect(t, mcpserver.Options{})
	call(t, cs, "write_note", map[string]any{"title": "Pool", "content": "about [[Memory]] and pooling"}, nil)
	if err := os.RemoveAll(filepath.Join(a.Vault.Root, ".noema")); err != nil {
		t.Fatal(err)
	}
	// Calls at once: one rebuilds, the others wait for it.
	errs := noematest.Concurrently(6, func(int) error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_notes", Arguments: map[string]any{"query": "pooling", "mode": "fulltext"}})
		if err != nil {
			return err
		}
		var out struct{ Hits []struct{ URI string } }
		b, _ := json.Marshal(res.StructuredContent)
		if json.Unmarshal(b, &out); res.IsError || len(out.Hits) != 1 {
			return fmt.Errorf("search after .noema/ was deleted: %+v %v", out.Hits, res.Content)
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if e := call(t, cs, "write_note", map[string]any{"title": "After", "content": "about [[Memory]]"}, nil); e != "" {
		t.Errorf("write_note after .noema/ was deleted: %s", e)
	}
	var concepts struct{ Concepts []struct{ Label string } }
	if e := call(t, cs, "list_concepts", map[string]any{}, &concepts); e != "" || len(concepts.Concepts) != 1 {
		t.Errorf("list_concepts after the rebuild: %+v %s", concepts, e)
	}
	// Another process (a CLI command) reads the index at its path: it
	// holds both notes.
	db, err := sqlite.Open(context.Background(), filepath.Join(a.Vault.Root, ".noema", "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.Read().QueryRow(`SELECT COUNT(*) FROM notes`).Scan(&n); err != nil || n != 2 {
		t.Errorf("the index file at its path holds %d notes (%v), want 2", n, err)
	}
}

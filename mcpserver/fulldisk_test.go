package mcpserver_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/mcpserver"
)

// vaultFiles lists every file under root but the index's, temporary files
// included.
func vaultFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".noema" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestFullDiskFileWrite: when the disk is full as a note's file is written
// (an injected ENOSPC), write_note, edit_note and move_note answer no_space
// and nothing changed: no file, no temporary file, no folder, the old
// content. They answered internal.
func TestFullDiskFileWrite(t *testing.T) {
	cs, a := connect(t, mcpserver.Options{})
	call(t, cs, "write_note", map[string]any{"title": "Pool", "content": "about [[Memory]]"}, nil)
	before := vaultFiles(t, a.Vault.Root)
	content, _ := os.ReadFile(filepath.Join(a.Vault.Root, "Pool.md"))
	a.Vault.WriteFault = func(string) error { return &fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC} }
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"write_note", map[string]any{"title": "Fresh", "content": "new"}},
		{"write_note", map[string]any{"title": "Pool", "content": "replaced", "overwrite": true}},
		{"edit_note", map[string]any{"uri": "memory://Pool", "op": "append", "content": "more"}},
		{"move_note", map[string]any{"from": "memory://Pool", "to": "archive/Pool"}},
	} {
		got := call(t, cs, c.tool, c.args, nil)
		if !strings.HasPrefix(got, "no_space: ") || !strings.Contains(got, "as it was") {
			t.Errorf("%s on a full disk: %q, want no_space", c.tool, got)
		}
		if after := vaultFiles(t, a.Vault.Root); strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Errorf("%s on a full disk changed the files: %v, was %v", c.tool, after, before)
		}
		if _, err := os.Stat(filepath.Join(a.Vault.Root, "archive")); err == nil {
			t.Errorf("%s on a full disk left the folder archive/", c.tool)
		}
		if now, _ := os.ReadFile(filepath.Join(a.Vault.Root, "Pool.md")); string(now) != string(content) {
			t.Errorf("%s on a full disk changed Pool.md: %q", c.tool, now)
		}
	}
}

// TestFullDiskIndex: when the disk fills after a note's file is in place,
// so that only the index cannot take the change (SQLite's SQLITE_FULL,
// from a database held at its size), the change stands and the answer is a
// success that says the index is behind: one append is one append, even to
// a caller that would retry an error. They answered internal with the
// change on disk. A sync while the index is full is no_space; with room
// again it catches up.
func TestFullDiskIndex(t *testing.T) {
	a := noematest.OpenApp(t, "", app.Options{})
	srv, err := mcpserver.New(a, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := session(t, srv, nil, nil)
	call(t, cs, "write_note", map[string]any{"title": "Pool", "content": "about [[Memory]]"}, nil)
	ctx := context.Background()
	if err := a.DB.LimitGrowth(ctx, 0); err != nil {
		t.Fatal(err)
	}
	var out struct{ Warnings []string }
	big := strings.Repeat("Connection pools bound [[Database]] load. ", 5000) // needs new pages
	steps := []struct {
		tool string
		args map[string]any
	}{
		{"write_note", map[string]any{"title": "Fresh", "content": big}},
		{"edit_note", map[string]any{"uri": "memory://Pool", "op": "append", "content": "appended once " + big}},
		{"move_note", map[string]any{"from": "memory://Fresh", "to": "archive/Fresh"}},
	}
	for _, c := range steps {
		out.Warnings = nil
		if e := call(t, cs, c.tool, c.args, &out); e != "" {
			t.Fatalf("%s with the index full: %s, want success with a warning", c.tool, e)
		}
		if len(out.Warnings) == 0 || !strings.Contains(strings.Join(out.Warnings, "\n"), "no_space: memory://") || !strings.Contains(strings.Join(out.Warnings, "\n"), "saved, but the index is behind") {
			t.Errorf("%s with the index full: warnings %q, want the index behind", c.tool, out.Warnings)
		}
	}
	// Concept and relation writes that changed files and failed to index
	// them say so in their error.
	for _, c := range []struct {
		tool    string
		args    map[string]any
		mayPass bool // when the index has room for it
	}{
		{"update_concept", map[string]any{"concept": "Memory", "description": big[:5000]}, true},
		{"create_relation", map[string]any{"from": "memory://Pool", "type": "depends_on", "to": "Memory"}, false},
	} {
		got := call(t, cs, c.tool, c.args, nil)
		if (got != "" || !c.mayPass) && (!strings.HasPrefix(got, "no_space: memory://") || !strings.Contains(got, "saved, but the index is behind")) {
			t.Errorf("%s with the index full: %q, want success or no_space naming what was saved", c.tool, got)
		}
	}
	pool, _ := os.ReadFile(filepath.Join(a.Vault.Root, "Pool.md"))
	if n := strings.Count(string(pool), "appended once"); n != 1 {
		t.Errorf("Pool.md holds the append %d times", n)
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, "archive", "Fresh.md")); err != nil {
		t.Errorf("the move is not on disk: %v", err)
	}
	if e := call(t, cs, "sync", map[string]any{}, nil); !strings.HasPrefix(e, "no_space: ") {
		t.Errorf("sync with the index full: %q, want no_space", e)
	}
	if err := a.DB.LimitGrowth(ctx, -1); err != nil {
		t.Fatal(err)
	}
	if e := call(t, cs, "sync", map[string]any{}, nil); e != "" {
		t.Fatalf("sync with room again: %s", e)
	}
	var res struct{ Hits []struct{ URI string } }
	if e := call(t, cs, "search_notes", map[string]any{"query": "appended once", "mode": "fulltext"}, &res); e != "" || len(res.Hits) != 1 || res.Hits[0].URI != "memory://Pool" {
		t.Errorf("after the catch-up sync, search finds %+v (%s)", res.Hits, e)
	}
}

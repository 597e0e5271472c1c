package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type statusOut struct {
	Notes, Concepts, Mentions, Links, Relations int
	Warnings                                    []struct{ Path, Code string }
}

type errOut struct {
	Error struct{ Code, Message string }
}

// TestCLIEndToEnd drives the built binary the way a user would: notes
// written with the CLI, files edited, deleted and renamed behind its back,
// then sync, status and reindex compared with what the files say.
func TestCLIEndToEnd(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	for i, c := range []struct{ title, folder, content string }{
		{"Alpha", "", "About [[Gradient Checkpointing]] and [[Memory]].\n"},
		{"Beta", "ml", "Uses [[gradient-checkpointing]] twice: [[Gradient_Checkpointing|GC]].\n```\n[[Not A Link]]\n```\n"},
		{"Gamma", "ml", "Only [[Memory#Limits]].\n"},
		{"日本語のメモ", "", "リンク [[メモリ]]\n"},
	} {
		var w struct{ URI, Path string }
		runJSON(t, vault, 0, &w, "note", "write", "--title", c.title, "--folder", c.folder, "--content", c.content, "--tag", fmt.Sprint("t", i))
		if !strings.HasPrefix(w.URI, "memory://") {
			t.Fatalf("write %s = %+v", c.title, w)
		}
	}
	// The Japanese title keeps a readable file name.
	if _, err := os.Stat(filepath.Join(vault, "日本語のメモ.md")); err != nil {
		t.Errorf("unicode file name: %v", err)
	}
	var st statusOut
	runJSON(t, vault, 0, &st, "status")
	if st.Notes != 4 || st.Concepts != 3 || st.Links != 6 {
		t.Fatalf("status after writes = %+v, want 4 notes, 3 concepts, 6 links", st)
	}

	// Behind the index's back: edit Alpha, delete Gamma, rename Beta.
	if err := os.WriteFile(filepath.Join(vault, "alpha.md"), []byte("---\ntitle: Alpha\n---\nNow only [[Memory]] and [[New Idea]].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(vault, "ml", "gamma.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(vault, "ml", "beta.md"), filepath.Join(vault, "beta-moved.md")); err != nil {
		t.Fatal(err)
	}
	var sync struct{ Added, Updated, Removed, Renamed int }
	runJSON(t, vault, 0, &sync, "sync")
	if sync.Updated != 1 || sync.Removed != 1 || sync.Renamed != 1 || sync.Added != 0 {
		t.Fatalf("sync = %+v", sync)
	}
	// The files now say: alpha → memory, new idea; beta-moved → gradient checkpointing ×2;
	// 日本語のメモ → メモリ.
	runJSON(t, vault, 0, &st, "status")
	if st.Notes != 3 || st.Concepts != 4 || st.Links != 5 || st.Mentions != 4 {
		t.Fatalf("status after sync = %+v, want 3 notes, 4 concepts, 5 links, 4 mentions", st)
	}
	var rebuilt statusOut
	runJSON(t, vault, 0, &rebuilt, "reindex")
	runJSON(t, vault, 0, &rebuilt, "status")
	if fmt.Sprint(rebuilt) != fmt.Sprint(st) {
		t.Errorf("reindex: %+v, before %+v", rebuilt, st)
	}

	// Reads, edits and errors with stable codes and exit statuses.
	var n struct{ Checksum, Content string }
	runJSON(t, vault, 0, &n, "note", "read", "memory://beta-moved")
	var e errOut
	runJSON(t, vault, 1, &e, "note", "edit", "beta-moved", "--op", "append", "--content", "x", "--checksum", "sha256:bad")
	if e.Error.Code != "checksum_mismatch" {
		t.Errorf("stale edit = %+v", e)
	}
	runJSON(t, vault, 0, nil, "note", "edit", "beta-moved", "--op", "append", "--content", "more [[Memory]]", "--checksum", n.Checksum)
	runJSON(t, vault, 1, &e, "note", "read", "../outside")
	if e.Error.Code != "invalid_argument" {
		t.Errorf("traversal read = %+v", e)
	}
	runJSON(t, vault, 1, &e, "note", "write", "--title", "Alpha", "--content", "again")
	if e.Error.Code != "conflict" {
		t.Errorf("overwrite = %+v", e)
	}
	runJSON(t, vault, 1, &e, "note", "delete", "alpha")
	if e.Error.Code != "invalid_argument" {
		t.Errorf("delete without --confirm = %+v", e)
	}
	if _, code := run(t, vault, "", "note", "frobnicate"); code != 2 {
		t.Errorf("usage error exit = %d, want 2", code)
	}
	// Content from stdin.
	out, code := run(t, vault, "piped [[Memory]]\n", "note", "write", "--title", "Piped")
	if code != 0 {
		t.Fatalf("stdin write: %d %s", code, out)
	}
	out, _ = run(t, vault, "", "note", "read", "Piped")
	if !strings.Contains(out, "piped [[Memory]]") {
		t.Errorf("read piped = %q", out)
	}
	var list struct {
		Total int
		Notes []struct{ Path string }
	}
	runJSON(t, vault, 0, &list, "note", "list", "--limit", "2")
	if list.Total != 4 || len(list.Notes) != 2 {
		t.Errorf("list = %+v", list)
	}
}

// TestBadInput is the bad-input table: each case fails with a clear
// code or is skipped with a warning, and nothing already stored is lost.
func TestBadInput(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "Keep", "--content", "[[Precious]]")
	cases := []struct {
		name string
		args []string
		code string
	}{
		{"traversal path", []string{"note", "read", "../../etc/passwd"}, "invalid_argument"},
		{"traversal uri", []string{"note", "read", "memory://a/../../x"}, "invalid_argument"},
		{"absolute path", []string{"note", "read", "/etc/passwd"}, "invalid_argument"},
		{"traversal folder", []string{"note", "write", "--title", "x", "--folder", "../out", "--content", "y"}, "invalid_argument"},
		{"malformed yaml", []string{"note", "write", "--title", "bad", "--content", "---\ntitle: [oops\n---\nbody"}, "invalid_argument"},
		{"invalid utf-8", []string{"note", "write", "--title", "bad2", "--content", "\xff\xfe"}, "invalid_argument"},
		{"move outside", []string{"note", "move", "keep", "../../escaped"}, "invalid_argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e errOut
			runJSON(t, vault, 1, &e, c.args...)
			if e.Error.Code != c.code || e.Error.Message == "" {
				t.Errorf("%v = %+v, want %s", c.args, e, c.code)
			}
		})
	}
	// A 2 MiB note (through stdin: too long for argv) is refused.
	out, code := run(t, vault, strings.Repeat("x", 2<<20), "--json", "note", "write", "--title", "big")
	if code != 1 || !strings.Contains(out, `"too_large"`) {
		t.Errorf("2 MiB note: exit %d, %.200s", code, out)
	}
	// A 10,000-character link is ignored, not an error.
	runJSON(t, vault, 0, nil, "note", "write", "--title", "Long", "--content", "[["+strings.Repeat("l", 10000)+"]] [[Short]]")
	// Files broken behind the index's back are skipped with warnings.
	os.WriteFile(filepath.Join(vault, "keep.md"), []byte("---\nbroken: [\n---\n"), 0o644)
	os.WriteFile(filepath.Join(vault, "huge.md"), []byte(strings.Repeat("h", 2<<20)), 0o644)
	var res struct {
		Skipped  int
		Warnings []struct{ Path, Code string }
	}
	runJSON(t, vault, 0, &res, "sync")
	if res.Skipped != 2 {
		t.Errorf("sync = %+v, want 2 skipped", res)
	}
	var st statusOut
	runJSON(t, vault, 0, &st, "status")
	// Keep's last good version (and its concept) is still indexed.
	if st.Notes != 2 || st.Concepts != 2 || len(st.Warnings) != 2 {
		t.Errorf("status = %+v, want 2 notes, 2 concepts (precious, short), 2 warnings", st)
	}
}

// TestExportSurvivesRebuild is DESIGN's proof that the index is a cache:
// export, delete the whole index, reindex, export again: the same bytes,
// in JSON and GraphML, concept ids and relations included.
func TestExportSurvivesRebuild(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "concept", "create", "Garbage Collection", "--alias", "GC", "--metadata", `{"year":1959}`)
	runJSON(t, vault, 0, nil, "note", "write", "--title", "Paper", "--content", "[[Rust]], [[Go]], [[GC|collector]]\n")
	runJSON(t, vault, 0, nil, "concept", "update", "rust", "--label", "Rust Language")
	runJSON(t, vault, 0, nil, "relation", "create", "rust", "influenced", "go", "--weight", "0.5")
	runJSON(t, vault, 0, nil, "relation", "create", "memory://paper", "cites", "gc")
	var before [2]string
	for i, f := range []string{"json", "graphml"} {
		out, code := run(t, vault, "", "graph", "export", "--format", f)
		if code != 0 || len(out) < 100 {
			t.Fatalf("export %s: %d %q", f, code, out)
		}
		before[i] = out
	}
	if err := os.RemoveAll(filepath.Join(vault, ".noema")); err != nil {
		t.Fatal(err)
	}
	runJSON(t, vault, 0, nil, "reindex")
	for i, f := range []string{"json", "graphml"} {
		out, _ := run(t, vault, "", "graph", "export", "--format", f)
		if out != before[i] {
			t.Errorf("%s export differs after a rebuild from files:\nbefore: %s\nafter:  %s", f, before[i], out)
		}
	}
	if !strings.Contains(before[0], `"Rust Language"`) || !strings.Contains(before[0], `"influenced"`) || !strings.Contains(before[0], `"cites"`) {
		t.Errorf("export is missing what was written: %s", before[0])
	}
}

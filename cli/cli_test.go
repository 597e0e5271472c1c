package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/noema-mem/noema/cli"
	"github.com/noema-mem/noema/httpserver"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/tools"
)

// run runs the command line in process against vault and returns stdout
// and the exit status.
func run(t *testing.T, vault, stdin string, args ...string) (string, int) {
	t.Helper()
	out, errb, code := runAll(t, stdin, append([]string{"--vault", vault}, args...)...)
	if testing.Verbose() && errb != "" {
		t.Logf("stderr of %v: %s", args, errb)
	}
	return out, code
}

// runAll runs the command line with exactly args.
func runAll(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Main(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// runJSON runs with --json, requires exit status want, and decodes stdout.
func runJSON(t *testing.T, vault string, want int, out any, args ...string) {
	t.Helper()
	stdout, code := run(t, vault, "", append([]string{"--json"}, args...)...)
	noematest.CommandJSON(t, args, stdout, code, want, out)
}

type statusOut struct {
	Notes, Concepts, Mentions, Links, Relations int
	Warnings                                    []struct{ Path, Code string }
}

type errOut struct {
	Error struct{ Code, Message string }
}

// TestCLIEndToEnd drives the command line the way a user would: notes
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
	if err := os.WriteFile(filepath.Join(vault, "Alpha.md"), []byte("---\ntitle: Alpha\n---\nNow only [[Memory]] and [[New Idea]].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(vault, "ml", "Gamma.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(vault, "ml", "Beta.md"), filepath.Join(vault, "beta-moved.md")); err != nil {
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
	os.WriteFile(filepath.Join(vault, "Keep.md"), []byte("---\nbroken: [\n---\n"), 0o644)
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

// TestExportSurvivesRebuild is the proof that the index is a cache
// (docs/decisions.md, "Vault and index"):
// export, delete the whole index, reindex, export again: the same bytes,
// in JSON and GraphML, concept ids and relations included.
func TestExportSurvivesRebuild(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "concept", "create", "Garbage Collection", "--alias", "GC", "--metadata", `{"year":1959}`)
	runJSON(t, vault, 0, nil, "note", "write", "--title", "Paper", "--content", "[[Rust]], [[Go]], [[GC|collector]]\n")
	runJSON(t, vault, 0, nil, "concept", "update", "rust", "--label", "Rust Language")
	runJSON(t, vault, 0, nil, "relation", "create", "rust", "influenced", "go", "--weight", "0.5")
	runJSON(t, vault, 0, nil, "relation", "create", "memory://Paper", "cites", "gc")
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

// TestGlobalFlags is how the global flags parse: before or after the
// command, with a value that looks like a flag, and the mistakes that are
// usage errors.
func TestGlobalFlags(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // a substring of stdout
		stderr string // a substring of stderr
	}{
		{"vault without value", []string{"--vault"}, 2, "", "flag needs an argument: --vault"},
		{"vault without value after command", []string{"status", "--vault"}, 2, "", "flag needs an argument: --vault"},
		{"unknown global flag", []string{"--frob", "status"}, 2, "", "flag provided but not defined: --frob"},
		{"unknown command flag", []string{"--vault", vault, "status", "--frob"}, 2, "", "flag provided but not defined: --frob"},
		{"value -v is not eaten", []string{"--vault", vault, "--json", "note", "write", "--title", "-v", "--content", "x"}, 0, `"title": "-v"`, ""},
		{"json after the command", []string{"--vault", vault, "status", "--json"}, 0, `"notes": `, ""},
		{"vault= form", []string{"--vault=" + vault, "--json", "status"}, 0, `"notes": `, ""},
		{"help", []string{"--help"}, 0, "Usage: noema", ""},
		{"-h", []string{"-h"}, 0, "Commands:", ""},
		{"help command", []string{"help"}, 0, "Commands:", ""},
		{"help of a group", []string{"help", "note"}, 0, "write", ""},
		{"help of a command", []string{"help", "concept", "find"}, 0, "--min-score N", ""},
		{"command --help", []string{"note", "edit", "--help"}, 0, "--checksum", ""},
		{"group --help", []string{"graph", "--help"}, 0, "neighbors", ""},
		{"version flag", []string{"--version"}, 0, "noema ", ""},
		{"version command", []string{"version"}, 0, "noema ", ""},
		{"no command", nil, 2, "", "no command given"},
		{"group without command", []string{"note"}, 2, "", "note needs a command"},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"unknown subcommand", []string{"note", "frobnicate"}, 2, "", `unknown command "note frobnicate"`},
		{"missing argument", []string{"--vault", vault, "note", "read"}, 2, "", "takes REF, got 0"},
		{"extra argument", []string{"--vault", vault, "note", "read", "a", "b"}, 2, "", "takes REF, got 2"},
		{"enum", []string{"--vault", vault, "graph", "neighbors", "x", "--direction", "sideways"}, 2, "", "--direction must be one of out, in, both"},
		{"bound", []string{"--vault", vault, "note", "list", "--limit", "501"}, 2, "", "--limit must be at most 500"},
		{"bad number", []string{"--vault", vault, "note", "list", "--limit", "many"}, 2, "", "must be a whole number"},
		{"bad json", []string{"--vault", vault, "concept", "create", "X", "--metadata", "[1]"}, 2, "", "must be a JSON object"},
		{"-- ends flags", []string{"--vault", vault, "--json", "concept", "find", "--", "--limit"}, 0, `"query": "--limit"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errb, code := runAll(t, "", c.args...)
			if code != c.code || !strings.Contains(out, c.stdout) || !strings.Contains(errb, c.stderr) {
				t.Errorf("%q: exit %d (want %d)\nstdout: %s\nstderr: %s", c.args, code, c.code, out, errb)
			}
		})
	}
}

// TestErrorsNameFlags: an error about a parameter names it the way the
// command line spells it.
func TestErrorsNameFlags(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "A", "--content", "x")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"note", "delete", "a"}, "deleting memory://A needs --confirm"},
		{[]string{"note", "write", "--content", "x"}, "--title is required"},
		{[]string{"note", "edit", "a", "--op", "find_replace", "--replace", "y"}, "find_replace needs a non-empty --find"},
		{[]string{"note", "recent", "--since", "yesterday"}, `--since "yesterday" is not a time`},
		{[]string{"concept", "find", " "}, "QUERY is required"},
		{[]string{"concept", "find", "x", "--min-score", "101"}, "--min-score must be at most 100"},
	}
	for _, c := range cases {
		out, errb, code := runAll(t, "", append([]string{"--vault", vault}, c.args...)...)
		if code == 0 || !strings.Contains(errb, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q (stdout %q)", c.args, code, errb, c.want, out)
		}
	}
}

// TestEveryCommandPrintsText: without --json every command prints its text
// rendering, not JSON; with --json, a JSON document.
func TestEveryCommandPrintsText(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "A", "--content", "[[X]] and [[Y]]")
	var rel struct{ ID string }
	runJSON(t, vault, 0, &rel, "relation", "create", "x", "related_to", "y")
	var x struct{ ID string }
	runJSON(t, vault, 0, &x, "concept", "show", "x")
	for _, args := range [][]string{
		{"status"}, {"sync"}, {"note", "list"}, {"note", "recent"},
		{"note", "edit", "a", "--op", "append", "--content", "more"},
		{"concept", "find", "x"}, {"concept", "similar", "x"}, {"concept", "list"}, {"concept", "show", "x"},
		{"concept", "update", "x", "--description", "the letter"},
		{"relation", "show", rel.ID}, {"relation", "update", rel.ID, "--weight", "2"},
		{"graph", "node", x.ID}, {"graph", "neighbors", x.ID}, {"graph", "subgraph", x.ID},
		{"note", "move", "a", "b"}, {"relation", "delete", rel.ID}, {"concept", "create", "Z"},
		{"concept", "delete", "z"}, {"note", "delete", "b", "--confirm"}, {"reindex"},
	} {
		out, code := run(t, vault, "", args...)
		if code != 0 || strings.TrimSpace(out) == "" || strings.HasPrefix(out, "{") {
			t.Errorf("%q: exit %d, text %q", args, code, out)
		}
	}
	out, code := run(t, vault, "", "--json", "concept", "list")
	if code != 0 || !json.Valid([]byte(out)) {
		t.Errorf("--json concept list: exit %d, %q", code, out)
	}
}

// TestHelpListsEveryParameter: each tool's command help shows each of its
// parameters under the name the command line accepts.
func TestHelpListsEveryParameter(t *testing.T) {
	for _, tool := range tools.All() {
		out, _, code := runAll(t, "", append([]string{"help"}, strings.Fields(tool.Command)...)...)
		if code != 0 {
			t.Errorf("help %s: exit %d", tool.Command, code)
			continue
		}
		for _, f := range tools.Fields(tool.In()) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			want := "--" + strings.ReplaceAll(name, "_", "-")
			cliTag := f.Tag.Get("cli")
			switch {
			case cliTag == "-":
				continue
			case strings.HasPrefix(cliTag, "arg"):
				want = strings.ToUpper(name)
				if _, v, ok := strings.Cut(cliTag, "="); ok {
					want, _, _ = strings.Cut(v, ",")
				}
			case strings.HasPrefix(cliTag, "name="):
				want = "--" + strings.TrimPrefix(cliTag, "name=")
			case cliTag == "negate":
				want = "--no-" + strings.ReplaceAll(name, "_", "-")
			case strings.HasPrefix(cliTag, "invert="):
				want = "--" + strings.TrimPrefix(cliTag, "invert=")
			}
			if !strings.Contains(out, want) {
				t.Errorf("help %s does not show %s (%s):\n%s", tool.Command, want, f.Name, out)
			}
		}
	}
}

// TestServeDefaults: the flags' defaults are the HTTP server's.
func TestServeDefaults(t *testing.T) {
	typ := reflect.TypeFor[cli.ServeInput]()
	f, _ := typ.FieldByName("MaxSessions")
	if f.Tag.Get("default") != strconv.Itoa(httpserver.DefaultMaxSessions) {
		t.Errorf("--max-sessions default %s, httpserver's %d", f.Tag.Get("default"), httpserver.DefaultMaxSessions)
	}
	f, _ = typ.FieldByName("SessionTimeout")
	if f.Tag.Get("default") != strconv.Quote(httpserver.DefaultSessionTimeout.String()) {
		t.Errorf("--session-timeout default %s, httpserver's %s", f.Tag.Get("default"), httpserver.DefaultSessionTimeout)
	}
	for _, ts := range tools.Toolsets {
		g, _ := typ.FieldByName("Toolsets")
		if !strings.Contains(g.Tag.Get("jsonschema"), ts.Name) {
			t.Errorf("--toolsets help does not name %s", ts.Name)
		}
	}
}

// TestOptionalArgument: a list argument declared optional may be absent.
func TestOptionalArgument(t *testing.T) {
	_, errb, code := runAll(t, "", "model", "pull", "--dir")
	if code != 2 || !strings.Contains(errb, "flag needs an argument: --dir") {
		t.Errorf("model pull --dir: exit %d, %s", code, errb)
	}
	_, errb, code = runAll(t, "", "note", "move", "a")
	if code != 2 || !strings.Contains(errb, "takes FROM TO, got 1") {
		t.Errorf("a required argument missing: exit %d, %s", code, errb)
	}
}

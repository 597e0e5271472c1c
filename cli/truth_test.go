package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/noema-mem/noema/tools"
)

// TestNegatedFlagsReadAsEnglish: a flag derived by negating a parameter
// (--no-decay, --apply) says what the flag does, over every command: not
// "turn off: <what the parameter does>", not "sets X to false: <what true
// does>", and no "(default true)", which is the parameter's default, not
// the flag's.
func TestNegatedFlagsReadAsEnglish(t *testing.T) {
	seen := 0
	for _, tool := range tools.All() {
		out, _, code := runAll(t, "", append([]string{"help"}, strings.Fields(tool.Command)...)...)
		if code != 0 {
			t.Fatalf("help %s: exit %d", tool.Command, code)
		}
		for _, f := range tools.Fields(tool.In()) {
			cliTag := f.Tag.Get("cli")
			var flag string
			switch {
			case cliTag == "negate":
				flag = "--no-" + strings.ReplaceAll(f.JSON, "_", "-")
			case strings.HasPrefix(cliTag, "invert="):
				flag = "--" + strings.TrimPrefix(cliTag, "invert=")
			default:
				continue
			}
			seen++
			var line string
			for _, l := range strings.Split(out, "\n") {
				if fields := strings.Fields(l); len(fields) > 0 && fields[0] == flag {
					line = l
				}
			}
			help := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), flag))
			positive, _, _ := strings.Cut(f.Tag.Get("jsonschema"), " (default")
			switch {
			case line == "":
				t.Errorf("help %s shows no %s:\n%s", tool.Command, flag, out)
			case help == "":
				t.Errorf("help %s: %s has no help", tool.Command, flag)
			case strings.Contains(help, "turn off:"), strings.Contains(help, "to false:"),
				strings.Contains(help, "default true"), strings.Contains(help, positive):
				t.Errorf("help %s: %q describes the parameter, not what %s does", tool.Command, strings.TrimSpace(line), flag)
			}
		}
	}
	if seen < 5 {
		t.Errorf("%d negated flags over all commands, want the 5 known (decay ×3, rewrite_links, dry_run)", seen)
	}
}

// TestMissingRequiredFlag: a flag the tool requires, left out, is a usage
// error (exit 2) naming it, before the vault is opened.
func TestMissingRequiredFlag(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "A", "--content", "[[Mutexes]] [[Mutex]]")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"concept", "merge", "Mutexes"}, "--into is required"},
		{[]string{"note", "edit", "A", "--content", "x"}, "--op is required"},
		{[]string{"note", "write", "--content", "x"}, "--title is required"},
	} {
		_, errb, code := runAll(t, "", append([]string{"--vault", vault}, c.args...)...)
		if code != 2 || !strings.Contains(errb, c.want) {
			t.Errorf("%q: exit %d (want 2), stderr %q, want %q", c.args, code, errb, c.want)
		}
	}
}

// TestServeBadAddress: an address no listener can take is
// invalid_argument, not internal.
func TestServeBadAddress(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	for _, addr := range []string{"127.0.0.1:99999", "127.0.0.1", "127.0.0.1:-1"} {
		_, errb, code := runAll(t, "", "--vault", vault, "serve", "--addr", addr)
		if code != 1 || !strings.Contains(errb, "invalid_argument") || !strings.Contains(errb, "--addr") {
			t.Errorf("serve --addr %s: exit %d, %q, want invalid_argument naming --addr", addr, code, errb)
		}
	}
}

// TestTextNamesThings: the text rendering names the ends of a relation by
// label (with the id), in `relation create` and in `context`; numbers print
// rounded.
func TestTextNamesThings(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "Pool", "--content", "[[Mutexes]] guard the [[Database]].")
	out, code := run(t, vault, "", "relation", "create", "Mutexes", "depends_on", "Database", "--weight", "0.30000000000000004")
	if code != 0 || !regexp.MustCompile(`: Mutexes \[c_\w+\] -\[depends_on\]-> Database \[c_\w+\] \(weight 0\.3\)`).MatchString(out) {
		t.Errorf("relation create: exit %d, %q, want both ends by label and weight 0.3", code, out)
	}
	out, code = run(t, vault, "", "relation", "create", "memory://Pool", "cites", "Database")
	if code != 0 || !regexp.MustCompile(`: memory://Pool -\[cites\]-> Database \[c_\w+\]`).MatchString(out) {
		t.Errorf("relation create from a note: exit %d, %q", code, out)
	}
	out, code = run(t, vault, "", "context", "Database")
	for _, want := range []string{"<- depends_on Mutexes [c_", "<- cites memory://Pool"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("context Database: exit %d, no %q in\n%s", code, want, out)
		}
	}
	var rel struct {
		FromLabel string `json:"from_label"`
		ToLabel   string `json:"to_label"`
	}
	runJSON(t, vault, 1, nil, "relation", "create", "Mutexes", "depends_on", "Database") // a conflict
	var ctxOut struct {
		Relations []struct {
			OtherLabel string `json:"other_label"`
		}
	}
	runJSON(t, vault, 0, &ctxOut, "context", "Mutexes")
	if len(ctxOut.Relations) != 1 || ctxOut.Relations[0].OtherLabel != "Database" {
		t.Errorf("context Mutexes relations = %+v, want other_label Database", ctxOut.Relations)
	}
	var node struct{ ID string }
	runJSON(t, vault, 0, &node, "concept", "show", "Mutexes")
	var nb struct {
		Neighbors []struct{ Edge struct{ ID, Type string } }
	}
	runJSON(t, vault, 0, &nb, "graph", "neighbors", node.ID, "--type", "depends_on")
	if len(nb.Neighbors) != 1 {
		t.Fatalf("neighbors = %+v", nb)
	}
	runJSON(t, vault, 0, &rel, "relation", "show", nb.Neighbors[0].Edge.ID)
	if rel.FromLabel != "Mutexes" || rel.ToLabel != "Database" {
		t.Errorf("relation show = %+v, want from_label Mutexes, to_label Database", rel)
	}

	// Scores: WRatio rounded to 2 decimals, not 83.33333333333334.
	var found struct{ Candidates []struct{ Score float64 } }
	runJSON(t, vault, 0, &found, "concept", "find", "mutex")
	if len(found.Candidates) == 0 {
		t.Fatal("concept find mutex: no candidates")
	}
	for _, c := range found.Candidates {
		if s := strconv.FormatFloat(c.Score, 'f', -1, 64); len(s) > strings.Index(s+".", ".")+3 {
			t.Errorf("concept find score %s is not rounded", s)
		}
	}
}

// TestSimilarDoesNotPad: find_similar_concepts returns no result with
// nothing in common with the query (similarity 0.000).
func TestSimilarDoesNotPad(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "Pool", "--content", "[[Mutexes]], [[Mutex locks]] and [[Database]].")
	var res struct {
		Results []struct {
			Label      string
			Similarity float64
		}
	}
	runJSON(t, vault, 0, &res, "concept", "similar", "Mutexes")
	if len(res.Results) == 0 {
		t.Fatal("concept similar Mutexes: nothing, want Mutex locks")
	}
	for _, r := range res.Results {
		if r.Similarity < 0.0005 {
			t.Errorf("concept similar Mutexes pads with %q at similarity %.3f", r.Label, r.Similarity)
		}
	}
	out, _ := run(t, vault, "", "concept", "similar", "Mutexes")
	if strings.Contains(out, "similarity 0.000") {
		t.Errorf("concept similar prints a 0.000 result:\n%s", out)
	}
}

// TestMissingModelIsAnError: --embedder minilm without the model on disk
// fails the commands that embed (unavailable, saying how to pull it) instead
// of falling back with exit 0; commands that do not embed still work.
func TestMissingModelIsAnError(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // no model under it
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "Pool", "--content", "[[Mutexes]] and [[Mutex]].")
	for _, args := range [][]string{
		{"concept", "similar", "Mutexes"},
		{"search", "pool"},
		{"search", "--mode", "semantic", "pool"},
		{"concept", "duplicates"},
		{"sync", "--embed"},
	} {
		_, errb, code := runAll(t, "", append([]string{"--vault", vault, "--embedder", "minilm"}, args...)...)
		if code != 1 || !strings.Contains(errb, "unavailable") || !strings.Contains(errb, "noema model pull") {
			t.Errorf("--embedder minilm %q: exit %d, %q, want unavailable saying to pull the model", args, code, errb)
		}
	}
	for _, args := range [][]string{{"note", "read", "Pool"}, {"search", "--mode", "fulltext", "pool"}, {"concept", "find", "mutex"}} {
		if _, errb, code := runAll(t, "", append([]string{"--vault", vault, "--embedder", "minilm"}, args...)...); code != 0 {
			t.Errorf("--embedder minilm %q (no embedding): exit %d, %s", args, code, errb)
		}
	}
}

// TestNotFoundNamesAlternatives: an unknown section lists the note's
// headings; an unknown note names the closest titles.
func TestNotFoundNamesAlternatives(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "Locking", "--content", "# Intro\ntext\n## Details\nmore\n")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "Connection Pool", "--content", "x")
	_, errb, code := runAll(t, "", "--vault", vault, "note", "edit", "Locking", "--op", "replace_section", "--section", "Detail", "--content", "y")
	if code != 1 || !strings.Contains(errb, "not_found") || !strings.Contains(errb, `"# Intro", "## Details"`) {
		t.Errorf("unknown section: exit %d, %q, want not_found listing the headings", code, errb)
	}
	_, errb, code = runAll(t, "", "--vault", vault, "note", "read", "Lockin")
	if code != 1 || !strings.Contains(errb, "not_found") || !strings.Contains(errb, `closest titles: "Locking"`) {
		t.Errorf("unknown note: exit %d, %q, want not_found naming Locking", code, errb)
	}
	_, errb, code = runAll(t, "", "--vault", vault, "graph", "node", "Lockin")
	if code != 1 || !strings.Contains(errb, `closest note titles: "Locking"`) {
		t.Errorf("unknown node: exit %d, %q, want not_found naming the note Locking", code, errb)
	}
	var e struct {
		Error struct {
			Code    string
			Details struct{ Closest []struct{ Title, URI string } }
		}
	}
	runJSON(t, vault, 1, &e, "note", "read", "connection pol")
	if e.Error.Code != "not_found" || len(e.Error.Details.Closest) == 0 || e.Error.Details.Closest[0].Title != "Connection Pool" {
		t.Errorf("unknown note --json = %+v, want details.closest[0] Connection Pool", e)
	}
}

// TestStatusAfterCLIWrites: the command line syncs a never-synced index
// first, so `status` after CLI writes tells when, and a folder of notes
// used for the first time is read as it is.
func TestStatusAfterCLIWrites(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "A", "--content", "[[X]]")
	out, code := run(t, vault, "", "status")
	if code != 0 || strings.Contains(out, "last sync: never") || !strings.Contains(out, "last sync: ") {
		t.Errorf("status after a CLI write: exit %d\n%s", code, out)
	}
	existing := t.TempDir()
	if err := os.WriteFile(filepath.Join(existing, "hello.md"), []byte("hello [[World]]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var res struct{ Total int }
	runJSON(t, existing, 0, &res, "search", "hello")
	if res.Total != 1 {
		t.Errorf("first command on a folder of notes: search found %d notes, want 1", res.Total)
	}
}

// TestSemanticSearchSaysHowToEmbed: ranking by meaning with no note
// embedded says what to run; after it, the notes are found by meaning.
func TestSemanticSearchSaysHowToEmbed(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "Garbage Collection", "--content", "Tracing collectors free unreachable objects.")
	out, code := run(t, vault, "", "search", "--mode", "semantic", "collectors")
	if code != 0 || !strings.Contains(out, "noema sync --embed") {
		t.Errorf("semantic search before embedding: exit %d, %q, want a hint to run noema sync --embed", code, out)
	}
	runJSON(t, vault, 0, nil, "sync", "--embed")
	var res struct {
		Total    int
		Warnings []string
	}
	runJSON(t, vault, 0, &res, "search", "--mode", "semantic", "collectors")
	if res.Total != 1 || len(res.Warnings) != 0 {
		t.Errorf("semantic search after sync --embed = %+v, want 1 hit, no warning", res)
	}
}

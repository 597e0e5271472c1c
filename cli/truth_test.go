package cli_test

import (
	"path/filepath"
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

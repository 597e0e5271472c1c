package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/noema-mem/noema/cli"
)

// TestReadmeFirstFiveMinutes runs the README's "first five minutes", command
// by command, on a new vault: each succeeds and prints what the README
// promises. The README's Go version is go.mod's.
func TestReadmeFirstFiveMinutes(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	section, _, _ := strings.Cut(text[strings.Index(text, "## The first five minutes"):], "\n## ")
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(section)
	if block == nil {
		t.Fatal("no sh block in the README's first five minutes")
	}
	vault := filepath.Join(t.TempDir(), "notes")
	var cmds [][]string
	var stdins []string
	var pending string
	for _, line := range strings.Split(block[1], "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "export ") {
			continue
		}
		if strings.HasSuffix(line, "|") {
			pending = line
			continue
		}
		line, stdin := pending+" "+line, ""
		pending = ""
		if m := regexp.MustCompile(`^\s*echo '([^']*)' \|\s*(.*)$`).FindStringSubmatch(line); m != nil {
			stdin, line = m[1]+"\n", m[2]
		}
		words := shellWords(t, line)
		if len(words) == 0 || words[0] != "noema" {
			t.Fatalf("README command %q does not run noema", line)
		}
		cmds, stdins = append(cmds, words[1:]), append(stdins, stdin)
	}
	if len(cmds) < 6 {
		t.Fatalf("%d commands in the README's first five minutes", len(cmds))
	}
	outputs := ""
	for i, args := range cmds {
		out, errb, code := runAll(t, stdins[i], append([]string{"--vault", vault}, args...)...)
		if code != cli.ExitOK {
			t.Fatalf("README: noema %s: exit %d, %s", strings.Join(args, " "), code, errb)
		}
		outputs += out
	}
	for _, want := range []string{"created memory://Garbage Collection", "Memory Management [c_", "Tracing collectors free"} {
		if !strings.Contains(outputs, want) {
			t.Errorf("the README's commands printed no %q:\n%s", want, outputs)
		}
	}

	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if goVersion == nil || !strings.Contains(text, "Go "+string(goVersion[1])+" or newer") {
		t.Errorf("the README does not say Go %s or newer", goVersion[1])
	}
	for _, want := range []string{"go install github.com/noema-mem/noema/cmd/noema@latest", "-race", "cgo", "C compiler", "SIGTERM"} {
		if !strings.Contains(text, want) {
			t.Errorf("the README does not mention %q", want)
		}
	}
}

// shellWords splits a command line as sh would for the README's simple
// commands: words, double- or single-quoted strings.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	for _, m := range regexp.MustCompile(`"([^"]*)"|'([^']*)'|(\S+)`).FindAllStringSubmatch(line, -1) {
		words = append(words, m[1]+m[2]+m[3])
	}
	return words
}

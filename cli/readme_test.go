package cli_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema/cli"
	"github.com/noema-mem/noema/tools"
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
	built := false
	for _, line := range strings.Split(block[1], "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "export ") {
			continue
		}
		// The first command builds the binary the others run (this test
		// runs the same code in process).
		if !built {
			if line != buildCommand {
				t.Fatalf("the README's first five minutes start with %q, not by building the binary (%s)", line, buildCommand)
			}
			built = true
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
	for _, want := range []string{buildCommand, "go install ./cmd/noema", "git clone", "-race", "cgo", "C compiler", "SIGTERM"} {
		if !strings.Contains(text, want) {
			t.Errorf("the README does not mention %q", want)
		}
	}
	// The module is not published: no instruction may fetch it by version.
	for _, b := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(text, -1) {
		if strings.Contains(b[1], "@latest") || regexp.MustCompile(`go (install|get) github\.com/`).MatchString(b[1]) {
			t.Errorf("a README command fetches the unpublished module:\n%s", b[1])
		}
	}
	// The first screen: exactly two set-up commands, serving a vault and the tests.
	setup := readmeSection(t, text, "Set up on a fresh machine")
	var setupCmds []string
	for _, b := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(setup, -1) {
		setupCmds = append(setupCmds, strings.TrimSpace(b[1]))
	}
	if want := []string{"go run ./cmd/noema --vault ~/notes serve", "go test -race ./..."}; !slices.Equal(setupCmds, want) {
		t.Errorf("set-up commands = %q, want %q", setupCmds, want)
	}
}

// buildCommand builds noema from a clone, as the README says.
const buildCommand = "CGO_ENABLED=0 go build -o noema ./cmd/noema"

// readmeSection returns the text of the README's "## title" section.
func readmeSection(t *testing.T, text, title string) string {
	t.Helper()
	i := strings.Index(text, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("the README has no section %q", title)
	}
	section, _, _ := strings.Cut(text[i+1:], "\n## ")
	return section
}

// TestReadmeListsEveryToolAndCommand: the README's MCP table lists each
// toolset's tools exactly (all 27), its command list every command with
// only flags the command has, and the Layout table every tool and command
// with a package that exists.
func TestReadmeListsEveryToolAndCommand(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)

	// The MCP table: one row per toolset.
	mcpSection := readmeSection(t, text, "MCP")
	listed := 0
	for _, ts := range tools.Toolsets {
		row := regexp.MustCompile(`(?m)^\| ` + ts.Name + ` \| (.*) \|$`).FindStringSubmatch(mcpSection)
		if row == nil {
			t.Errorf("the README's MCP table has no row for toolset %s", ts.Name)
			continue
		}
		var got, want []string
		for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(row[1], -1) {
			got = append(got, m[1])
		}
		for _, tool := range tools.MCPTools(ts.Name) {
			want = append(want, tool.Name)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("README toolset %s lists %v, the registry %v", ts.Name, got, want)
		}
		listed += len(got)
	}
	if n := len(tools.MCPTools()); listed != n || !strings.Contains(mcpSection, fmt.Sprintf("The %d tools", n)) {
		t.Errorf("the README's MCP table lists %d tools and says so, the registry has %d", listed, n)
	}

	// The command list: a line per command, with its real flags.
	cl := readmeSection(t, text, "The command line")
	block := regexp.MustCompile("(?s)```\n(.*?)```").FindStringSubmatch(cl)
	if block == nil {
		t.Fatal("no command list in the README's command line section")
	}
	lines := strings.Split(block[1], "\n")
	commands := []string{"serve", "mcp", "help", "version"}
	for _, tool := range tools.All() {
		commands = append(commands, tool.Command)
	}
	for _, cmd := range groupCommands(t) { // and those that are not tools: store migrate, vault push…
		if !slices.Contains(commands, cmd) {
			commands = append(commands, cmd)
		}
	}
	for _, cmd := range commands {
		var line string
		for _, l := range lines {
			if l == "noema "+cmd || strings.HasPrefix(l, "noema "+cmd+" ") {
				line = l
			}
		}
		if line == "" {
			t.Errorf("the README's command list has no line for noema %s", cmd)
			continue
		}
		if cmd == "help" || cmd == "version" {
			continue
		}
		help, _, code := runAll(t, "", append([]string{"help"}, strings.Fields(cmd)...)...)
		if code != 0 {
			t.Fatalf("help %s: exit %d", cmd, code)
		}
		for _, flag := range regexp.MustCompile(`--[a-z][a-z-]*`).FindAllString(line, -1) {
			if !regexp.MustCompile(`(?m)^\s+` + flag + `\b`).MatchString(help) {
				t.Errorf("README: noema %s shows %s, which the command does not have", cmd, flag)
			}
		}
	}

	// The Layout table: every tool and command, each with a package.
	layout := readmeSection(t, text, "Layout")
	rows := regexp.MustCompile("(?m)^\\| (.*) \\| (.*) \\| (.*) \\|$").FindAllStringSubmatch(layout, -1)
	names := map[string]bool{}
	for _, r := range rows {
		if r[1] == "tool" {
			continue // the header
		}
		for _, col := range r[1:3] {
			for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(col, -1) {
				names[m[1]] = true
			}
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(r[3], -1) {
			if fi, err := os.Stat(filepath.Join("..", m[1])); err != nil || !fi.IsDir() {
				t.Errorf("the README's Layout table names package %s, which is not in the tree", m[1])
			}
		}
	}
	for _, tool := range tools.All() {
		if !names[tool.Command] || (tool.Name != "" && !names[tool.Name]) {
			t.Errorf("the README's Layout table does not map %s (%s) to a package", tool.Command, tool.Name)
		}
	}
}

// groupCommands returns every command of a group ("note write", "store
// migrate") as `noema help GROUP` lists them.
func groupCommands(t *testing.T) []string {
	t.Helper()
	usage, _, _ := runAll(t, "", "help")
	_, list, _ := strings.Cut(usage, "\nCommands:\n")
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z-]+) `).FindAllStringSubmatch(list, -1) {
		help, _, _ := runAll(t, "", "help", m[1])
		if !strings.HasPrefix(help, "Usage: noema "+m[1]+" COMMAND") {
			continue // a command, not a group
		}
		_, subs, _ := strings.Cut(help, "\nCommands:\n")
		for _, sub := range regexp.MustCompile(`(?m)^  ([a-z-]+)  `).FindAllStringSubmatch(subs, -1) {
			out = append(out, m[1]+" "+sub[1])
		}
	}
	if !slices.Contains(out, "store migrate") || !slices.Contains(out, "note write") {
		t.Fatalf("the groups' help lists %q: not every command", out)
	}
	return out
}

// TestReadmeLayoutMatchesTree: the Layout section names every folder of
// Go code in the repository, and every folder it names exists.
func TestReadmeLayoutMatchesTree(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	layout := readmeSection(t, string(readme), "Layout")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z0-9][a-z0-9/_-]*|\\.)`").FindAllStringSubmatch(layout, -1) {
		named[m[1]] = true
	}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		dir, _ := filepath.Rel("..", filepath.Dir(path))
		if dir = filepath.ToSlash(dir); !named[dir] {
			named[dir] = true // report once
			t.Errorf("the README's Layout does not name %s", dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("`((?:cmd|internal|embedding|semantic|e2e)/[a-z0-9/_-]*)`").FindAllStringSubmatch(layout, -1) {
		if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
			t.Errorf("the README's Layout names %s, which is not in the tree", m[1])
		}
	}
}

// TestDocReferencesExist: no comment or page points at a document the
// repository does not hold (DESIGN.md, BENCH.md and the "seed documents"
// were never in it); every docs/*.md named exists.
func TestDocReferencesExist(t *testing.T) {
	gone := regexp.MustCompile(`DESIGN\.md|BENCH\.md|DESIGN §|DESIGN's|[Ss]eed (document )?0\d\d`)
	docRef := regexp.MustCompile(`docs/[A-Za-z0-9_-]+\.md`)
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md")) || strings.HasSuffix(path, "readme_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range gone.FindAllString(string(b), -1) {
			t.Errorf("%s points at %q, which is not in the repository (point at docs/)", path, m)
		}
		for _, m := range docRef.FindAllString(string(b), -1) {
			if _, err := os.Stat(filepath.Join("..", m)); err != nil {
				t.Errorf("%s points at %s, which does not exist", path, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
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

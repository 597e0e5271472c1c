package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/internal/noematest"
)

// binary is the noema binary built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "noema-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "noema")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build noema: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run executes the real binary against vault and returns stdout and the
// exit status.
func run(t *testing.T, vault, stdin string, args ...string) (string, int) {
	t.Helper()
	out, errs, code, err := execute(vault, stdin, args...)
	if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	if testing.Verbose() && errs != "" {
		t.Logf("stderr of %v: %s", args, errs)
	}
	return out, code
}

// execute runs the real binary against vault with stdin as its input and
// returns its stdout, its stderr and its exit status; err is an error
// other than a non-zero exit (the binary did not start, say).
func execute(vault, stdin string, args ...string) (stdout, stderr string, code int, err error) {
	cmd := exec.Command(binary, append([]string{"--vault", vault}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	return out.String(), errb.String(), 0, err
}

// seededVault returns a new vault holding one note, Seed, which links
// [[Seed]].
func seededVault(t *testing.T) string {
	t.Helper()
	vault := filepath.Join(t.TempDir(), "vault")
	runJSON(t, vault, 0, nil, "note", "write", "--title", "Seed", "--content", "[[Seed]]")
	return vault
}

// runJSON runs with --json, requires exit status want, and decodes stdout.
func runJSON(t *testing.T, vault string, want int, out any, args ...string) {
	t.Helper()
	stdout, code := run(t, vault, "", append([]string{"--json"}, args...)...)
	noematest.CommandJSON(t, args, stdout, code, want, out)
}

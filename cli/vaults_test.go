package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/cli"
)

// runEnv runs the command line with env as its whole environment and
// returns stdout, stderr and the exit status.
func runEnv(env map[string]string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	c := &cli.CLI{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	code := c.Run(context.Background(), args)
	return out.String(), errb.String(), code
}

// TestVaultNames: how --vault and NOEMA_VAULT name vaults, and which one a
// command runs on.
func TestVaultNames(t *testing.T) {
	root := t.TempDir()
	work, home, plain := filepath.Join(root, "w"), filepath.Join(root, "h"), filepath.Join(root, "a=b")
	for _, dir := range []string{work, home, plain} {
		if _, _, code := runEnv(nil, "--vault", dir, "note", "write", "--title", "In "+filepath.Base(dir), "--content", "x"); code != 0 {
			t.Fatalf("write into %s: exit %d", dir, code)
		}
	}
	both := "work=" + work + string(os.PathListSeparator) + "home=" + home
	scenarios := []struct {
		Name string
		Env  map[string]string
		Args []string
		Code int
		Want string // in stdout, or stderr on failure
	}{
		{"plain dir is default", nil, []string{"--vault", work, "vault", "list"}, 0, "default (default)\n"},
		{"named flags", nil, []string{"--vault", "work=" + work, "--vault", "home=" + home, "vault", "list"}, 0, "work (default)\nhome\n"},
		{"the first runs", nil, []string{"--vault", "work=" + work, "--vault", "home=" + home, "note", "list"}, 0, "In w"},
		{"env lists", map[string]string{"NOEMA_VAULT": both}, []string{"vault", "list"}, 0, "work (default)\nhome\n"},
		{"env's first", map[string]string{"NOEMA_VAULT": both}, []string{"note", "list"}, 0, "In w"},
		{"--vault NAME picks", map[string]string{"NOEMA_VAULT": both}, []string{"--vault", "home", "note", "list"}, 0, "In h"},
		{"--vault NAME picked", map[string]string{"NOEMA_VAULT": both}, []string{"--vault", "home", "vault", "list"}, 0, "home (default)\n"},
		{"vault list opens no vault", nil, []string{"--vault", "x=" + filepath.Join(root, "none"), "vault", "list"}, 0, "x (default)\n"},
		{"a=b is a folder", nil, []string{"--vault", plain, "note", "list"}, 0, "In a=b"},
		{"two bare folders", nil, []string{"--vault", work, "--vault", home, "note", "list"}, 2, "give each one as --vault NAME=DIR"},
		{"a name twice", nil, []string{"--vault", "x=" + work, "--vault", "x=" + home, "note", "list"}, 2, `two vaults are named "x"`},
	}
	for _, s := range scenarios {
		t.Run(s.Name, func(t *testing.T) {
			out, errs, code := runEnv(s.Env, s.Args...)
			if code != s.Code {
				t.Fatalf("exit %d, want %d (stdout %q, stderr %q)", code, s.Code, out, errs)
			}
			if !strings.Contains(out+errs, s.Want) {
				t.Errorf("output %q%q lacks %q", out, errs, s.Want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "none")); err == nil {
		t.Error("vault list made the folder of a vault it lists")
	}
}

// TestServeTokenFile: serve refuses a malformed token file, or one naming
// a vault it does not serve, at start, with a clear error.
func TestServeTokenFile(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "w")
	file := func(body string, mode os.FileMode) string {
		p := filepath.Join(t.TempDir(), "tokens.yaml")
		os.WriteFile(p, []byte(body), mode)
		return p
	}
	for _, s := range []struct{ Name, Path, Want string }{
		{"malformed", file("tokens:\n  - {name: a, token: abcdefgh, vaults: [work], access: rw}\n", 0o600),
			`line 2: access "rw": want read_only or read_write`},
		{"unknown vault", file("tokens:\n  - {name: a, token: abcdefgh, vaults: [wrok], access: read_only}\n", 0o600),
			`token "a" names vault "wrok", which this server does not serve (it serves work)`},
		{"missing", filepath.Join(root, "none.yaml"), "does not exist"},
	} {
		t.Run(s.Name, func(t *testing.T) {
			_, errs, code := runEnv(nil, "--vault", "work="+work, "serve", "--addr", "127.0.0.1:0", "--token-file", s.Path)
			if code != cli.ExitError || !strings.Contains(errs, s.Want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errs, s.Want)
			}
		})
	}
}

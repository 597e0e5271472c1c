package main

import (
	"strings"
	"testing"
)

// errOut is the --json form of an error.
type errOut struct {
	Error struct{ Code, Message string }
}

// TestBinaryCLI runs the real binary as a user's shell does: content on
// standard input, the note's text on standard output, the exit statuses of
// success, failure and a usage mistake. Everything else about the command
// line is tested in process (package cli).
func TestBinaryCLI(t *testing.T) {
	vault := t.TempDir() + "/vault"
	if out, code := run(t, vault, "piped [[Memory]]\n", "note", "write", "--title", "Piped"); code != 0 || !strings.HasPrefix(out, "created memory://Piped") {
		t.Fatalf("write from stdin: exit %d, %q", code, out)
	}
	if out, code := run(t, vault, "", "note", "read", "Piped"); code != 0 || !strings.Contains(out, "piped [[Memory]]") {
		t.Errorf("read: exit %d, %q", code, out)
	}
	var e errOut
	runJSON(t, vault, 1, &e, "note", "delete", "piped")
	if e.Error.Code != "invalid_argument" || !strings.Contains(e.Error.Message, "--confirm") {
		t.Errorf("delete without --confirm = %+v", e)
	}
	if _, code := run(t, vault, "", "note", "frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if out, code := run(t, vault, "", "--version"); code != 0 || !strings.HasPrefix(out, "noema ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

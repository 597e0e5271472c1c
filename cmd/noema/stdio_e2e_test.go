package main

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestStdioAnswersInFlightAtEndOfInput drives the real binary: a write
// blocked on the index (another process holds SQLite's write lock) is in
// flight when the client closes its input; once the lock is released the
// write completes, its reply is written, and noema mcp exits 0. A malformed
// line before it got a parse error without ending the session.
func TestStdioAnswersInFlightAtEndOfInput(t *testing.T) {
	vault := seededVault(t)
	cmd, stdin, stdout, stderr := rawMCP(t, vault)

	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}`) // truncated
	if line, err := stdout.ReadString('\n'); err != nil || !strings.Contains(line, `"code":-32700`) {
		t.Fatalf("malformed line: %q %v", line, err)
	}

	release := holdIndexLock(t, vault)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_note","arguments":{"title":"In flight at EOF","content":"x [[Seed]]"}}}`)
	time.Sleep(500 * time.Millisecond)
	stdin.Close()
	time.Sleep(700 * time.Millisecond)
	if err := release(); err != nil {
		t.Fatal(err)
	}

	rest, _ := io.ReadAll(stdout)
	if !strings.Contains(string(rest), `"id":3,"result"`) || !strings.Contains(string(rest), `created memory://In flight at EOF`) {
		t.Errorf("no reply to the write in flight at the end of input: %s\nstderr: %s", rest, stderr)
	}
	wantExit(t, cmd, 10*time.Second, 0)
	runJSON(t, vault, 0, nil, "note", "read", "In flight at EOF")
}

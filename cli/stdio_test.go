package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/cli"
)

// runMCP runs `noema mcp` in process on input (its end is the end of
// input) and returns every line it wrote, decoded, and its exit status.
func runMCP(t *testing.T, vault, input string) ([]map[string]any, int) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var out, errb bytes.Buffer
	c := &cli.CLI{Stdin: strings.NewReader(input), Stdout: &out, Stderr: &errb, Stop: cancel}
	code := c.Run(ctx, []string{"--vault", vault, "mcp"})
	var msgs []map[string]any
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
		msgs = append(msgs, m)
	}
	if testing.Verbose() {
		t.Logf("stderr: %s", errb.String())
	}
	return msgs, code
}

const initLines = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// TestStdioEndOfInput: the input ends right after the requests (a client
// that writes its requests and closes the pipe); every request read is
// answered, its reply written, before noema mcp exits 0.
func TestStdioEndOfInput(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	input := initLines +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_note","arguments":{"title":"Piped","content":"about [[Memory]]"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sync","arguments":{"rebuild":true}}}` + "\n" +
		`{"jsonrpc":"2.0","id":"four","method":"tools/call","params":{"name":"export_graph","arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"method":"ping"}` // no newline at the very end
	msgs, code := runMCP(t, vault, input)
	if code != cli.ExitOK {
		t.Errorf("exit %d", code)
	}
	got := map[string]bool{}
	for _, m := range msgs {
		b, _ := json.Marshal(m["id"])
		if m["error"] != nil {
			t.Errorf("error reply %v", m)
		}
		got[string(b)] = true
	}
	for _, id := range []string{"1", "2", "3", `"four"`, "5"} {
		if !got[id] {
			t.Errorf("no reply to request %s (replies: %v)", id, got)
		}
	}
}

// TestStdioMalformedLines: a line that is not JSON gets a parse error
// (-32700), JSON that is no JSON-RPC message an invalid request (-32600),
// and the session goes on.
func TestStdioMalformedLines(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	input := initLines +
		"this is not json\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"` + "\n" + // truncated
		`{"id":3,"method":"ping"}` + "\n" + // no jsonrpc version
		"\n" + // blank lines are skipped
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"status","arguments":{}}}` + "\n"
	msgs, code := runMCP(t, vault, input)
	if code != cli.ExitOK {
		t.Errorf("exit %d", code)
	}
	var codes []float64
	var ids []any
	answered := false
	for _, m := range msgs {
		if e, ok := m["error"].(map[string]any); ok {
			codes = append(codes, e["code"].(float64))
			ids = append(ids, m["id"])
		}
		if m["id"] == 4.0 && m["result"] != nil {
			answered = true
		}
	}
	if len(codes) != 3 || codes[0] != -32700 || codes[1] != -32700 || codes[2] != -32600 || ids[0] != nil || ids[2] != 3.0 {
		t.Errorf("error replies: codes %v, ids %v", codes, ids)
	}
	if !answered {
		t.Errorf("the session did not go on after malformed lines: %v", msgs)
	}
}

// TestStdioLongLine: a line over maxLine (16 MiB) gets a parse
// error naming the limit, and the session goes on: the requests after it
// are answered. (The SDK's transport ended the session at 16 MiB without a
// word.)
func TestStdioLongLine(t *testing.T) {
	const maxLine = 16 << 20 // cli.MaxLineBytes
	vault := filepath.Join(t.TempDir(), "vault")
	for _, size := range []int{maxLine + 1, maxLine + 4<<20} {
		big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_note","arguments":{"title":"Big","content":"`
		big += strings.Repeat("x", size-len(big)-len(`"}}}`)) + `"}}}`
		if len(big) != size {
			t.Fatalf("line of %d bytes, want %d", len(big), size)
		}
		input := initLines + big + "\n" +
			`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
		msgs, code := runMCP(t, vault, input)
		if code != cli.ExitOK {
			t.Errorf("size %d: exit %d", size, code)
		}
		var parseErr, pong bool
		for _, m := range msgs {
			if e, ok := m["error"].(map[string]any); ok && e["code"] == -32700.0 && m["id"] == nil &&
				strings.Contains(e["message"].(string), "16 MiB") {
				parseErr = true
			}
			if m["id"] == 3.0 && m["result"] != nil {
				pong = true
			}
		}
		if !parseErr || !pong {
			t.Errorf("size %d: parse error %v, later request answered %v; replies %v", size, parseErr, pong, msgs)
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioClient starts `noema mcp` on vault (with more global flags, when
// given) and connects the SDK client to it.
func stdioClient(t *testing.T, vault string, flags ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(binary, append(append([]string{"--vault", vault}, flags...), "mcp")...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to noema mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any, out any) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s", res.Content[0].(*mcp.TextContent).Text)
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		return json.Unmarshal(b, out)
	}
	return nil
}

func TestStdioServer(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	os.MkdirAll(vault, 0o755)
	os.WriteFile(filepath.Join(vault, "existing.md"), []byte("Before start: [[Preexisting]]\n"), 0o644)
	cs := stdioClient(t, vault)
	ctx := context.Background()
	if cs.InitializeResult().Instructions == "" {
		t.Error("no server instructions")
	}
	var w struct{ URI, Checksum string }
	if err := callTool(ctx, cs, "write_note", map[string]any{"title": "Over Stdio", "content": "[[Preexisting]] again"}, &w); err != nil {
		t.Fatal(err)
	}
	if err := callTool(ctx, cs, "edit_note", map[string]any{"uri": w.URI, "op": "append", "content": "x", "expected_checksum": "sha256:stale"}, nil); err == nil || !strings.HasPrefix(err.Error(), "checksum_mismatch:") {
		t.Errorf("stale edit: %v", err)
	}
	// The background first sync and the watcher pick up files written behind the server's back.
	os.WriteFile(filepath.Join(vault, "behind.md"), []byte("[[Watched Concept]]\n"), 0o644)
	deadline := time.Now().Add(15 * time.Second)
	for {
		var st struct {
			Notes, Concepts int
			Role            string
		}
		if err := callTool(ctx, cs, "status", map[string]any{}, &st); err != nil {
			t.Fatal(err)
		}
		if st.Notes == 3 && st.Concepts == 2 && st.Role == "indexer" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status = %+v, want 3 notes, 2 concepts, indexer role", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestConcurrentStdioServers runs 4 server processes on one vault (as 4 MCP
// clients would), 250 writes each plus reads: every note lands intact, no
// call fails with "database is locked", one process is the indexer, and
// the index agrees with the files after a sync.
func TestConcurrentStdioServers(t *testing.T) {
	if testing.Short() {
		t.Skip("long: 1,000 writes through 4 processes")
	}
	const procs, writes = 4, 250
	vault := filepath.Join(t.TempDir(), "vault")
	var sessions []*mcp.ClientSession
	for range procs {
		sessions = append(sessions, stdioClient(t, vault))
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, procs*writes*2)
	for p, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writes {
				title := fmt.Sprintf("p%d note %03d", p, i)
				content := fmt.Sprintf("written by %d: [[Shared Concept]] [[Proc %d]] [[Item %d]]\n", p, p, i%10)
				var w struct{ URI string }
				if err := callTool(ctx, cs, "write_note", map[string]any{"title": title, "content": content, "folder": fmt.Sprintf("p%d", p)}, &w); err != nil {
					errs <- fmt.Errorf("write %s: %w", title, err)
					continue
				}
				if i%5 == 0 {
					var n struct{ Content string }
					if err := callTool(ctx, cs, "read_note", map[string]any{"uri": w.URI}, &n); err != nil {
						errs <- fmt.Errorf("read %s: %w", w.URI, err)
					} else if !strings.Contains(n.Content, content) {
						errs <- fmt.Errorf("read %s: content %q", w.URI, n.Content)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n < 10 {
			t.Error(err)
		}
		n++
	}
	if n > 0 {
		t.Fatalf("%d failed calls", n)
	}
	roles := map[string]int{}
	for _, cs := range sessions {
		var st struct{ Role string }
		callTool(ctx, cs, "status", map[string]any{}, &st)
		roles[st.Role]++
	}
	if roles["indexer"] != 1 || roles["reader"] != procs-1 {
		t.Errorf("roles = %v, want exactly one indexer", roles)
	}
	// Every file is present and intact.
	for p := range procs {
		for i := range writes {
			b, err := os.ReadFile(filepath.Join(vault, fmt.Sprintf("p%d", p), fmt.Sprintf("p%d note %03d.md", p, i)))
			if err != nil || !strings.Contains(string(b), fmt.Sprintf("written by %d: [[Shared Concept]]", p)) {
				t.Fatalf("note p%d/%d: %v %q", p, i, err, b)
			}
		}
	}
	var st struct{ Notes, Concepts, Links int }
	if err := callTool(ctx, sessions[0], "sync", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	callTool(ctx, sessions[0], "status", map[string]any{}, &st)
	// Concepts: shared + 4 procs + 10 items.
	if st.Notes != procs*writes || st.Concepts != 1+procs+10 || st.Links != 3*procs*writes {
		t.Errorf("status = %+v, want %d notes, %d concepts, %d links", st, procs*writes, 1+procs+10, 3*procs*writes)
	}
}

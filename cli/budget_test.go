package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBudgetFlags: the command line takes --max-tokens and --cursor on the
// budgeted commands, pages through every hit once with them, refuses a
// cursor given other arguments naming the flag, and exports the whole
// graph by default (the file it writes is the whole graph), paging it only
// when asked.
func TestBudgetFlags(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	if err := os.MkdirAll(vault, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		body := fmt.Sprintf("Note %d on the memory limit of containers, linking [[Concept %d]] and [[Memory]]. %s\n", i, i, strings.Repeat("More words about memory and limits. ", 8))
		if err := os.WriteFile(filepath.Join(vault, fmt.Sprintf("Note %02d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type page struct {
		Hits []struct {
			URI string
		}
		Tokens     int
		MaxTokens  int `json:"max_tokens"`
		Truncated  bool
		NextCursor string `json:"next_cursor"`
	}
	seen := map[string]int{}
	cursor, pages := "", 0
	for ; pages < 40; pages++ {
		args := []string{"search", "--mode", "fulltext", "--limit", "30", "--max-tokens", "1000"}
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		var p page
		runJSON(t, vault, 0, &p, append(args, "memory")...)
		if p.MaxTokens != 1000 || p.Tokens > 1000 || p.Tokens == 0 {
			t.Errorf("page %d: tokens %d of max %d", pages, p.Tokens, p.MaxTokens)
		}
		for _, h := range p.Hits {
			seen[h.URI]++
		}
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(seen) != 30 || pages < 2 {
		t.Errorf("%d pages held %d notes, want all 30", pages+1, len(seen))
	}
	for uri, n := range seen {
		if n != 1 {
			t.Errorf("%s on %d pages", uri, n)
		}
	}

	// The text rendering says where to go on.
	var first page
	runJSON(t, vault, 0, &first, "search", "--mode", "fulltext", "--limit", "30", "--max-tokens", "1000", "memory")
	out, code := run(t, vault, "", "search", "--mode", "fulltext", "--limit", "30", "--max-tokens", "1000", "memory")
	if code != 0 || !strings.Contains(out, "more with cursor "+first.NextCursor) {
		t.Errorf("text page (exit %d) does not give the cursor %s:\n%s", code, first.NextCursor, out)
	}
	// A cursor with other arguments is a usage error naming --cursor.
	var e errOut
	runJSON(t, vault, 1, &e, "search", "--mode", "fulltext", "--max-tokens", "1000", "--cursor", first.NextCursor, "limits")
	if e.Error.Code != "invalid_argument" || !strings.Contains(e.Error.Message, "other arguments") {
		t.Errorf("cursor with another query = %+v", e)
	}

	// graph export: whole by default, pages with --max-tokens.
	var whole struct {
		Nodes, Edges []any
		NextCursor   string `json:"next_cursor"`
	}
	runJSON(t, vault, 0, &whole, "graph", "export")
	if len(whole.Nodes) != 30+31 || whole.NextCursor != "" {
		t.Errorf("whole export: %d nodes, cursor %q", len(whole.Nodes), whole.NextCursor)
	}
	raw, code := run(t, vault, "", "graph", "export")
	if code != 0 || !strings.HasSuffix(strings.TrimSpace(raw), "}") || strings.Contains(raw, "cursor") {
		t.Errorf("graph export text is not the whole JSON document: %.200s", raw)
	}
	var paged struct {
		Nodes      []any
		NextCursor string `json:"next_cursor"`
	}
	runJSON(t, vault, 0, &paged, "graph", "export", "--max-tokens", "1000")
	if len(paged.Nodes) == 0 || len(paged.Nodes) >= len(whole.Nodes) || paged.NextCursor == "" {
		t.Errorf("paged export: %d of %d nodes, cursor %q", len(paged.Nodes), len(whole.Nodes), paged.NextCursor)
	}
}

package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSupersessionFlags: note write --supersedes/--valid-until, note edit
// --supersedes, search and context --as-of on the command line, derived
// from the same declarations as the MCP tools (docs/time.md).
func TestSupersessionFlags(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "v")
	var w struct{ URI string }
	runJSON(t, vault, 0, &w, "note", "write", "--title", "Standup time", "--content", "---\ncreated: 2026-01-05\n---\nThe team standup is at 9:30. [[Standup]]\n")
	old := w.URI
	runJSON(t, vault, 0, &w, "note", "write", "--title", "Standup moved", "--supersedes", "Standup time", "--valid-from", "2026-03-01",
		"--content", "---\ncreated: 2026-02-20\n---\nThe team standup moves to 10:00. [[Standup]]\n")
	cur := w.URI
	runJSON(t, vault, 0, &w, "note", "write", "--title", "Standup room", "--valid-until", "2026-01-31",
		"--content", "---\ncreated: 2026-01-02\n---\nThe standup is in room 4. [[Standup]]\n")
	room := w.URI

	type hit struct {
		URI          string   `json:"uri"`
		SupersededBy []string `json:"superseded_by"`
		Expired      bool     `json:"expired"`
	}
	var res struct{ Hits []hit }
	runJSON(t, vault, 0, &res, "search", "team standup")
	if len(res.Hits) < 2 || res.Hits[0].URI != cur {
		t.Fatalf("hits = %+v, want %s first", res.Hits, cur)
	}
	res.Hits = nil
	runJSON(t, vault, 0, &res, "search", "team standup", "--as-of", "2026-01-10")
	if len(res.Hits) != 2 || res.Hits[0].URI != old || res.Hits[0].SupersededBy != nil || res.Hits[1].URI != room || res.Hits[1].Expired {
		t.Fatalf("as of 2026-01-10: hits = %+v, want %s, current, then the room, not expired yet", res.Hits, old)
	}
	// Written on 2026-02-20, the new note holds from 2026-03-01: as of
	// 2026-02-25 it does not exist yet.
	res.Hits = nil
	runJSON(t, vault, 0, &res, "search", "team standup", "--as-of", "2026-02-25T12:00:00Z")
	if len(res.Hits) != 2 || res.Hits[0].URI != old || res.Hits[1].URI != room || !res.Hits[1].Expired {
		t.Fatalf("as of 2026-02-25: hits = %+v, want %s then the expired room, and not the note written after", res.Hits, old)
	}

	var ctx struct{ Notes []hit }
	runJSON(t, vault, 0, &ctx, "context", "Standup")
	if len(ctx.Notes) != 3 || ctx.Notes[0].URI != cur {
		t.Fatalf("context notes = %+v, want %s first", ctx.Notes, cur)
	}
	for _, n := range ctx.Notes[1:] {
		if (n.URI == room) != n.Expired || (n.URI == old) != (len(n.SupersededBy) == 1) {
			t.Errorf("context note %+v", n)
		}
	}
	ctx.Notes = nil
	runJSON(t, vault, 0, &ctx, "context", "Standup", "--as-of", "2026-01-20")
	if len(ctx.Notes) != 2 || ctx.Notes[0].Expired || ctx.Notes[1].Expired {
		t.Fatalf("context as of 2026-01-20 = %+v, want the old note and the room, neither expired", ctx.Notes)
	}

	runJSON(t, vault, 0, nil, "note", "edit", room, "--op", "append", "--supersedes", old)
	text, code := run(t, vault, "", "note", "read", "Standup room")
	if code != 0 || !strings.Contains(text, "[[Standup time]]") {
		t.Errorf("note edit --supersedes: %d\n%s", code, text)
	}

	var e errOut
	runJSON(t, vault, 1, &e, "search", "standup", "--as-of", "yesterday")
	if e.Error.Code != "invalid_argument" || !strings.Contains(e.Error.Message, "--as-of") {
		t.Errorf("--as-of yesterday: %+v, want invalid_argument naming --as-of", e)
	}
	runJSON(t, vault, 1, &e, "note", "write", "--title", "Bad", "--content", "x", "--valid-until", "2026-02-30")
	if e.Error.Code != "invalid_argument" || !strings.Contains(e.Error.Message, "--valid-until") {
		t.Errorf("--valid-until 2026-02-30: %+v, want invalid_argument naming --valid-until", e)
	}
}

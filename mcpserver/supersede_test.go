package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/mcpserver"
)

type timeHit struct {
	URI          string   `json:"uri"`
	Title        string   `json:"title"`
	SupersededBy []string `json:"superseded_by"`
	Supersedes   []string `json:"supersedes"`
	Expired      bool     `json:"expired"`
	Successor    bool     `json:"successor"`
}

// TestSupersessionOverMCP: write_note's supersedes, valid_from and
// valid_until, edit_note's supersedes, and as_of on search_notes and
// build_context, over MCP (docs/time.md).
func TestSupersessionOverMCP(t *testing.T) {
	cs, a := connect(t, mcpserver.Options{})
	write := func(args map[string]any) string {
		t.Helper()
		var out struct{ URI string }
		mustCall(t, cs, "write_note", args, &out)
		return out.URI
	}
	old := write(map[string]any{"title": "Dana coffee preference",
		"content": "---\ncreated: 2026-01-05\n---\nDana takes black coffee, no sugar. [[Dana]] [[Coffee]]\n"})
	cur := write(map[string]any{"title": "Dana coffee update", "supersedes": []string{"Dana coffee preference"},
		"content": "---\ncreated: 2026-03-01\n---\nNow a flat white with oat milk. [[Dana]] [[Coffee]]\n"})
	offer := write(map[string]any{"title": "Coffee machine offer", "valid_from": "2026-01-01", "valid_until": "2026-01-31",
		"content": "---\ncreated: 2026-01-01\n---\nThe coffee machine rental offer for Dana's team. [[Dana]]\n"})

	b, err := os.ReadFile(filepath.Join(a.Vault.Root, "Dana coffee update.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "[[Dana coffee preference]]") || !strings.Contains(string(b), "supersedes:") {
		t.Errorf("the property is not written as a link:\n%s", b)
	}

	var res struct {
		Hits []timeHit `json:"hits"`
	}
	mustCall(t, cs, "search_notes", map[string]any{"query": "Dana coffee"}, &res)
	if len(res.Hits) < 3 || res.Hits[0].URI != cur {
		t.Fatalf("hits = %+v, want %s first", res.Hits, cur)
	}
	for _, h := range res.Hits {
		switch h.URI {
		case old:
			if len(h.SupersededBy) != 1 || h.SupersededBy[0] != cur {
				t.Errorf("the old note says superseded_by %v, want [%s]", h.SupersededBy, cur)
			}
		case cur:
			if len(h.Supersedes) != 1 || h.Supersedes[0] != old {
				t.Errorf("the new note says supersedes %v", h.Supersedes)
			}
		case offer:
			if !h.Expired {
				t.Errorf("the offer is not expired: %+v", h)
			}
		}
	}
	res.Hits = nil // decoded afresh: absent fields must not keep the last answer's values
	mustCall(t, cs, "search_notes", map[string]any{"query": "Dana coffee", "as_of": "2026-02-01"}, &res)
	if len(res.Hits) != 2 || res.Hits[0].URI != old || len(res.Hits[0].SupersededBy) != 0 {
		t.Fatalf("as of 2026-02-01: hits = %+v, want the old note first, current, and no note written later", res.Hits)
	}

	var ctxRes struct {
		Notes []timeHit `json:"notes"`
	}
	mustCall(t, cs, "build_context", map[string]any{"concept": "Coffee"}, &ctxRes)
	if len(ctxRes.Notes) != 2 || ctxRes.Notes[0].URI != cur || ctxRes.Notes[1].SupersededBy[0] != cur {
		t.Fatalf("build_context notes = %+v, want %s first and the old one superseded by it", ctxRes.Notes, cur)
	}
	ctxRes.Notes = nil
	mustCall(t, cs, "build_context", map[string]any{"concept": "Coffee", "as_of": "2026-01-10T00:00:00Z"}, &ctxRes)
	if len(ctxRes.Notes) != 1 || ctxRes.Notes[0].URI != old {
		t.Fatalf("build_context as of 2026-01-10: notes = %+v, want only %s", ctxRes.Notes, old)
	}

	// edit_note adds to the property, and a properties-only edit is an
	// append of nothing.
	mustCall(t, cs, "edit_note", map[string]any{"uri": cur, "op": "append", "supersedes": []string{offer}}, nil)
	res.Hits = nil
	mustCall(t, cs, "search_notes", map[string]any{"query": "machine rental offer"}, &res)
	if len(res.Hits) != 2 || res.Hits[0].URI != cur || !res.Hits[0].Successor || res.Hits[1].URI != offer || res.Hits[1].SupersededBy[0] != cur {
		t.Fatalf("hits = %+v: the note superseding the offer must come first, as its successor", res.Hits)
	}

	// Bad input: coded errors naming the parameter, nothing written.
	for _, c := range []struct {
		tool string
		args map[string]any
		code string
		says string
	}{
		{"search_notes", map[string]any{"query": "coffee", "as_of": "last week"}, "invalid_argument", "as_of"},
		{"build_context", map[string]any{"concept": "Coffee", "as_of": "2026-13-01"}, "invalid_argument", "as_of"},
		{"write_note", map[string]any{"title": "X", "content": "x", "valid_from": "soon"}, "invalid_argument", "valid_from"},
		{"write_note", map[string]any{"title": "Y", "content": "---\nvalid_until: someday\n---\ny"}, "invalid_argument", "valid_until"},
		{"write_note", map[string]any{"title": "Z", "content": "z", "supersedes": []string{"No such note"}}, "not_found", "supersedes"},
		{"edit_note", map[string]any{"uri": cur, "op": "append", "supersedes": []string{cur}}, "invalid_argument", "itself"},
	} {
		if e := wantFailure(t, cs, c.tool, c.args, c.code); !strings.Contains(e, c.says) {
			t.Errorf("%s %v: %q does not say %q", c.tool, c.args, e, c.says)
		}
	}
	for _, name := range []string{"X.md", "Y.md", "Z.md"} {
		if _, err := os.Stat(filepath.Join(a.Vault.Root, name)); err == nil {
			t.Errorf("%s was written by a failed call", name)
		}
	}
}

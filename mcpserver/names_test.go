package mcpserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/mcpserver"
)

// TestNamesWhereUsersHaveNames: a note in a folder with a space reads the
// same as a resource by its URI with the space as is or percent-encoded
// (decoded once, never twice); read_note takes those, its path, title and
// alias; get_node, neighbors and subgraph take a concept's label or alias
// and a note's path, title or alias as well as ids.
func TestNamesWhereUsersHaveNames(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	ctx := context.Background()
	mustCall(t, cs, "create_concept", map[string]any{"label": "Heap", "aliases": []string{"Managed Heap"}}, nil)
	var w struct{ URI, Path string }
	mustCall(t, cs, "write_note", map[string]any{
		"title": "Garbage Collection", "folder": "Runtime Notes", "aliases": []string{"GC"},
		"content": "Collectors reclaim the [[Heap]]; see [[Escape Analysis]].\n",
	}, &w)
	if !strings.HasPrefix(w.URI, "memory://Runtime Notes/") {
		t.Fatalf("write_note = %+v", w)
	}
	encoded := strings.ReplaceAll(w.URI, " ", "%20")

	for _, uri := range []string{w.URI, encoded, w.URI + ".md"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || !strings.Contains(res.Contents[0].Text, "Collectors reclaim") {
			t.Errorf("resource %q: %v", uri, err)
		}
	}
	for _, ref := range []string{w.URI, encoded, w.Path, strings.TrimSuffix(w.Path, ".md"), "Garbage Collection", "garbage collection", "GC"} {
		var n struct{ URI, Content string }
		if e := call(t, cs, "read_note", map[string]any{"uri": ref}, &n); e != "" || n.URI != w.URI {
			t.Errorf("read_note %q: %s %q", ref, e, n.URI)
		}
	}
	// Decoded once: %2520 is a literal "%20", which names no note.
	twice := strings.ReplaceAll(w.URI, " ", "%2520")
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: twice}); err == nil {
		t.Errorf("resource %q (encoded twice) was read", twice)
	}
	wantFailure(t, cs, "read_note", map[string]any{"uri": twice}, "not_found")

	var heap struct{ ID, Kind string }
	if e := call(t, cs, "get_node", map[string]any{"id": "Heap"}, &heap); e != "" || heap.Kind != "concept" || !strings.HasPrefix(heap.ID, "c_") {
		t.Fatalf("get_node Heap = %+v %s", heap, e)
	}
	for _, ref := range []string{heap.ID, "Heap", "heap", "Managed Heap"} {
		var n struct{ ID string }
		if e := call(t, cs, "get_node", map[string]any{"id": ref}, &n); e != "" || n.ID != heap.ID {
			t.Errorf("get_node %q = %q %s", ref, n.ID, e)
		}
	}
	for _, ref := range []string{w.URI, encoded, w.Path, "Garbage Collection", "GC"} {
		var n struct{ ID, Kind string }
		if e := call(t, cs, "get_node", map[string]any{"id": ref}, &n); e != "" || n.ID != w.URI || n.Kind != "note" {
			t.Errorf("get_node %q = %+v %s", ref, n, e)
		}
	}
	var page struct {
		Total int
		Node  struct{ ID string }
	}
	if e := call(t, cs, "neighbors", map[string]any{"id": "GC"}, &page); e != "" || page.Node.ID != w.URI || page.Total != 2 {
		t.Errorf("neighbors GC = %+v %s", page, e)
	}
	if e := call(t, cs, "neighbors", map[string]any{"id": "Managed Heap", "direction": "in"}, &page); e != "" || page.Node.ID != heap.ID || page.Total != 1 {
		t.Errorf("neighbors Managed Heap = %+v %s", page, e)
	}
	var sub struct{ Nodes []struct{ ID string } }
	if e := call(t, cs, "subgraph", map[string]any{"ids": []string{"Escape Analysis", "GC"}, "depth": 1}, &sub); e != "" || len(sub.Nodes) != 3 {
		t.Errorf("subgraph by names = %+v %s", sub, e)
	}
	for _, name := range []string{"get_node", "neighbors"} {
		if e := wantFailure(t, cs, name, map[string]any{"id": "Nothing Like It"}, "not_found"); !strings.Contains(e, "Nothing Like It") {
			t.Errorf("%s of an unknown name = %q", name, e)
		}
	}
}

// TestResourceNotFoundCode: a missing resource, however spelled, is JSON-RPC
// -32002 for clients of revisions up to 2025-11-25 and -32602 (invalid
// params, SEP-2164) from 2026-07-28.
func TestResourceNotFoundCode(t *testing.T) {
	ctx := context.Background()
	srv, _ := newServer(t, mcpserver.Options{})
	for version, want := range map[string]int64{"2025-06-18": -32002, "2025-11-25": -32002, "2026-07-28": -32602} {
		cs := session(t, srv, nil, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if got := cs.InitializeResult().ProtocolVersion; got != version {
			t.Fatalf("negotiated %s, want %s", got, version)
		}
		for _, uri := range []string{"memory://No Such Note", "memory://No%20Such%20Note", "memory://Runtime Notes/nothing", "noema://nothing"} {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) || wire.Code != want {
				t.Errorf("%s: resource %q: %v, want %d", version, uri, err, want)
			}
		}
	}
}

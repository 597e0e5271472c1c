package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/mcpserver"
)

// connect starts a server over a fresh vault and returns a connected client.
func connect(t *testing.T, opts mcpserver.Options) (*mcp.ClientSession, *app.App) {
	t.Helper()
	return connectWith(t, opts, nil)
}

func connectWith(t *testing.T, opts mcpserver.Options, copts *mcp.ClientOptions) (*mcp.ClientSession, *app.App) {
	t.Helper()
	srv, a := newServer(t, opts)
	return session(t, srv, copts, nil), a
}

// newServer starts a server over a fresh vault.
func newServer(t *testing.T, opts mcpserver.Options) (*mcp.Server, *app.App) {
	t.Helper()
	a := noematest.OpenApp(t, "", app.Options{MaxNoteBytes: 4096})
	srv, err := mcpserver.New(a, opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv, a
}

// session connects a client (with copts) to srv in memory and returns the
// client's session (with sopts), closed when the test ends.
func session(t *testing.T, srv *mcp.Server, copts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, copts)
	cs, err := client.Connect(ctx, ct, sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call invokes a tool and decodes its structured result into out (when
// not nil). It returns the error text of a tool error, "" on success.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	if res.IsError {
		return res.Content[0].(*mcp.TextContent).Text
	}
	if len(res.Content) == 0 {
		t.Errorf("%s: no text rendering", name)
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, b, err)
		}
	}
	return ""
}

// mustCall invokes a tool that must succeed, decoding its result into out
// (when not nil).
func mustCall(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) {
	t.Helper()
	if e := call(t, cs, name, args, out); e != "" {
		t.Fatalf("%s: %s", name, e)
	}
}

// wantFailure invokes a tool that must fail with the error code and returns
// the error text.
func wantFailure(t *testing.T, cs *mcp.ClientSession, name string, args any, code string) string {
	t.Helper()
	e := call(t, cs, name, args, nil)
	if !strings.HasPrefix(e, code+":") {
		t.Errorf("%s %v = %q, want %s", name, args, e, code)
	}
	return e
}

// hints are a tool's annotations: read-only, destructive, idempotent.
type hints struct{ readOnly, destructive, idempotent bool }

// inventory is every tool's expected annotations. Destructive means it can
// delete or replace what exists (write_note with overwrite, metadata_replace),
// not only add to it.
var inventory = map[string]hints{
	"write_note":            {false, true, false},
	"read_note":             {true, false, false}, // records an access
	"edit_note":             {false, true, false},
	"move_note":             {false, true, false},
	"delete_note":           {false, true, true},
	"list_notes":            {true, false, true},
	"list_operations":       {true, false, true},
	"undo_operation":        {false, true, false},
	"recent_activity":       {true, false, true},
	"search_notes":          {true, false, true}, // not an access
	"build_context":         {true, false, true}, // not an access
	"find_concepts":         {true, false, true},
	"find_similar_concepts": {true, false, true},
	"list_concepts":         {true, false, true},
	"create_concept":        {false, false, false},
	"update_concept":        {false, true, true},
	"delete_concept":        {false, true, true},
	"analyze_duplicates":    {true, false, true},
	"merge_concepts":        {false, true, true}, // a dry run by default; merging again is a no-op
	"create_relation":       {false, false, false},
	"update_relation":       {false, true, true},
	"delete_relation":       {false, true, true},
	"get_node":              {true, false, true},
	"neighbors":             {true, false, true},
	"subgraph":              {true, false, true},
	"export_graph":          {true, false, true},
	"analyze_graph":         {true, false, true},
	"status":                {true, false, true},
	"list_vaults":           {true, false, true},
	"sync":                  {false, false, true},
}

// listTools lists the tools of a server with opts.
func listTools(t *testing.T, opts mcpserver.Options) []*mcp.Tool {
	t.Helper()
	cs, _ := connect(t, opts)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

func TestToolDefinitions(t *testing.T) {
	listed := listTools(t, mcpserver.Options{})
	want := map[string]bool{"write_note": true, "read_note": true, "edit_note": true, "move_note": true,
		"delete_note": true, "list_notes": true, "recent_activity": true, "status": true, "sync": true, "list_vaults": true,
		"find_concepts": true, "list_concepts": true, "create_concept": true, "update_concept": true, "delete_concept": true}
	for _, tool := range listed {
		delete(want, tool.Name)
		if tool.Annotations == nil || tool.Annotations.Title == "" {
			t.Errorf("%s: no annotations/title", tool.Name)
			continue
		}
		if tool.Description == "" || tool.OutputSchema == nil {
			t.Errorf("%s: missing description or output schema", tool.Name)
		}
		// MCP requires object schemas at the top level (no "null" union).
		for what, sc := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			b, _ := json.Marshal(sc)
			var m map[string]any
			json.Unmarshal(b, &m)
			if m["type"] != "object" {
				t.Errorf("%s: %s schema type = %v, want \"object\"", tool.Name, what, m["type"])
			}
		}
		if tool.Name != strings.ToLower(tool.Name) || strings.Contains(tool.Name, "-") {
			t.Errorf("%s: not snake_case", tool.Name)
		}
		b, _ := json.Marshal(tool.InputSchema)
		var schema map[string]any
		json.Unmarshal(b, &schema)
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if _, ok := schema[k]; ok {
				t.Errorf("%s: top-level %s in input schema", tool.Name, k)
			}
		}
		props, _ := schema["properties"].(map[string]any)
		for name, p := range props {
			if d, _ := p.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s.%s: no description", tool.Name, name)
			}
		}
		a := tool.Annotations
		got := hints{a.ReadOnlyHint, a.DestructiveHint != nil && *a.DestructiveHint, a.IdempotentHint}
		if h, ok := inventory[tool.Name]; !ok {
			t.Errorf("%s: not in the inventory: say whether it is read-only, destructive, idempotent", tool.Name)
		} else if got != h {
			t.Errorf("%s: annotations %+v, want %+v", tool.Name, got, h)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint must be false: noema touches only its vault", tool.Name)
		}
	}
	for name := range inventory {
		if !slices.ContainsFunc(listed, func(t *mcp.Tool) bool { return t.Name == name }) {
			t.Errorf("inventory names %s, which no tool has", name)
		}
	}
	for name := range want {
		t.Errorf("tool %s missing", name)
	}
	// Defaults are part of the input schemas.
	for _, tool := range listed {
		if tool.Name != "find_concepts" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		for _, want := range []string{`"limit":{"default":20,`, `"default":"default"`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("find_concepts schema lacks %s: %s", want, b)
			}
		}
	}
}

func TestToolsets(t *testing.T) {
	var names []string
	for _, tool := range listTools(t, mcpserver.Options{Toolsets: []string{"admin"}}) {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "list_vaults,status,sync" {
		t.Errorf("admin toolset = %v", names)
	}
	if _, err := mcpserver.New(nil, mcpserver.Options{Toolsets: []string{"nope"}}); err == nil {
		t.Error("unknown toolset accepted")
	}
}

type writeOut struct {
	URI, Path, Checksum string
	Created             bool
}

func TestNoteLifecycle(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	var w writeOut
	mustCall(t, cs, "write_note", map[string]any{"title": "Gradient Checkpointing", "content": "Trades compute for [[Memory]].\n\n## Notes\nold\n", "folder": "ml", "tags": []string{"ml"}}, &w)
	if w.URI != "memory://ml/Gradient Checkpointing" || !w.Created {
		t.Fatalf("write = %+v", w)
	}
	// Never overwrites silently.
	wantFailure(t, cs, "write_note", map[string]any{"title": "Gradient Checkpointing", "content": "x", "folder": "ml"}, "conflict")
	var n struct {
		Content, Checksum string
		Links             []struct{ Target string }
		FrontMatter       map[string]any `json:"front_matter"`
	}
	mustCall(t, cs, "read_note", map[string]any{"uri": w.URI}, &n)
	if n.Checksum != w.Checksum || len(n.Links) != 1 || n.Links[0].Target != "Memory" || n.FrontMatter["title"] != "Gradient Checkpointing" {
		t.Errorf("read = %+v", n)
	}
	// Reading by title works too.
	if e := call(t, cs, "read_note", map[string]any{"uri": "gradient checkpointing"}, nil); e != "" {
		t.Errorf("read by title: %s", e)
	}
	cases := []struct {
		name string
		args map[string]any
		code string
	}{
		{"stale checksum", map[string]any{"uri": w.URI, "op": "append", "content": "x", "expected_checksum": "sha256:00"}, "checksum_mismatch"},
		{"unknown op", map[string]any{"uri": w.URI, "op": "rewrite"}, "invalid_argument"},
		{"count mismatch", map[string]any{"uri": w.URI, "op": "find_replace", "find": "nothing here", "replace": "y"}, "invalid_argument"},
		{"missing section", map[string]any{"uri": w.URI, "op": "replace_section", "section": "Nope", "content": "y"}, "not_found"},
		{"missing note", map[string]any{"uri": "memory://nope", "op": "append", "content": "y"}, "not_found"},
		{"traversal", map[string]any{"uri": "memory://../etc/passwd", "op": "append", "content": "y"}, "invalid_argument"},
		{"too large", map[string]any{"uri": w.URI, "op": "append", "content": strings.Repeat("z", 5000)}, "too_large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantFailure(t, cs, "edit_note", c.args, c.code)
		})
	}
	var ed writeOut
	mustCall(t, cs, "edit_note", map[string]any{"uri": w.URI, "op": "replace_section", "section": "Notes", "content": "new [[Compute]]", "expected_checksum": w.Checksum}, &ed)
	if e := call(t, cs, "read_note", map[string]any{"uri": w.URI}, &n); e != "" || !strings.Contains(n.Content, "## Notes\nnew [[Compute]]\n") || strings.Contains(n.Content, "old") {
		t.Errorf("after replace_section: %q %s", n.Content, e)
	}
	var st struct{ Notes, Concepts int }
	call(t, cs, "status", map[string]any{}, &st)
	if st.Notes != 1 || st.Concepts != 2 {
		t.Errorf("status = %+v, want 1 note, 2 concepts", st)
	}
	var mv struct{ URI string }
	if e := call(t, cs, "move_note", map[string]any{"from": w.URI, "to": "archive/gc"}, &mv); e != "" || mv.URI != "memory://archive/gc" {
		t.Fatalf("move = %+v %s", mv, e)
	}
	wantFailure(t, cs, "move_note", map[string]any{"from": "memory://archive/gc", "to": "../../x"}, "invalid_argument")
	var list struct {
		Total   int
		HasMore bool `json:"has_more"`
		Notes   []struct{ URI string }
	}
	call(t, cs, "list_notes", map[string]any{"folder": "archive"}, &list)
	if list.Total != 1 || list.Notes[0].URI != "memory://archive/gc" {
		t.Errorf("list = %+v", list)
	}
	call(t, cs, "recent_activity", map[string]any{"since": "1h"}, &list)
	if list.Total != 1 {
		t.Errorf("recent = %+v", list)
	}
	wantFailure(t, cs, "delete_note", map[string]any{"uri": mv.URI}, "invalid_argument")
	mustCall(t, cs, "delete_note", map[string]any{"uri": mv.URI, "confirm": true}, nil)
	call(t, cs, "status", map[string]any{}, &st)
	if st.Notes != 0 || st.Concepts != 0 {
		t.Errorf("status after delete = %+v", st)
	}
}

func TestResources(t *testing.T) {
	cs, a := connect(t, mcpserver.Options{})
	ctx := context.Background()
	call(t, cs, "write_note", map[string]any{"title": "Res", "content": "hello [[World]]"}, nil)
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://Res"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Contents[0].Text, "hello [[World]]") {
		t.Errorf("note resource = %q", res.Contents[0].Text)
	}
	list, _ := a.Notes.Recent(ctx, notesRecent())
	if list.Notes[0].Accessed.IsZero() {
		t.Error("reading the resource did not record an access")
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://missing"}); err == nil {
		t.Error("missing note resource: no error")
	}
	st, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "noema://status"})
	if err != nil || !strings.Contains(st.Contents[0].Text, `"notes": 1`) {
		t.Errorf("status resource = %v %v", st, err)
	}
}

func TestSyncProgress(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var got []float64
	cs, _ := connectWith(t, mcpserver.Options{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params.Progress)
			mu.Unlock()
		},
	})
	for i := range 130 {
		call(t, cs, "write_note", map[string]any{"title": fmt.Sprintf("note %d", i), "content": "[[A]]"}, nil)
	}
	params := &mcp.CallToolParams{Name: "sync", Arguments: map[string]any{"rebuild": true}}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("sync: %v %v", res, err)
	}
	// Notifications may trail the result slightly.
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(got)
		last := 0.0
		if n > 0 {
			last = got[n-1]
		}
		mu.Unlock()
		if n >= 2 && last == 130 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("progress notifications = %v, want several ending at 130", got)
}

func TestConceptTools(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	ctx := context.Background()
	var c struct {
		ID, Label string
		Aliases   []string
	}
	mustCall(t, cs, "create_concept", map[string]any{"label": "Garbage Collection", "aliases": []string{"GC"}}, &c)
	if e := wantFailure(t, cs, "create_concept", map[string]any{"label": "Other", "aliases": []string{"gc"}}, "conflict"); !strings.Contains(e, "Garbage Collection") {
		t.Errorf("alias collision = %q", e)
	}
	call(t, cs, "write_note", map[string]any{"title": "N", "content": "[[GC]] and [[Garbage-Collector]]"}, nil)
	var found struct {
		Candidates []struct {
			ID, Label, Matched string
			Score              float64
			MatchedAlias       bool `json:"matched_alias"`
		}
	}
	mustCall(t, cs, "find_concepts", map[string]any{"query": "garbage colection"}, &found)
	if len(found.Candidates) != 2 || found.Candidates[0].ID != c.ID {
		t.Errorf("find = %+v", found)
	}
	mustCall(t, cs, "update_concept", map[string]any{"concept": "gc", "metadata": map[string]any{"k": 1}}, nil)
	wantFailure(t, cs, "update_concept", map[string]any{"concept": "gc", "metadata": map[string]any{"k": 2}}, "metadata_conflict")
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "noema://concepts?text=garbage&match=starts_with&limit=1"})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Total    int
		HasMore  bool `json:"has_more"`
		Concepts []struct{ Label string }
	}
	json.Unmarshal([]byte(res.Contents[0].Text), &list)
	if list.Total != 2 || !list.HasMore || len(list.Concepts) != 1 {
		t.Errorf("concepts resource = %s", res.Contents[0].Text)
	}
	wantFailure(t, cs, "delete_concept", map[string]any{"concept": c.ID}, "conflict")
	mustCall(t, cs, "delete_concept", map[string]any{"concept": c.ID, "unlink": true}, nil)
}

func TestGraphTools(t *testing.T) {
	cs, a := connect(t, mcpserver.Options{})
	ctx := context.Background()
	call(t, cs, "write_note", map[string]any{"title": "Paper", "content": "[[Rust]] and [[Go]] and [[Rust]]"}, nil)
	var rel struct{ ID, From, To string }
	mustCall(t, cs, "create_relation", map[string]any{"from": "rust", "type": "influenced", "to": "go"}, &rel)
	var node struct {
		ID, Kind string
		Degree   struct {
			In, Out struct{ Mentions, Relations int }
		}
	}
	mustCall(t, cs, "get_node", map[string]any{"id": rel.From}, &node)
	if node.Kind != "concept" || node.Degree.In.Mentions != 1 || node.Degree.Out.Relations != 1 {
		t.Errorf("node = %+v", node)
	}
	var page struct {
		Total     int
		Neighbors []struct{ Direction string }
	}
	call(t, cs, "neighbors", map[string]any{"id": "memory://Paper", "direction": "out"}, &page)
	if page.Total != 2 {
		t.Errorf("neighbors of the note = %+v", page)
	}
	var sub struct{ Nodes []struct{ ID string } }
	call(t, cs, "subgraph", map[string]any{"ids": []string{"memory://Paper"}, "depth": 2}, &sub)
	if len(sub.Nodes) != 3 {
		t.Errorf("subgraph = %+v", sub)
	}
	wantFailure(t, cs, "neighbors", map[string]any{"id": "c_nope"}, "not_found")
	var exp struct {
		Format    string
		NodeCount int `json:"node_count"`
		Data      string
		Nodes     []struct{ ID, Kind string }
	}
	exportText := func(args map[string]any) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "export_graph", Arguments: args})
		if err != nil || res.IsError || len(res.Content) != 1 {
			t.Fatalf("export_graph %v: %v %+v", args, err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	// GraphML is a document for a file, at least ~3,000 tokens even for
	// a graph of four nodes (its key declarations, twice: text and data):
	// the default budget refuses it, naming its size.
	if e := wantFailure(t, cs, "export_graph", map[string]any{"format": "graphml"}, "too_large"); !strings.Contains(e, "above max_tokens 4000") {
		t.Errorf("graphml export at the default budget = %q", e)
	}
	call(t, cs, "export_graph", map[string]any{"format": "graphml", "max_tokens": 20000}, &exp)
	text := exportText(map[string]any{"format": "graphml", "max_tokens": 20000})
	if exp.NodeCount != 4 || !strings.Contains(exp.Data, "<graphml") || exp.Nodes != nil || text != exp.Data { // the note, two concepts, Rust's new page
		t.Errorf("graphml export = %d nodes, %d node objects, text is the document: %v", exp.NodeCount, len(exp.Nodes), text == exp.Data)
	}
	// The JSON export is the structured result; its text is the export as
	// serialized, which the resource serves too.
	exp = struct {
		Format    string
		NodeCount int `json:"node_count"`
		Data      string
		Nodes     []struct{ ID, Kind string }
	}{}
	call(t, cs, "export_graph", map[string]any{}, &exp)
	before := exportText(map[string]any{})
	if exp.Format != "json" || exp.NodeCount != 4 || len(exp.Nodes) != 4 || exp.Nodes[0].ID == "" || exp.Data != "" {
		t.Errorf("json export = %+v", exp)
	}
	var doc struct{ Nodes, Edges []any }
	if err := json.Unmarshal([]byte(before), &doc); err != nil || len(doc.Nodes) != 4 {
		t.Errorf("json export text: %v %.200s", err, before)
	}
	if _, err := a.Sync(ctx, true, nil); err != nil {
		t.Fatal(err)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "noema://graph/export?format=json"})
	if err != nil || res.Contents[0].Text != before {
		t.Errorf("export after reindex differs (%v)", err)
	}
}

package tools_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/tools"
)

// TestDeclarations checks what every declaration must have: a command, a
// title and description, MCP tools in a toolset, names that are unique,
// and a description for every parameter.
func TestDeclarations(t *testing.T) {
	names, commands := map[string]bool{}, map[string]bool{}
	for _, tool := range tools.All() {
		if tool.Command == "" || tool.Title == "" || tool.Description == "" {
			t.Errorf("%+v: needs a command, a title and a description", tool.Def)
		}
		if commands[tool.Command] || (tool.Name != "" && names[tool.Name]) {
			t.Errorf("%s (%s) declared twice", tool.Command, tool.Name)
		}
		commands[tool.Command], names[tool.Name] = true, true
		for _, f := range tools.Fields(tool.In()) {
			if f.Tag.Get("jsonschema") == "" {
				t.Errorf("%s: %s has no description", tool.Command, f.Name)
			}
		}
		if tool.Name == "" {
			continue
		}
		if _, err := tool.MCP(); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
	}
}

// TestSchemas checks the input schemas carry enums and bounds, and that
// required lists do not accept null.
func TestSchemas(t *testing.T) {
	schemas := map[string]map[string]any{}
	for _, tool := range tools.MCPTools() {
		mt, err := tool.MCP()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(mt.InputSchema)
		var s map[string]any
		json.Unmarshal(b, &s)
		schemas[tool.Name] = s
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, name := range req {
			if typ, ok := props[name.(string)].(map[string]any)["type"].([]any); ok && slices.Contains(typ, any("null")) {
				t.Errorf("%s.%s is required but accepts null", tool.Name, name)
			}
		}
	}
	prop := func(tool, name string) map[string]any {
		p, _ := schemas[tool]["properties"].(map[string]any)[name].(map[string]any)
		if p == nil {
			t.Fatalf("%s has no %s", tool, name)
		}
		return p
	}
	for _, c := range []struct {
		tool, prop string
		enum       []any
	}{
		{"find_concepts", "processor", []any{"default", "none"}},
		{"list_concepts", "match", []any{"contains", "starts_with", "ends_with"}},
		{"neighbors", "direction", []any{"out", "in", "both"}},
		{"edit_note", "op", []any{"append", "prepend", "find_replace", "replace_section", "replace_all"}},
		{"export_graph", "format", []any{"json", "graphml", "memory-jsonl"}},
	} {
		if got := prop(c.tool, c.prop)["enum"]; !reflect.DeepEqual(got, c.enum) {
			t.Errorf("%s.%s enum = %v, want %v", c.tool, c.prop, got, c.enum)
		}
	}
	for _, c := range []struct {
		tool, prop string
		min, max   float64
	}{
		{"find_concepts", "limit", 0, 500}, {"find_concepts", "min_score", 0, 100},
		{"list_notes", "limit", 0, 500}, {"recent_activity", "limit", 0, 500}, {"list_concepts", "limit", 0, 500},
		{"neighbors", "limit", 0, 500}, {"subgraph", "depth", 0, 5}, {"find_similar_concepts", "max_results", 0, 200},
	} {
		p := prop(c.tool, c.prop)
		if p["minimum"] != c.min || p["maximum"] != c.max {
			t.Errorf("%s.%s bounds = [%v, %v], want [%v, %v]", c.tool, c.prop, p["minimum"], p["maximum"], c.min, c.max)
		}
	}
	if typ := prop("subgraph", "ids")["type"]; typ != "array" {
		t.Errorf("subgraph.ids type = %v, want array", typ)
	}
}

// TestDefaultsMatchServices: the default a schema and the CLI state is the
// one the service applies to a zero value (Go callers pass zero).
func TestDefaultsMatchServices(t *testing.T) {
	for _, c := range []struct {
		typ   reflect.Type
		field string
		want  int
	}{
		{reflect.TypeFor[notes.ListInput](), "Limit", notes.DefaultLimit},
		{reflect.TypeFor[notes.RecentInput](), "Limit", notes.DefaultRecentLimit},
		{reflect.TypeFor[concepts.FindInput](), "Limit", concepts.DefaultFindLimit},
		{reflect.TypeFor[concepts.ListInput](), "Limit", concepts.DefaultListLimit},
		{reflect.TypeFor[tools.NeighborsInput](), "Limit", graph.DefaultNeighborLimit},
		{reflect.TypeFor[tools.SubgraphInput](), "Depth", graph.DefaultDepth},
	} {
		f, _ := c.typ.FieldByName(c.field)
		var got int
		if err := json.Unmarshal([]byte(f.Tag.Get("default")), &got); err != nil || got != c.want {
			t.Errorf("%s.%s default tag %q, service default %d", c.typ, c.field, f.Tag.Get("default"), c.want)
		}
	}
}

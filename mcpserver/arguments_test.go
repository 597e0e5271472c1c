package mcpserver_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/noema-mem/noema/cli"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/mcpserver"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/tools"
)

// TestArgumentErrorsReadLikeCLI: arguments that do not fit a tool's input
// schema are invalid_argument in the command line's words ("limit must be
// at most 100"), not the SDK's schema-validator output ("validating
// /properties/limit: maximum: 500/1 is greater than 100.000000").
func TestArgumentErrorsReadLikeCLI(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search_notes", map[string]any{"query": "x", "limit": 500}, "invalid_argument: limit must be at most 100"},
		{"search_notes", map[string]any{"query": "x", "limit": 0}, "invalid_argument: limit must be at least 1"},
		{"search_notes", map[string]any{"query": "x", "limit": "five"}, "invalid_argument: limit must be an integer, not a string"},
		{"search_notes", map[string]any{"query": "x", "limit": 1.5}, "invalid_argument: limit must be an integer, not the number 1.5"},
		{"search_notes", map[string]any{"query": "x", "mode": "bogus"}, `invalid_argument: mode must be one of hybrid, fulltext, semantic, not "bogus"`},
		{"search_notes", map[string]any{"query": "x", "bogus": 1}, "invalid_argument: unknown parameter bogus (this tool takes query,"},
		{"status", map[string]any{"bogus": 1}, "invalid_argument: unknown parameter bogus (this tool takes vault)"},
		{"search_notes", map[string]any{"limit": 1}, "invalid_argument: query is required"},
		{"search_notes", map[string]any{"query": 3}, "invalid_argument: query must be a string, not the number"},
		{"search_notes", map[string]any{"query": "x", "tags": []any{"a", 2}}, "invalid_argument: tags must be a list of strings, not one holding the number"},
		{"list_notes", map[string]any{"limit": 1000}, "invalid_argument: limit must be at most 500"},
	} {
		got := call(t, cs, c.tool, c.args, nil)
		if !strings.HasPrefix(got, c.want) || strings.Contains(got, "validating") {
			t.Errorf("%s %v:\n got %q\nwant %q…", c.tool, c.args, got, c.want)
		}
	}
}

// TestArgumentErrorsMatchCLI: over MCP and on the command line one bad
// argument gets one message, the parameter named as each front end names it.
func TestArgumentErrorsMatchCLI(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	for _, c := range []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"search_notes", map[string]any{"query": "x", "limit": 500}, []string{"search", "x", "--limit", "500"}},
		{"list_concepts", map[string]any{"text": strings.Repeat("é", 1001)}, []string{"concept", "list", "--text", strings.Repeat("é", 1001)}},
	} {
		mcpMsg := call(t, cs, c.tool, c.args, nil)
		var stdout, stderr bytes.Buffer
		code := cli.Main(append([]string{"--vault", t.TempDir()}, c.cli...), strings.NewReader(""), &stdout, &stderr)
		name := ""
		for k := range c.args {
			if strings.Contains(mcpMsg, k+" ") {
				name = k
			}
		}
		want := strings.Replace(strings.TrimPrefix(mcpMsg, "invalid_argument: "), name, "--"+name, 1)
		if code != cli.ExitUsage || !strings.Contains(stderr.String(), want) {
			t.Errorf("%s: MCP says %q, the CLI (exit %d) %q", c.tool, mcpMsg, code, stderr.String())
		}
	}
}

// TestArgumentBounds: every string and list parameter of every tool is
// bounded in its schema; one past the bound is invalid_argument naming the
// parameter, and at the bound no tool fails with internal (a 499-tag
// search and a 50,000-character list_concepts text were internal: SQLite's
// expression depth and LIKE-pattern limits).
func TestArgumentBounds(t *testing.T) {
	cs, a := connect(t, mcpserver.Options{})
	noematest.WriteNote(t, a, notes.WriteInput{Title: "Pool", Content: "about [[Memory]] and [[Go]]", Tags: []string{"db"}})
	long := func(n int) string { return strings.Repeat("%語", n/2) + strings.Repeat("_", n%2) }
	for _, tl := range tools.MCPTools() {
		schema, err := tools.InputSchema(tl.In())
		if err != nil {
			t.Fatal(err)
		}
		at := map[string]any{}
		var over []string
		for _, f := range tools.Fields(tl.In()) {
			if f.JSON == "" {
				continue
			}
			maxLength, maxItems := tools.Bounds(f.StructField)
			prop := schema.Properties[f.JSON]
			typ := f.Type
			for typ.Kind() == reflect.Pointer {
				typ = typ.Elem()
			}
			switch {
			case typ.Kind() == reflect.String && f.Tag.Get("enum") != "":
				at[f.JSON] = strings.Split(f.Tag.Get("enum"), ",")[0]
			case typ.Kind() == reflect.String:
				if maxLength == 0 {
					if f.Tag.Get("maxLength") != "none" {
						t.Errorf("%s.%s: no length bound", tl.Name, f.JSON)
					}
					at[f.JSON] = long(1000)
					continue
				}
				if prop.MaxLength == nil || *prop.MaxLength != maxLength {
					t.Errorf("%s.%s: schema maxLength %v, want %d", tl.Name, f.JSON, prop.MaxLength, maxLength)
				}
				at[f.JSON] = long(maxLength)
				over = append(over, f.JSON)
			case typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.String:
				if maxItems == 0 || prop.MaxItems == nil || *prop.MaxItems != maxItems || prop.Items.MaxLength == nil {
					t.Errorf("%s.%s: schema maxItems %v (want %d), items %+v", tl.Name, f.JSON, prop.MaxItems, maxItems, prop.Items)
					continue
				}
				items := make([]string, maxItems)
				for i := range items {
					items[i] = fmt.Sprint(i, long(maxLength-4))
				}
				at[f.JSON] = items
				over = append(over, f.JSON)
			}
		}
		if got := call(t, cs, tl.Name, at, nil); strings.HasPrefix(got, "internal") {
			t.Errorf("%s at every bound: %s", tl.Name, got)
		}
		for _, name := range over {
			args := map[string]any{}
			for k, v := range at {
				args[k] = v
			}
			switch v := at[name].(type) {
			case string:
				args[name] = v + "x"
			case []string:
				args[name] = append(v, "x")
			}
			got := call(t, cs, tl.Name, args, nil)
			if !strings.HasPrefix(got, "invalid_argument: "+name+" ") || !strings.Contains(got, "the limit is") {
				t.Errorf("%s with %s one past its bound: %.200q", tl.Name, name, got)
			}
		}
	}
}

// Package mcpserver exposes noema over the Model Context Protocol with the
// official Go SDK: every capability is a typed tool (input and output
// schemas derived from Go structs, annotations, a short text rendering next
// to the structured result) grouped into toolsets, plus resources for notes
// and status.
//
// Adding a tool is one call in the file of its family:
//
//	add(r, "notes", &mcp.Tool{Name: "read_note", …}, readOnly, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*Out, error) {…}, textFn)
//
// Errors carrying a noema code reach the model as tool errors whose text
// starts with the code ("not_found: …"); any other error is logged in full
// and reported as "internal: internal error".
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
)

// Toolsets a user can enable with --toolsets.
var toolsetDocs = map[string]string{
	"notes":    "write, read, edit, move, delete and list notes",
	"concepts": "find, list and curate concepts",
	"search":   "search notes and build context",
	"graph":    "relations, neighbours and graph export",
	"admin":    "status and sync",
}

// Toolsets returns the names of every toolset, sorted.
func Toolsets() []string {
	names := make([]string, 0, len(toolsetDocs))
	for n := range toolsetDocs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Options configures the server.
type Options struct {
	// Toolsets to enable; empty means all.
	Toolsets []string
	// Version is reported to clients.
	Version string
	Logger  *slog.Logger
}

// Instructions tell an agent in a few lines how to use noema well.
const Instructions = `noema is your long-term memory: a vault of Markdown notes where every [[WikiLink]] names a concept.
- Before writing about a concept, check whether it already exists under another spelling (find_concepts) and reuse that exact label in your [[links]].
- Write one note per topic with write_note; link the concepts it is about with [[Concept]]. Never overwrite silently: pass overwrite only when you mean it.
- To change a note, read_note first and pass its checksum as expected_checksum to edit_note; on checksum_mismatch, read again.
- find_similar_concepts finds neighbours by meaning, weighted by recency; list_concepts browses the vocabulary when a synonym shares no spelling. Give a concept aliases (update_concept) so every spelling resolves to it.
- recent_activity shows what changed lately; list_notes browses folders. Errors start with a stable code (not_found, invalid_argument, conflict, checksum_mismatch, too_large).`

// registry collects tools per toolset before they are added to a server.
type registry struct {
	app    *app.App
	logger *slog.Logger
	tools  []registered
}

type registered struct {
	toolset string
	tool    *mcp.Tool
	add     func(s *mcp.Server)
}

// New builds the MCP server for a, with the selected toolsets.
func New(a *app.App, opts Options) (*mcp.Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	enabled := map[string]bool{}
	for _, t := range opts.Toolsets {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if t == "all" {
			for n := range toolsetDocs {
				enabled[n] = true
			}
			continue
		}
		if _, ok := toolsetDocs[t]; !ok {
			return nil, noema.Errorf(noema.EINVALID, "unknown toolset %q (known: %s)", t, strings.Join(Toolsets(), ", "))
		}
		enabled[t] = true
	}
	if len(enabled) == 0 {
		for n := range toolsetDocs {
			enabled[n] = true
		}
	}
	version := opts.Version
	if version == "" {
		version = "devel"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "noema", Title: "noema memory", Version: version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Logger:       opts.Logger,
	})
	r := &registry{app: a, logger: opts.Logger}
	registerAll(r)
	for _, t := range r.tools {
		if enabled[t.toolset] {
			t.add(s)
		}
	}
	registerResources(r, s, enabled)
	// Last, so it runs first: no request may end the session.
	s.AddReceivingMiddleware(guard)
	return s, nil
}

// registerAll adds every tool family; a new family is one line here.
func registerAll(r *registry) {
	registerNotes(r)
	registerConcepts(r)
	registerRelations(r)
	registerGraph(r)
	registerAdmin(r)
}

// Tool annotation presets.
type hints struct {
	readOnly, destructive, idempotent bool
}

var (
	readOnly    = hints{readOnly: true, idempotent: true}
	additive    = hints{}
	idempotent  = hints{idempotent: true}
	destructive = hints{destructive: true}
)

// add registers a typed tool. text renders the result for the model's
// eyes; the structured result is always sent as well.
func add[In, Out any](r *registry, toolset string, t *mcp.Tool, h hints, fn func(context.Context, *mcp.CallToolRequest, In) (Out, error), text func(Out) string) {
	if _, ok := toolsetDocs[toolset]; !ok {
		panic("mcpserver: unknown toolset " + toolset)
	}
	closed := false
	dh := h.destructive
	t.Annotations = &mcp.ToolAnnotations{
		Title:           t.Title,
		ReadOnlyHint:    h.readOnly,
		DestructiveHint: &dh,
		IdempotentHint:  h.idempotent,
		OpenWorldHint:   &closed,
	}
	// Derive the schemas ourselves: input fields carry their defaults
	// (the `default` struct tag, a JSON literal), and raw JSON values
	// (canonical metadata objects) are typed as objects, not byte arrays.
	if t.InputSchema == nil {
		typ := reflect.TypeFor[In]()
		schema, err := jsonschema.ForType(typ, nil)
		if err != nil {
			panic(fmt.Sprintf("mcpserver: input schema of %s: %v", t.Name, err))
		}
		if err := applyDefaults(schema, typ); err != nil {
			panic(fmt.Sprintf("mcpserver: input schema of %s: %v", t.Name, err))
		}
		t.InputSchema = schema
	}
	if t.OutputSchema == nil {
		typ := reflect.TypeFor[Out]()
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem() // results are objects, never null
		}
		schema, err := jsonschema.ForType(typ, &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[json.RawMessage](): {Type: "object", Description: "a JSON object"},
		}})
		if err != nil {
			panic(fmt.Sprintf("mcpserver: output schema of %s: %v", t.Name, err))
		}
		t.OutputSchema = schema
	}
	handler := func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		out, err := fn(ctx, req, in)
		if err != nil {
			var zero Out
			return nil, zero, r.toolError(t.Name, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text(out)}}}, out, nil
	}
	r.tools = append(r.tools, registered{toolset: toolset, tool: t, add: func(s *mcp.Server) { mcp.AddTool(s, t, handler) }})
}

// toolError turns err into what the model sees: its code and message, or a
// generic message for unexpected errors (logged in full here).
func (r *registry) toolError(tool string, err error) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return wire
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: request cancelled", noema.EUNAVAILABLE)
	}
	code := noema.ErrorCode(err)
	if code == noema.EINTERNAL {
		r.logger.Error("tool failed", "tool", tool, "err", err)
	}
	return fmt.Errorf("%s: %s", code, noema.ErrorMessage(err))
}

// ToolNames lists the tools a server built with opts would expose.
func ToolNames(opts Options) []string {
	r := &registry{}
	registerAll(r)
	var names []string
	for _, t := range r.tools {
		if len(opts.Toolsets) == 0 || slices.Contains(opts.Toolsets, t.toolset) {
			names = append(names, t.tool.Name)
		}
	}
	return names
}

// applyDefaults copies each field's `default` tag (a JSON literal) into its
// property schema, so clients see the defaults and the SDK fills them in.
func applyDefaults(schema *jsonschema.Schema, typ reflect.Type) error {
	for i := range typ.NumField() {
		f := typ.Field(i)
		def, ok := f.Tag.Lookup("default")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		prop := schema.Properties[name]
		if prop == nil {
			return fmt.Errorf("default on %s, which has no property", f.Name)
		}
		if !json.Valid([]byte(def)) {
			return fmt.Errorf("default of %s is not JSON: %s", f.Name, def)
		}
		prop.Default = json.RawMessage(def)
	}
	return nil
}

// Package tools declares every noema tool once — its name, description,
// annotations, input and output types, handler and text rendering — and
// both front ends are derived from the declaration: package mcpserver turns
// each into an MCP tool (schemas from the In and Out types), package cli
// turns each into a command (flags, defaults, help and positional arguments
// from the In type's struct tags).
//
// A declaration is one call to New in the file of its family:
//
//	New(Def{Name: "read_note", Command: "note read", …}, func(ctx context.Context, e *Env, in ReadNoteInput) (*notes.Note, error) {…}, textFn)
//
// Struct tags on an In type:
//
//	json:"name"            the MCP parameter; also the CLI flag --name (snake_case becomes kebab-case)
//	jsonschema:"…"         the description, in the schema and in the CLI help
//	default:"…"            the default, a JSON literal (schema default and CLI flag default)
//	enum:"a,b,c"           the allowed values
//	minimum:"N" maximum:"N" numeric bounds
//	cli:"arg"              a positional argument instead of a flag (cli:"arg=REF" names it;
//	                       a []string argument takes all the rest; ",optional" lets the
//	                       last one be absent)
//	cli:"name=tag"         the flag's name when it differs from the parameter's
//	cli:"negate"           a *bool defaulting to true offered as --no-name
//	cli:"invert=apply"     the same offered as --apply (merge's dry_run)
//	negated:"…"            with negate or invert: the help of that flag, which sets the
//	                       parameter to false (required: jsonschema says what true does)
//	cli:"stdin"            a string read from standard input when its flag is not given
//	cli:"default=JSON"     the command line's default instead of the default tag's
//	                       (it may lie outside the bounds: graph export's
//	                       max_tokens 0, the whole export)
//	cli:"-"                not offered on the command line
//
// A field with json:"-" is not part of the MCP tool; with a cli name it is a
// command-line-only flag.
package tools

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/recall"
	"github.com/noema-mem/noema/relations"
	"github.com/noema-mem/noema/search"
)

// Hints are a tool's behaviour as MCP annotations describe it.
type Hints struct {
	// ReadOnly tools change nothing.
	ReadOnly bool
	// Destructive tools may delete or replace what exists (a note's text, a
	// concept's metadata), not only add to it.
	Destructive bool
	// Idempotent tools have no further effect when called again with the
	// same input.
	Idempotent bool
}

// Annotation presets.
var (
	readOnly           = Hints{ReadOnly: true, Idempotent: true}
	additive           = Hints{}
	idempotent         = Hints{Idempotent: true}
	destructive        = Hints{Destructive: true}
	destructiveRepeats = Hints{Destructive: true, Idempotent: true}
)

// Toolsets a user can enable, with what each holds.
var Toolsets = []Toolset{
	{"notes", "write, read, edit, move, delete and list notes"},
	{"concepts", "find, list and curate concepts"},
	{"search", "search notes and build context"},
	{"graph", "relations, neighbours and graph export"},
	{"admin", "status and sync"},
	{"history", "the operation log and undo"},
}

// Toolset is a group of tools enabled together.
type Toolset struct {
	Name, Summary string
}

// Env is what a call needs besides its input.
type Env struct {
	App *app.App
	// Vaults are the vaults the caller may use, the default first
	// (list_vaults); App is one of them.
	Vaults []VaultInfo
	// Progress, when set, receives the progress of long work (sync).
	Progress func(done, total int)
}

// Def is the part of a declaration that is not typed.
type Def struct {
	// Name is the MCP tool's name; empty for a command-line-only command.
	Name string
	// Title is a short human title (MCP annotations; CLI command lists).
	Title string
	// Description tells a model (and the CLI help) what the tool does.
	Description string
	// Toolset groups the MCP tool; required with Name.
	Toolset string
	Hints   Hints
	// Command is the CLI command, words separated by spaces ("note write").
	Command string
	// NoVault: the handler reads no vault (Env.App is nil), only what the
	// server knows (list_vaults); the CLI runs it without opening one.
	NoVault bool
}

// Tool is one declared capability.
type Tool struct {
	Def
	in, out reflect.Type
	run     func(ctx context.Context, e *Env, in any) (any, error)
	text    func(w io.Writer, out any)
	// terminal, when set, is how the CLI prints the result as text instead
	// of text (a note's raw content, an export's raw bytes).
	terminal func(w io.Writer, out any)
	// stdin, when set, decides whether the CLI reads standard input into
	// the cli:"stdin" field for this input.
	stdin func(in any) bool
	// embeds, when set, says whether a call with this input embeds text
	// (so needs the configured embedder).
	embeds func(in any) bool
	addMCP func(s *mcp.Server, t *mcp.Tool, env func(context.Context, *mcp.CallToolRequest) *Env, fail func(error) error)
}

// New declares a tool: run is its handler, text renders its result for a
// model or a terminal (the structured result is always available too).
func New[In, Out any](d Def, run func(context.Context, *Env, In) (Out, error), text func(io.Writer, Out)) *Tool {
	if d.Name != "" && toolset(d.Toolset) == nil {
		panic(fmt.Sprintf("tools: %s: unknown toolset %q", d.Name, d.Toolset))
	}
	t := &Tool{
		Def: d,
		in:  reflect.TypeFor[In](),
		out: reflect.TypeFor[Out](),
		run: func(ctx context.Context, e *Env, in any) (any, error) { return run(ctx, e, in.(In)) },
		text: func(w io.Writer, out any) {
			text(w, out.(Out))
		},
	}
	t.addMCP = func(s *mcp.Server, mt *mcp.Tool, env func(context.Context, *mcp.CallToolRequest) *Env, fail func(error) error) {
		mcp.AddTool(s, mt, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
			out, err := run(ctx, env(ctx, req), in)
			if err != nil {
				var zero Out
				return nil, zero, fail(err)
			}
			var b strings.Builder
			text(&b, out)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
		})
	}
	return t
}

// calls is the handler of a tool that only passes its input to a method of
// one of the app's services: calls(onConcepts, (*concepts.Service).Find).
func calls[S, In, Out any](service func(*app.App) S, method func(S, context.Context, In) (Out, error)) func(context.Context, *Env, In) (Out, error) {
	return func(ctx context.Context, e *Env, in In) (Out, error) { return method(service(e.App), ctx, in) }
}

// The app's services, for calls.
func onNotes(a *app.App) *notes.Service         { return a.Notes }
func onConcepts(a *app.App) *concepts.Service   { return a.Concepts }
func onRelations(a *app.App) *relations.Service { return a.Relations }
func onSearch(a *app.App) *search.Service       { return a.Search }
func onRecall(a *app.App) *recall.Service       { return a.Recall }

// Terminal sets how the CLI prints the result when it is not the text
// rendering, and returns t.
func Terminal[Out any](t *Tool, fn func(w io.Writer, out Out)) *Tool {
	t.terminal = func(w io.Writer, out any) { fn(w, out.(Out)) }
	return t
}

// ReadsStdin sets when the CLI reads standard input into the cli:"stdin"
// field (by default whenever its flag is not given), and returns t.
func ReadsStdin[In any](t *Tool, fn func(in In) bool) *Tool {
	t.stdin = func(in any) bool { return fn(in.(In)) }
	return t
}

// Embeds declares when a call embeds text with the configured embedder (a
// search that ranks by meaning, a similarity), and returns t. The CLI then
// checks first that the embedder is there: a local model the user asked
// for and never pulled is an error, not a silent fallback.
func Embeds[In any](t *Tool, fn func(in In) bool) *Tool {
	t.embeds = func(in any) bool { return fn(in.(In)) }
	return t
}

// Always is the Embeds condition of a tool that embeds on every call.
func Always[In any](In) bool { return true }

// Embeds reports whether a call with in embeds text.
func (t *Tool) Embeds(in any) bool { return t.embeds != nil && t.embeds(in) }

// In is the tool's input type.
func (t *Tool) In() reflect.Type { return t.in }

// Out is the tool's result type.
func (t *Tool) Out() reflect.Type { return t.out }

// Run calls the handler with in, which must be of the In type.
func (t *Tool) Run(ctx context.Context, e *Env, in any) (any, error) { return t.run(ctx, e, in) }

// Text renders a result for a model.
func (t *Tool) Text(w io.Writer, out any) { t.text(w, out) }

// TerminalText renders a result for a terminal.
func (t *Tool) TerminalText(w io.Writer, out any) {
	if t.terminal != nil {
		t.terminal(w, out)
		return
	}
	t.text(w, out)
}

// ReadsStdin reports whether the CLI should read standard input for in.
func (t *Tool) ReadsStdin(in any) bool { return t.stdin == nil || t.stdin(in) }

// AddTo adds t to s as an MCP tool. env builds each call's environment and
// fail turns a handler's error into what the client sees.
func (t *Tool) AddTo(s *mcp.Server, env func(context.Context, *mcp.CallToolRequest) *Env, fail func(error) error) error {
	mt, err := t.MCP()
	if err != nil {
		return err
	}
	t.addMCP(s, mt, env, fail)
	return nil
}

func toolset(name string) *Toolset {
	for i := range Toolsets {
		if Toolsets[i].Name == name {
			return &Toolsets[i]
		}
	}
	return nil
}

// All returns every declaration: the MCP tools and the command-line-only
// commands, in the order the CLI lists them.
func All() []*Tool {
	var all []*Tool
	for _, family := range [][]*Tool{noteTools(), searchTools(), conceptTools(), relationTools(), graphTools(), analyzeTools(), adminTools(), vaultListTools(), operationTools(), vaultTools(), importTools(), modelTools()} {
		all = append(all, family...)
	}
	return all
}

// MCPTools returns the declarations that are MCP tools, in toolsets (all
// when none is given).
func MCPTools(toolsets ...string) []*Tool {
	var out []*Tool
	for _, t := range All() {
		if t.Name == "" {
			continue
		}
		if len(toolsets) > 0 && !contains(toolsets, t.Toolset) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Package mcpserver exposes noema over the Model Context Protocol with the
// official Go SDK: every capability is a typed tool (input and output
// schemas derived from Go structs, annotations, a short text rendering next
// to the structured result) grouped into toolsets, plus resources for notes
// and status, and the prompts recall and remember (prompts.go).
//
// The tools themselves are declared once in package tools, which the
// command line reads too; this package adds them to an SDK server, maps
// their errors and serves the resources.
//
// Errors carrying a noema code reach the model as tool errors whose text
// starts with the code ("not_found: …"); any other error is logged in full
// and reported as "internal: internal error".
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/tools"
)

// Toolsets returns the names of every toolset, sorted.
func Toolsets() []string {
	names := make([]string, 0, len(tools.Toolsets))
	for _, t := range tools.Toolsets {
		names = append(names, t.Name)
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
	// WorkLimit is how many expensive tool calls (ExpensiveTools) run at
	// once; 0 means DefaultWorkLimit. QueuedPerSlot more per slot wait;
	// beyond, a call is refused with unavailable.
	WorkLimit int
}

// Instructions tell an agent in a few lines how to use noema well.
const Instructions = `noema is your long-term memory: a vault of Markdown notes where every [[WikiLink]] names a concept.
- Before writing about a concept, check whether it already exists under another spelling (find_concepts) and reuse that exact label in your [[links]].
- Write one note per topic with write_note; link the concepts it is about with [[Concept]]. Never overwrite silently: pass overwrite only when you mean it.
- To change a note, read_note first and pass its checksum as expected_checksum to edit_note; on checksum_mismatch, read again.
- find_similar_concepts finds neighbours by meaning, weighted by recency; list_concepts browses the vocabulary when a synonym shares no spelling. Give a concept aliases (update_concept) so every spelling resolves to it.
- recent_activity shows what changed lately; list_notes browses folders. Answers that list things keep to max_tokens (default 4000): when one says truncated, pass its next_cursor as cursor, with the same arguments, for the rest.
- Errors start with a stable code (not_found, invalid_argument, conflict, checksum_mismatch, too_large, unavailable, no_space); an error means nothing changed, unless it names what was saved.`

// registry holds what the tool handlers and resources share.
type registry struct {
	vaults []tools.Vault
	// tools are the tools added, by name.
	tools  map[string]*tools.Tool
	logger *slog.Logger
}

// New builds the MCP server for a, with the selected toolsets: a server of
// one vault, named tools.DefaultVaultName.
func New(a *app.App, opts Options) (*mcp.Server, error) {
	return NewVaults([]tools.Vault{{Name: tools.DefaultVaultName, App: a}}, opts)
}

// NewVaults builds the MCP server for vaults (the first is the default),
// with the selected toolsets. Every tool takes the vault it runs on as its
// vault parameter, and every resource as its vault query parameter (see
// route).
func NewVaults(vaults []tools.Vault, opts Options) (*mcp.Server, error) {
	if len(vaults) == 0 {
		return nil, errors.New("mcpserver: no vault to serve")
	}
	seen := map[string]bool{}
	for _, v := range vaults {
		if err := tools.CheckVaultName(v.Name); err != nil {
			return nil, err
		}
		if seen[v.Name] {
			return nil, noema.Errorf(noema.EINVALID, "vault %q is given twice", v.Name)
		}
		seen[v.Name] = true
	}
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
			for _, n := range Toolsets() {
				enabled[n] = true
			}
			continue
		}
		if !slices.Contains(Toolsets(), t) {
			return nil, noema.Errorf(noema.EINVALID, "unknown toolset %q (known: %s)", t, strings.Join(Toolsets(), ", "))
		}
		enabled[t] = true
	}
	if len(enabled) == 0 {
		for _, n := range Toolsets() {
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
	r := &registry{vaults: vaults, tools: map[string]*tools.Tool{}, logger: opts.Logger}
	var added []*tools.Tool
	for _, t := range tools.MCPTools() {
		if !enabled[t.Toolset] {
			continue
		}
		added = append(added, t)
		r.tools[t.Name] = t
		fail := func(err error) error { return r.toolError(t.Name, err) }
		if err := t.AddTo(s, r.env, fail); err != nil {
			return nil, err
		}
	}
	registerResources(r, s, enabled)
	registerPrompts(s, enabled)
	slots := opts.WorkLimit
	if slots <= 0 {
		slots = DefaultWorkLimit()
	}
	s.AddReceivingMiddleware(limited(newWorkLimit(slots, slots*QueuedPerSlot)))
	s.AddReceivingMiddleware(codeArgumentErrors, r.route, checkArguments(added), r.available, spacedNoteURIs, resourceNotFoundCode)
	// Last, so it runs first: no request may end the session.
	s.AddReceivingMiddleware(guarded(opts.Logger))
	return s, nil
}

// env is the environment of one tool call: the app of the vault it runs
// on, the vaults the caller may use, and progress notifications when the
// request asked for them.
func (r *registry) env(ctx context.Context, req *mcp.CallToolRequest) *tools.Env {
	e := &tools.Env{App: r.appOf(ctx), Vaults: vaultInfos(r.vaults, accessOf(req))}
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		e.Progress = func(done, total int) {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(done), Total: float64(total),
				Message: fmt.Sprintf("indexed %d of %d changed files", done, total),
			})
		}
	}
	return e
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
	var names []string
	for _, t := range tools.MCPTools(opts.Toolsets...) {
		names = append(names, t.Name)
	}
	return names
}

// codeArgumentErrors gives a stable code to the tool errors the SDK reports
// itself, before a handler runs, and drops the SDK's path prefix from them
// ("validating \"arguments\": validating root: "): arguments that do not
// match the input schema in a way checkArguments does not foresee become
// "invalid_argument: …". Every error a handler returns already starts with
// its code.
func codeArgumentErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.IsError && len(r.Content) == 1 {
			if text, ok := r.Content[0].(*mcp.TextContent); ok && !hasCode(text.Text) {
				msg := strings.TrimPrefix(text.Text, `validating "arguments": `)
				msg = strings.TrimPrefix(msg, "validating root: ")
				text.Text = noema.EINVALID + ": " + msg
			}
		}
		return res, err
	}
}

// hasCode reports whether a tool error's text starts with a noema code.
func hasCode(text string) bool {
	code, _, ok := strings.Cut(text, ": ")
	return ok && noema.IsCode(code)
}

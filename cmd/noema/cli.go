package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// Main is the noema command line with its streams injected, so tests drive
// the real CLI in-process.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string

	// stop, when set, asks the process to stop with a cause (see
	// supervise): it cancels Run's context and bounds how long stopping may
	// take. `noema mcp` calls it when its input ends.
	stop func(cause error)

	// Global flags.
	vaultDir string
	json     bool
	verbose  bool
	embedder string
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, m *Main, args []string) (any, error)
	// text renders the result for humans; nil prints it as indented JSON.
	text func(w io.Writer, result any)
}

func (m *Main) commands() []command {
	return []command{
		{name: "serve", summary: "serve MCP over streamable HTTP, with the file watcher", run: runServe},
		{name: "mcp", summary: "serve MCP over stdio, with the file watcher", run: runMCP},
		{name: "sync", summary: "index what changed in the vault", run: runSync, text: textSync},
		{name: "reindex", summary: "rebuild the index from the files", run: runReindex, text: textSync},
		{name: "graph", summary: "export|node|neighbors|subgraph of the knowledge graph", run: runGraph},
		{name: "relation", summary: "create|update|delete|show typed relations", run: runRelation},
		{name: "status", summary: "what the index holds and how fresh it is", run: runStatus, text: textStatus},
		{name: "note", summary: "write|read|edit|move|delete|list|recent notes", run: runNote},
		{name: "concept", summary: "find|list|create|show|update|delete concepts", run: runConcept, text: textConceptResult},
		{name: "version", summary: "print the version", run: runVersion},
	}
}

const usageHead = `noema — a local-first memory server for LLM agents

Usage: noema [--vault DIR] [--json] COMMAND [ARGS]

Global flags (anywhere on the line):
  --vault DIR   the vault (else $NOEMA_VAULT, else $XDG_DATA_HOME/noema/vault)
  --json        print the structured result (errors as {"error":{"code","message"}})
  --embedder B  builtin (default), ollama or openai (else $NOEMA_EMBEDDER, else .noema/config.yaml)
  -v            log debug messages to stderr

Commands:
`

func (m *Main) usage(w io.Writer) {
	fmt.Fprint(w, usageHead)
	for _, c := range m.commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'noema COMMAND -h' for a command's flags.")
}

// Run runs the command line and returns the exit status.
func (m *Main) Run(ctx context.Context, args []string) int {
	if m.Getenv == nil {
		m.Getenv = os.Getenv
	}
	args = m.globalFlags(args)
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		m.usage(m.Stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range m.commands() {
		if c.name != args[0] {
			continue
		}
		res, err := c.run(ctx, m, args[1:])
		if err != nil {
			var in *interrupted
			if errors.As(context.Cause(ctx), &in) {
				// Whatever failed, it failed because the command was
				// stopped: say so, with the shell's status for the signal.
				m.fail(noema.Errorf(noema.EUNAVAILABLE, "%s", in.Error()))
				return signalStatus(in.sig)
			}
			return m.fail(err)
		}
		if res == nil {
			return exitOK
		}
		if m.json || c.text == nil {
			enc := json.NewEncoder(m.Stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(res); err != nil {
				return m.fail(err)
			}
		} else {
			c.text(m.Stdout, res)
		}
		return exitOK
	}
	fmt.Fprintf(m.Stderr, "noema: unknown command %q\n\n", args[0])
	m.usage(m.Stderr)
	return exitUsage
}

// fail reports err and returns its exit status.
func (m *Main) fail(err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(m.Stderr, "noema: %s\n", ue.msg)
		return exitUsage
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	code, msg := noema.ErrorCode(err), noema.ErrorMessage(err)
	if code == noema.EINTERNAL {
		msg = err.Error() // the operator is the reader here
	}
	if m.json {
		out := map[string]any{"error": map[string]any{"code": code, "message": msg}}
		var ne *noema.Error
		if errors.As(err, &ne) && len(ne.Details) > 0 {
			out["error"].(map[string]any)["details"] = ne.Details
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(m.Stdout, string(b))
	} else {
		fmt.Fprintf(m.Stderr, "noema: %s: %s\n", code, msg)
	}
	return exitError
}

// globalFlags removes --vault, --json and -v wherever they appear (up to a
// "--" separator) and records them.
func (m *Main) globalFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--json" || a == "-json":
			m.json = true
		case a == "-v" || a == "--verbose":
			m.verbose = true
		case a == "--vault" || a == "-vault":
			if i+1 < len(args) {
				m.vaultDir = args[i+1]
				i++
			}
		case a == "--embedder" || a == "-embedder":
			if i+1 < len(args) {
				m.embedder = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--embedder="):
			m.embedder = strings.TrimPrefix(a, "--embedder=")
		case strings.HasPrefix(a, "--vault=") || strings.HasPrefix(a, "-vault="):
			m.vaultDir = a[strings.Index(a, "=")+1:]
		default:
			out = append(out, a)
		}
	}
	return out
}

func (m *Main) logger() *slog.Logger {
	level := slog.LevelWarn
	if m.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: level}))
}

// open opens the vault named by the global flags and environment.
func (m *Main) open(ctx context.Context) (*app.App, error) {
	dir := m.vaultDir
	if dir == "" {
		dir = m.Getenv("NOEMA_VAULT")
	}
	if dir == "" {
		var err error
		if dir, err = app.DefaultVaultDir(); err != nil {
			return nil, err
		}
	}
	cfg, err := config.Load(dir, m.Getenv)
	if err != nil {
		return nil, err
	}
	if m.embedder != "" {
		cfg.Embedder.Backend = m.embedder
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
	}
	opts := app.Options{Logger: m.logger(), Config: &cfg}
	return app.Open(ctx, dir, opts)
}

// parseFlags parses flags and positional arguments in any order.
func (m *Main) parseFlags(fs *flag.FlagSet, usage string, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(m.Stdout, "Usage: noema %s\n\nFlags:\n", usage)
				fs.SetOutput(m.Stdout)
				fs.PrintDefaults()
				return nil, err
			}
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		rest := fs.Args()
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// parseMetadata decodes a --metadata flag: empty, or a JSON object.
func parseMetadata(s string) (map[string]any, error) {
	if s == "" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, noema.Errorf(noema.EINVALID, "--metadata must be a JSON object")
	}
	return m, nil
}

// subcommand splits a command group's arguments into its subcommand and
// the rest. Without a subcommand, or with -h/--help/help, it prints the
// group's usage; ok is false then, and err is a usage error when the
// subcommand was missing.
func (m *Main) subcommand(group, usage string, args []string) (sub string, rest []string, ok bool, err error) {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(m.Stdout, "Usage: noema %s\n", usage)
		if len(args) == 0 {
			return "", nil, false, usagef("%s needs a subcommand", group)
		}
		return "", nil, false, nil
	}
	return args[0], args[1:], true, nil
}

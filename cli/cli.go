// Package cli is noema's command line. Every tool declared in package tools
// is a command here, with flags, defaults, help and positional arguments
// derived from its input type; `serve`, `mcp` and `version` are the
// commands of their own. Main runs it in process, which is how the tests
// drive it; cmd/noema wires it to the process's signals.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/internal/replace"
	"github.com/noema-mem/noema/tools"
)

// Exit statuses.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
	// ExitAddrInUse: `noema serve` could not listen, its address being
	// taken (error code address_in_use).
	ExitAddrInUse = 3
	// ExitNoSpace: the disk (or the index) is full and the command changed
	// nothing (error code no_space).
	ExitNoSpace = 4
)

// Main runs the command line with args (without the program name) and
// returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &CLI{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	return c.Run(context.Background(), args)
}

// CLI is one run of the command line with its streams injected.
type CLI struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads the environment; nil is os.Getenv.
	Getenv func(string) string
	// Stop, when set, asks the process to stop with a cause: it cancels
	// Run's context and bounds how long stopping may take. `noema mcp`
	// calls it when its input ends.
	Stop func(cause error)

	// Global flags.
	vaultArgs []string // --vault, each DIR or NAME=DIR (see vaultSpecs)
	json      bool
	verbose   bool
	embedder  string
	store     string
}

// Interrupted is the cancellation cause of a command stopped by a signal.
type Interrupted struct{ Signal os.Signal }

func (e *Interrupted) Error() string { return "interrupted by " + SignalName(e.Signal) }

// ErrEndOfInput is the cancellation cause of `noema mcp` when its input ends.
var ErrEndOfInput = errors.New("end of input")

// SignalName names sig the way kill(1) does.
func SignalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// SignalStatus is the exit status of a command stopped by sig: 128 plus the
// signal's number (130 for SIGINT, 143 for SIGTERM), as shells report it.
func SignalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return ExitError
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// command is one leaf of the command tree.
type command struct {
	path    string // "note write"
	summary string
	about   string
	in      reflect.Type
	tool    *tools.Tool // nil for serve, mcp and version
	// run runs a command that is not a tool.
	run func(ctx context.Context, c *CLI, in any) error
}

// groups names the commands that have subcommands, in the order the usage
// lists them, with what they hold.
var groups = []struct{ name, summary string }{
	{"note", "write, read, edit, move, delete, list and recent notes"},
	{"concept", "find, similar, list, create, show, update and delete concepts"},
	{"relation", "create, show, update and delete typed relations"},
	{"graph", "node, neighbors, subgraph, export and analyze the knowledge graph"},
	{"vault", "rename-files, push, pull: the vault's files, and moving them to and from a team's store"},
	{"import", "memory-jsonl, basic-memory, mem0: bring memories kept by other tools into the vault"},
	{"model", "pull and list sentence-embedding models for the minilm embedder"},
	{"store", "migrate: the PostgreSQL store of record's schema"},
}

func commands() []*command {
	cmds := []*command{
		{path: "serve", summary: "serve MCP over streamable HTTP, with the file watcher", in: reflect.TypeFor[ServeInput](), run: runServe},
		{path: "mcp", summary: "serve MCP over stdio, with the file watcher", in: reflect.TypeFor[MCPInput](), run: runMCP},
	}
	for _, t := range tools.All() {
		cmds = append(cmds, &command{path: t.Command, summary: t.Title, about: t.Description, in: t.In(), tool: t})
	}
	cmds = append(cmds, vaultCopyCommands()...)
	cmds = append(cmds, &command{path: "store migrate", summary: "create or upgrade noema's schema in a PostgreSQL database",
		about: "Applies every schema step the database lacks, in one transaction: a failure leaves the schema as it was. Servers refuse a database whose schema is missing, older or newer than theirs.",
		in:    reflect.TypeFor[struct{}](), run: runStoreMigrate})
	return append(cmds, &command{path: "version", summary: "print the version", in: reflect.TypeFor[struct{}](), run: runVersion})
}

func find(path string) *command {
	for _, c := range commands() {
		if c.path == path {
			return c
		}
	}
	return nil
}

func isGroup(name string) bool {
	return slices.ContainsFunc(groups, func(g struct{ name, summary string }) bool { return g.name == name })
}

// globalFlags registers the flags accepted anywhere on the line.
func (c *CLI) globalFlags(fs *flag.FlagSet) {
	fs.Var(vaultFlag{&c.vaultArgs}, "vault", "")
	fs.BoolVar(&c.json, "json", c.json, "")
	fs.StringVar(&c.embedder, "embedder", c.embedder, "")
	fs.StringVar(&c.store, "store", c.store, "")
	fs.BoolVar(&c.verbose, "v", c.verbose, "")
	fs.BoolVar(&c.verbose, "verbose", c.verbose, "")
}

const globalUsage = `Global flags (before or after the command):
  --vault DIR   the vault (else $NOEMA_VAULT, else $XDG_DATA_HOME/noema/vault); repeat as
                --vault NAME=DIR to serve several (serve, mcp; other commands use the first);
                --vault NAME picks one of several NAME=DIR in $NOEMA_VAULT
  --json        print the structured result (errors as {"error":{"code","message"}})
  --embedder B  builtin (default), ollama, openai, minilm or static (else $NOEMA_EMBEDDER, else .noema/config.yaml)
  --store URL   a team's PostgreSQL store of record, postgres://…/db?vault=NAME; the vault folder
                is then its working copy (else $NOEMA_STORE, else .noema/config.yaml)
  -v            log debug messages to stderr
  -h, --help    show help; --version prints the version
`

func (c *CLI) usage(w io.Writer) {
	fmt.Fprint(w, "noema — a local-first memory server for LLM agents\n\nUsage: noema [global flags] COMMAND [ARGS]\n\n")
	fmt.Fprint(w, globalUsage)
	fmt.Fprintln(w, "\nCommands:")
	listed := map[string]bool{}
	for _, cmd := range commands() {
		word, _, sub := strings.Cut(cmd.path, " ")
		if listed[word] {
			continue
		}
		listed[word] = true
		summary := cmd.summary
		if sub {
			for _, g := range groups {
				if g.name == word {
					summary = g.summary
				}
			}
		}
		fmt.Fprintf(w, "  %-9s %s\n", word, summary)
	}
	fmt.Fprintln(w, "\nRun 'noema COMMAND --help' for a command's flags.")
}

func groupUsage(w io.Writer, group string) {
	fmt.Fprintf(w, "Usage: noema %s COMMAND [ARGS]\n\nCommands:\n", group)
	type line struct{ sub, summary string }
	var lines []line
	width := 0
	for _, cmd := range commands() {
		if word, sub, ok := strings.Cut(cmd.path, " "); ok && word == group {
			lines = append(lines, line{sub, cmd.summary})
			width = max(width, len(sub))
		}
	}
	for _, l := range lines {
		fmt.Fprintf(w, "  %-*s  %s\n", width, l.sub, l.summary)
	}
	fmt.Fprintf(w, "\nRun 'noema %s COMMAND --help' for a command's flags.\n", group)
}

// Run runs the command line and returns the exit status.
func (c *CLI) Run(ctx context.Context, args []string) int {
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	err := c.dispatch(ctx, args)
	if err == nil {
		return ExitOK
	}
	var in *Interrupted
	if errors.As(context.Cause(ctx), &in) {
		// Whatever failed, it failed because the command was stopped: say
		// so, with the shell's status for the signal.
		c.fail(noema.Errorf(noema.EUNAVAILABLE, "%s", in.Error()), nil)
		return SignalStatus(in.Signal)
	}
	var cmdErr *commandError
	if errors.As(err, &cmdErr) {
		return c.fail(cmdErr.err, cmdErr.in)
	}
	return c.fail(err, nil)
}

// commandError is a command's failure with the input it was given, so the
// message can name its flags.
type commandError struct {
	err error
	in  *input
}

func (e *commandError) Error() string { return e.err.Error() }

// helpRequested ends a run that printed help: exit status 0.
var helpRequested = errors.New("help requested")

func (c *CLI) dispatch(ctx context.Context, args []string) error {
	// Global flags before the command.
	fs := flag.NewFlagSet("noema", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.globalFlags(fs)
	help := fs.Bool("help", false, "")
	fs.BoolVar(help, "h", false, "")
	version := fs.Bool("version", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.usage(c.Stdout)
			return nil
		}
		return usagef("%s", flagError(err))
	}
	args = fs.Args()
	switch {
	case *version:
		return runVersion(ctx, c, nil)
	case *help:
		c.usage(c.Stdout)
		return nil
	case len(args) == 0:
		c.usage(c.Stderr)
		return usagef("no command given")
	case args[0] == "help":
		return c.help(args[1:])
	}
	path, rest := args[0], args[1:]
	if isGroup(path) {
		if len(rest) == 0 {
			groupUsage(c.Stderr, path)
			return usagef("%s needs a command", path)
		}
		switch rest[0] {
		case "-h", "--help", "help":
			groupUsage(c.Stdout, path)
			return nil
		}
		path, rest = path+" "+rest[0], rest[1:]
	}
	cmd := find(path)
	if cmd == nil {
		if word, _, ok := strings.Cut(path, " "); ok {
			groupUsage(c.Stderr, word)
		} else {
			c.usage(c.Stderr)
		}
		return usagef("unknown command %q", path)
	}
	return c.runCommand(ctx, cmd, rest)
}

// help prints the help of a command or group named by args.
func (c *CLI) help(args []string) error {
	if len(args) == 0 {
		c.usage(c.Stdout)
		return nil
	}
	if len(args) == 1 && isGroup(args[0]) {
		groupUsage(c.Stdout, args[0])
		return nil
	}
	cmd := find(strings.Join(args, " "))
	if cmd == nil {
		return usagef("no help for unknown command %q", strings.Join(args, " "))
	}
	in, err := newInput(cmd.in)
	if err != nil {
		return err
	}
	commandUsage(c.Stdout, cmd, in)
	return nil
}

func commandUsage(w io.Writer, cmd *command, in *input) {
	fmt.Fprintf(w, "Usage: noema %s", cmd.path)
	for _, p := range in.args() {
		arg := p.arg
		if p.variadic {
			arg += "…"
		}
		if p.optional {
			arg = "[" + arg + "]"
		}
		fmt.Fprintf(w, " %s", arg)
	}
	if len(in.params) > len(in.args()) {
		fmt.Fprint(w, " [flags]")
	}
	fmt.Fprintln(w)
	about := cmd.about
	if about == "" {
		about = cmd.summary
	}
	fmt.Fprintf(w, "\n%s\n", about)
	if cmd.tool != nil && cmd.tool.Name != "" {
		fmt.Fprintf(w, "(MCP tool %s)\n", cmd.tool.Name)
	}
	if len(in.params) > 0 {
		fmt.Fprintln(w, "\nArguments and flags:")
		in.usage(w)
	}
	fmt.Fprintf(w, "\n%s", globalUsage)
}

// runCommand parses a leaf command's flags and arguments (in any order, up
// to a "--"), runs it and prints its result.
func (c *CLI) runCommand(ctx context.Context, cmd *command, args []string) error {
	in, err := newInput(cmd.in)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet(cmd.path, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.globalFlags(fs)
	in.define(fs)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				commandUsage(c.Stdout, cmd, in)
				return nil
			}
			return usagef("%s: %s (see 'noema %s --help')", cmd.path, flagError(err), cmd.path)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			pos = append(pos, rest[1:]...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if err := in.setArgs(pos); err != nil {
		return usagef("%s %v (see 'noema %s --help')", cmd.path, err, cmd.path)
	}
	if err := in.validate(); err != nil {
		return usagef("%s: %v", cmd.path, err)
	}
	if cmd.tool != nil {
		if p := in.missing(cmd.in); p != nil {
			return usagef("%s: %s is required (see 'noema %s --help')", cmd.path, p.name(), cmd.path)
		}
	}
	if cmd.run != nil {
		if err := cmd.run(ctx, c, in.ptr.Elem().Interface()); err != nil {
			return &commandError{err, in}
		}
		return nil
	}
	res, err := c.runTool(ctx, cmd.tool, in)
	if err != nil {
		return &commandError{err, in}
	}
	if c.json {
		return writeJSON(c.Stdout, res)
	}
	cmd.tool.TerminalText(c.Stdout, res)
	return nil
}

// writeJSON prints v as indented JSON: a command's structured result.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (c *CLI) runTool(ctx context.Context, t *tools.Tool, in *input) (any, error) {
	if p := in.stdinParam(); p != nil && c.Stdin != nil && t.ReadsStdin(in.ptr.Elem().Interface()) {
		b, err := readAll(ctx, c.Stdin)
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		p.value.SetString(string(b))
	}
	specs, err := c.vaultSpecs()
	if err != nil {
		return nil, err
	}
	if t.NoVault {
		return t.Run(ctx, &tools.Env{Vaults: vaultInfos(specs)}, in.ptr.Elem().Interface())
	}
	// A read-only command reads a vault; only a write may create one.
	a, err := c.open(ctx, !t.Hints.ReadOnly)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if t.Embeds(in.ptr.Elem().Interface()) {
		// A local model the user configured is there or the command fails:
		// the tools' fallbacks (fuzzy, full text) serve agents whose
		// server's backend went away, not a user who never pulled it.
		if r, ok := a.Semantic.Embedder.(interface{ Ready() error }); ok {
			if err := r.Ready(); err != nil {
				return nil, noema.Errorf(noema.ErrorCode(err), "the embedder %s is not available: %s", a.Semantic.Embedder.Name(), noema.ErrorMessage(err))
			}
		}
	}
	bar := c.progressBar(t.Command)
	defer bar.finish()
	if t.Command != "sync" && t.Command != "reindex" { // they sync themselves, and report it
		if err := firstSync(ctx, a, bar.update); err != nil {
			return nil, err
		}
	}
	return t.Run(ctx, &tools.Env{App: a, Vaults: vaultInfos(specs), Progress: bar.update}, in.ptr.Elem().Interface())
}

// firstSync syncs an index that was never synced (a new vault, or an
// existing folder of notes used for the first time) before a command runs:
// otherwise reads would miss the notes already there, and `status` would
// say "last sync: never" after the command's own writes.
func firstSync(ctx context.Context, a *app.App, progress func(done, total int)) error {
	last, err := a.DB.GetMeta(ctx, "last_sync")
	if err != nil || last != "" {
		return err
	}
	_, err = a.Sync(ctx, false, progress)
	return err
}

// fail reports err and returns its exit status; in, when known, names the
// flags of the command that failed.
func (c *CLI) fail(err error, in *input) int {
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(c.Stderr, "noema: %s\n", ue.msg)
		return ExitUsage
	}
	code, msg := noema.ErrorCode(err), noema.ErrorMessage(err)
	if code == noema.EINTERNAL {
		msg = err.Error() // the operator is the reader here
	}
	var ne *noema.Error
	if errors.As(err, &ne) && ne.Param != "" && in != nil {
		if name := in.flagName(ne.Param); name != "" {
			msg = renameParam(msg, ne.Param, name)
		}
	}
	if c.json {
		e := map[string]any{"code": code, "message": msg}
		if ne != nil && len(ne.Details) > 0 {
			e["details"] = ne.Details
		}
		b, _ := json.MarshalIndent(map[string]any{"error": e}, "", "  ")
		fmt.Fprintln(c.Stdout, string(b))
	} else {
		fmt.Fprintf(c.Stderr, "noema: %s: %s\n", code, msg)
	}
	switch code {
	case noema.EADDRINUSE:
		return ExitAddrInUse
	case noema.ENOSPACE:
		return ExitNoSpace
	}
	return ExitError
}

// renameParam rewrites the MCP parameter param in msg as the command line
// spells it: "needs confirm=true" becomes "needs --confirm", "min_score
// must be …" becomes "--min-score must be …".
func renameParam(msg, param, name string) string {
	if strings.HasPrefix(name, "--") {
		msg = strings.ReplaceAll(msg, param+"=true", name)
	}
	return replace.Where(msg, param, name, func(s string, i, end int) bool {
		return (i > 0 && isWord(s[i-1])) || (end < len(s) && isWord(s[end])) || (i > 1 && s[i-2:i] == "--")
	})
}

func isWord(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (c *CLI) logger() *slog.Logger {
	level := slog.LevelWarn
	if c.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: level}))
}

// open opens the vault named by the global flags and environment (the
// first of several, or the one --vault NAME picks). When create is false a
// missing vault is not_found instead of a new empty one. A file where the
// vault should be is invalid_argument either way.
func (c *CLI) open(ctx context.Context, create bool) (*app.App, error) {
	specs, err := c.vaultSpecs()
	if err != nil {
		return nil, err
	}
	return c.openSpec(ctx, specs[0], create, false)
}

// vaultFolder returns the folder of the vault the global flags and
// environment name (the first of several).
func (c *CLI) vaultFolder() (string, error) {
	specs, err := c.vaultSpecs()
	if err != nil {
		return "", err
	}
	return specs[0].Dir, nil
}

// checkFolder refuses a vault folder that is a file (invalid_argument), and
// one that does not exist when it may not be created (not_found, with
// howToCreate).
func checkFolder(dir string, create bool, howToCreate string) error {
	switch fi, err := os.Stat(dir); {
	case err == nil && !fi.IsDir():
		return noema.Errorf(noema.EINVALID, "%s is a file, not a vault folder (give --vault a folder)", dir)
	case errors.Is(err, fs.ErrNotExist) && !create:
		return noema.Errorf(noema.ENOTFOUND, "no vault at %s (%s)", dir, howToCreate)
	case errors.Is(err, syscall.ENOTDIR):
		return noema.Errorf(noema.EINVALID, "%s is not a folder: a part of its path is a file", dir)
	}
	return nil
}

// config loads the configuration of the vault in dir, with the global
// flags' embedder and store over it.
func (c *CLI) config(dir string) (config.Config, error) {
	cfg, err := config.Load(dir, c.Getenv)
	if err != nil {
		return cfg, err
	}
	if c.embedder != "" || c.store != "" {
		if c.embedder != "" {
			cfg.Embedder.Backend = c.embedder
		}
		if c.store != "" {
			cfg.Store = c.store
		}
		if err := cfg.Validate(); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// Version is the module version noema was built as, or "(devel)".
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func runVersion(_ context.Context, c *CLI, _ any) error {
	fmt.Fprintln(c.Stdout, "noema", Version())
	return nil
}

// readAll reads r to its end, or until ctx is done: a read of a terminal or
// a pipe that nobody closes must not keep an interrupted command waiting.
// (The abandoned read ends with the process.)
func readAll(ctx context.Context, r io.Reader) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(r)
		done <- result{b, err}
	}()
	select {
	case res := <-done:
		return res.b, res.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/noema-mem/noema/internal/gate"
	"io"
	"net"
	"net/http"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/httpserver"
	"github.com/noema-mem/noema/internal/memlimit"
	"github.com/noema-mem/noema/mcpserver"
	"github.com/noema-mem/noema/tools"
	"github.com/noema-mem/noema/web"
)

// ExitGrace is how long noema may take to stop once asked to — SIGINT,
// SIGTERM, or the end of `noema mcp`'s input — before it exits regardless of
// what is still running (a read that blocks in the kernel, a driver that
// ignores cancellation). Nothing is lost by that: every write is an atomic
// rename or an SQLite transaction, which survive SIGKILL too.
const ExitGrace = 2 * time.Second

// ServeInput is `noema serve`'s flags.
type ServeInput struct {
	Addr           string        `json:"addr" jsonschema:"listen address" default:"\"127.0.0.1:7077\""`
	Token          string        `json:"token" jsonschema:"bearer token clients must send (default $NOEMA_TOKEN); required beyond loopback; it may use every vault"`
	TokenFile      string        `json:"token_file" jsonschema:"a YAML file of more tokens, each limited to some vaults and read-only or read-write (see docs/vaults.md)"`
	Toolsets       string        `json:"toolsets" jsonschema:"comma-separated toolsets to expose: notes, concepts, search, graph, admin, history (default all)"`
	MaxSessions    int           `json:"max_sessions" jsonschema:"most MCP sessions at once (clients before protocol 2026-07-28, which is sessionless); an initialize beyond gets 503 (0: no cap)" default:"1000" minimum:"0"`
	SessionTimeout time.Duration `json:"session_timeout" jsonschema:"close an MCP session (clients before 2026-07-28) idle this long (0: never)" default:"\"30m0s\""`
	UI             string        `json:"ui" jsonschema:"the web view at /: on, readonly (no merges, undos or writes) or off (default on when listening on loopback, readonly beyond; docs/web.md)" enum:"off,readonly,on"`
}

// DefaultUI is the web view's mode when serve is not given --ui: on for a
// loopback address; read-only beyond, where the page is reached over a
// network (with a token) and a merge or undo from a browser is one
// --ui=on away (docs/web.md).
func DefaultUI(addr string) web.Mode {
	if httpserver.IsLoopback(addr) {
		return web.On
	}
	return web.ReadOnly
}

// MCPInput is `noema mcp`'s flags.
type MCPInput struct {
	Toolsets string `json:"toolsets" jsonschema:"comma-separated toolsets to expose: notes, concepts, search, graph, admin, history (default all)"`
}

func runServe(ctx context.Context, c *CLI, v any) error {
	in := v.(ServeInput)
	if in.SessionTimeout < 0 {
		return usagef("serve: --session-timeout cannot be negative")
	}
	if err := checkAddr(in.Addr); err != nil {
		return err
	}
	maxSessions, sessionTimeout := in.MaxSessions, in.SessionTimeout
	if maxSessions == 0 {
		maxSessions = -1 // httpserver: negative is no cap
	}
	if sessionTimeout == 0 {
		sessionTimeout = -1 // httpserver: negative is never
	}
	uiMode, err := web.ParseMode(in.UI, DefaultUI(in.Addr))
	if err != nil {
		return err
	}
	token := in.Token
	if token == "" {
		token = c.Getenv("NOEMA_TOKEN")
	}
	logger := c.logger()
	var tokens []httpserver.Token
	if in.TokenFile != "" {
		var warning string
		var err error
		if tokens, warning, err = httpserver.LoadTokenFile(in.TokenFile); err != nil {
			return err
		}
		if warning != "" {
			c.warnf("%s", warning)
		}
	}
	var g gate.Gate // requests in flight, which background work gives way to
	vaults, srv, err := c.openServer(ctx, in.Toolsets, &g)
	if err != nil {
		return err
	}
	defer closeVaults(vaults)
	var named []tokenVaults
	for _, t := range tokens {
		named = append(named, tokenVaults{t.Name, t.Access.Vaults})
	}
	if err := checkTokenVaults(in.TokenFile, named, vaults); err != nil {
		return err
	}
	opts := httpserver.Options{
		Addr: in.Addr, Token: token, Tokens: tokens, Logger: logger,
		MaxSessions: maxSessions, SessionTimeout: sessionTimeout,
		// Requests in flight are cancelled on shutdown (cancelOnStop); leave
		// them half the grace to answer.
		ShutdownTimeout: ExitGrace / 2,
	}
	if uiMode != web.Off {
		ui, err := web.New(web.Options{Vaults: vaults, Mode: uiMode, Version: Version(), Logger: logger, Gate: &g})
		if err != nil {
			return err
		}
		opts.UI, opts.UILogin, opts.UIAssets = ui, ui.Login(), ui.Assets()
	}
	hs, err := httpserver.NewMCP(srv, opts)
	if err != nil {
		return err
	}
	ln, err := hs.Listen(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	startVaults(ctx, vaults, &g) // closeVaults (deferred) stops them and waits for them
	if ui, ok := opts.UI.(*web.Handler); ok {
		// Warm reads the vaults' indexes: it ends (ctx cancelled, then
		// waited for) before the deferred closeVaults closes them.
		var warm sync.WaitGroup
		warm.Go(func() { ui.Warm(gate.Background(ctx, &g)) })
		defer func() { cancel(); warm.Wait() }()
	}
	// The heap kept near its live size (internal/memlimit; issue 21).
	go memlimit.Run(ctx, c.Getenv)
	if addr := c.Getenv("NOEMA_PPROF"); addr != "" {
		if err := servePprof(ctx, addr, c.Stderr); err != nil {
			return err
		}
	}
	// Only now that the port is bound (so ":0" shows the port chosen).
	fmt.Fprintf(c.Stderr, "noema: serving %s over MCP at http://%s%s (stop with Ctrl-C or SIGTERM)\n", describeVaults(vaults), ln.Addr(), httpserver.DefaultPath)
	if uiMode != web.Off {
		fmt.Fprintf(c.Stderr, "noema: the web view (%s) is at http://%s/\n", uiMode, ln.Addr())
	}
	if err := hs.Serve(ctx, ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func runMCP(ctx context.Context, c *CLI, v any) error {
	in := v.(MCPInput)
	var g gate.Gate // requests in flight, which background work gives way to
	vaults, srv, err := c.openServer(ctx, in.Toolsets, &g)
	if err != nil {
		return err
	}
	defer closeVaults(vaults)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	startVaults(ctx, vaults, &g) // closeVaults (deferred) stops them and waits for them
	go memlimit.Run(ctx, c.Getenv)
	// The end of the input ends the session once the requests read are
	// answered (see stdio); from then on the process has ExitGrace to wind
	// down.
	std := newStdio(c.Stdin, c.Stdout, func() {
		if c.Stop != nil {
			c.Stop(ErrEndOfInput)
		}
	})
	// std bounds every line it passes on (MaxLineBytes): the SDK's own
	// limit would end the session on a long line instead.
	transport := &mcp.IOTransport{Reader: std, Writer: nopWriteCloser{std}, MaxLineLength: -1}
	// Once stopping, whatever ends the session (a response that can no
	// longer be written, say) is part of a clean stop.
	if err := srv.Run(ctx, transport); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// nopWriteCloser keeps stdout open when the transport closes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// cancelOnStop ties every request's context to ctx, the server's life: the
// SDK does not cancel requests in flight when it shuts a session down (it
// waits for them), so without this a request waiting on a lock or on
// SQLite's busy timeout would hold up `noema mcp` or `noema serve` after a
// signal.
//
// It also counts the request as in flight on g while it runs, so that the
// vaults' background work gives way to it (internal/gate), and labels its
// goroutines (and those they start) with the MCP method and the tool
// called, so that a CPU profile (NOEMA_PPROF) tells one tool's time from
// the background's: go tool pprof -tagfocus tool=find_concepts.
func cancelOnStop(ctx context.Context, g *gate.Gate) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(rctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer g.Begin()()
			rctx, cancel := context.WithCancelCause(gate.Request(rctx, g))
			defer cancel(nil)
			unhook := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
			defer unhook()
			labels := []string{"mcp", method}
			if req != nil {
				if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
					labels = append(labels, "tool", p.Name)
				}
			}
			pprof.Do(rctx, pprof.Labels(labels...), func(rctx context.Context) {
				res, err = next(rctx, method, req)
			})
			return res, err
		}
	}
}

// openServer opens every vault the command line names and the MCP server
// of them all; the server's requests are counted on g, which the vaults'
// background work gives way to (startVaults).
func (c *CLI) openServer(ctx context.Context, toolsets string, g *gate.Gate) ([]tools.Vault, *mcp.Server, error) {
	vaults, err := c.openVaults(ctx)
	if err != nil {
		return nil, nil, err
	}
	version := Version()
	if version == "(devel)" {
		version = "devel"
	}
	var sets []string
	if toolsets != "" {
		sets = strings.Split(toolsets, ",")
	}
	srv, err := mcpserver.NewVaults(vaults, mcpserver.Options{Toolsets: sets, Version: version, Logger: c.logger()})
	if err != nil {
		closeVaults(vaults)
		return nil, nil, err
	}
	srv.AddReceivingMiddleware(cancelOnStop(ctx, g))
	return vaults, srv, nil
}

// startVaults starts every vault's background work (app.App.Start), which
// gives way to the requests counted on g.
func startVaults(ctx context.Context, vaults []tools.Vault, g *gate.Gate) {
	ctx = gate.Background(ctx, g)
	for _, v := range vaults {
		v.App.Start(ctx)
	}
}

// closeVaults closes every vault, each waiting for its background work.
func closeVaults(vaults []tools.Vault) {
	for _, v := range vaults {
		v.App.Close()
	}
}

// checkAddr refuses a listen address that no listener could take (no port,
// a port number beyond 65535) as invalid_argument, before the vault is
// opened.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return noema.Errorf(noema.EINVALID, "--addr %q is not HOST:PORT (such as 127.0.0.1:7077)", addr)
	}
	if port == "" {
		return nil // any free port, as ":0"
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return noema.Errorf(noema.EINVALID, "--addr %q: the port must be a number from 0 to 65535", addr)
	}
	return nil
}

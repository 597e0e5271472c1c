package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"

	"github.com/noema-mem/noema/httpserver"
	"github.com/noema-mem/noema/mcpserver"
)

func runServe(ctx context.Context, m *Main, args []string) (any, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:7077", "listen address")
	token := fs.String("token", "", "bearer token clients must send (default $NOEMA_TOKEN); required beyond loopback")
	toolsets := fs.String("toolsets", "", "comma-separated toolsets to expose: "+strings.Join(mcpserver.Toolsets(), ",")+" (default all)")
	maxSessions := fs.Int("max-sessions", httpserver.DefaultMaxSessions, "most MCP sessions at once; an initialize beyond gets 503 (0: no cap)")
	sessionTimeout := fs.Duration("session-timeout", httpserver.DefaultSessionTimeout, "close an MCP session idle this long (0: never)")
	if _, err := m.parseFlags(fs, "serve [--addr HOST:PORT] [--token T] [--toolsets …] [--max-sessions N] [--session-timeout D]", args); err != nil {
		return nil, err
	}
	if *maxSessions < 0 || *sessionTimeout < 0 {
		return nil, usagef("serve: --max-sessions and --session-timeout cannot be negative")
	}
	if *maxSessions == 0 {
		*maxSessions = -1 // httpserver: negative is no cap
	}
	if *sessionTimeout == 0 {
		*sessionTimeout = -1 // httpserver: negative is never
	}
	if *token == "" {
		*token = m.Getenv("NOEMA_TOKEN")
	}
	logger := m.logger()
	a, srv, err := m.openServer(ctx, *toolsets, logger)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	hs, err := httpserver.NewMCP(srv, httpserver.Options{
		Addr: *addr, Token: *token, Logger: logger,
		MaxSessions: *maxSessions, SessionTimeout: *sessionTimeout,
		// Requests in flight are cancelled on shutdown (cancelOnStop); leave
		// them half the grace to answer.
		ShutdownTimeout: exitGrace / 2,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go m.background(ctx, a, logger)
	fmt.Fprintf(m.Stderr, "noema: serving %s over MCP at http://%s/mcp\n", a.Vault.Root, *addr)
	if err := hs.ListenAndServe(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return nil, err
	}
	return nil, nil
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/httpserver"
	"github.com/noema-mem/noema/mcpserver"
)

func runServe(ctx context.Context, m *Main, args []string) (any, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:7077", "listen address")
	token := fs.String("token", "", "bearer token clients must send (default $NOEMA_TOKEN); required beyond loopback")
	toolsets := fs.String("toolsets", "", "comma-separated toolsets to expose: "+strings.Join(mcpserver.Toolsets(), ",")+" (default all)")
	if _, err := m.parseFlags(fs, "serve [--addr HOST:PORT] [--token T] [--toolsets …]", args); err != nil {
		return nil, err
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
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Logger: logger,
		// The hardened front enforces the body limit; keep the SDK's equal so
		// the lower limit never surprises.
		MaxRequestBodyBytes: httpserver.DefaultMaxBodyBytes,
	})
	hs, err := httpserver.New(handler, httpserver.Options{Addr: *addr, Token: *token, Logger: logger, MaxBodyBytes: httpserver.DefaultMaxBodyBytes})
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

package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/internal/lock"
	"github.com/noema-mem/noema/mcpserver"
)

// lockRetry is how often a process that is not the indexer checks whether
// the indexer's lock has become free (its holder exited or died).
const lockRetry = 3 * time.Second

func runMCP(ctx context.Context, m *Main, args []string) (any, error) {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	toolsets := fs.String("toolsets", "", "comma-separated toolsets to expose: "+strings.Join(mcpserver.Toolsets(), ",")+" (default all)")
	if _, err := m.parseFlags(fs, "mcp [--toolsets …]", args); err != nil {
		return nil, err
	}
	logger := m.logger()
	a, srv, err := m.openServer(ctx, *toolsets, logger)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go m.background(ctx, a, logger)
	// The end of the input ends the session (the SDK cancels the requests
	// in flight); from then on the process has exitGrace to wind down.
	in := &endReader{r: m.Stdin, onEnd: func() {
		if m.stop != nil {
			m.stop(errEndOfInput)
		}
	}}
	transport := &mcp.IOTransport{Reader: in, Writer: nopWriteCloser{m.Stdout}}
	// Once stopping, whatever ends the session (a response that can no
	// longer be written, say) is part of a clean stop.
	if err := srv.Run(ctx, transport); err != nil && ctx.Err() == nil {
		return nil, err
	}
	return nil, nil
}

// endReader calls onEnd (once) when a read of r fails: end of input, or a
// broken pipe. Close closes r if it can be closed.
type endReader struct {
	r     io.Reader
	onEnd func()
	once  sync.Once
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(e.onEnd)
	}
	return n, err
}

func (e *endReader) Close() error {
	if c, ok := e.r.(io.Closer); ok {
		return c.Close()
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
func cancelOnStop(ctx context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(rctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			rctx, cancel := context.WithCancelCause(rctx)
			defer cancel(nil)
			unhook := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
			defer unhook()
			return next(rctx, method, req)
		}
	}
}

func (m *Main) openServer(ctx context.Context, toolsets string, logger *slog.Logger) (*app.App, *mcp.Server, error) {
	a, err := m.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	version := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	var sets []string
	if toolsets != "" {
		sets = strings.Split(toolsets, ",")
	}
	srv, err := mcpserver.New(a, mcpserver.Options{Toolsets: sets, Version: version, Logger: logger})
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	srv.AddReceivingMiddleware(cancelOnStop(ctx))
	return a, srv, nil
}

// background makes this process the vault's indexer when no other process
// is: it takes the indexer lock, runs the first sync and then keeps the index
// live with the watcher. Without the lock it retries, so a surviving server
// takes over when the indexer exits. None of this delays the MCP handshake.
func (m *Main) background(ctx context.Context, a *app.App, logger *slog.Logger) {
	path := filepath.Join(a.Vault.Root, app.IndexDir, "indexer.lock")
	for {
		l, err := lock.TryAcquire(path)
		if err == nil {
			defer l.Release()
			a.SetRole(app.RoleIndexer)
			if _, err := a.Sync(ctx, false, nil); err != nil && ctx.Err() == nil {
				logger.Error("first sync", "err", err)
			}
			// Embeddings follow the registry in the background; an
			// unreachable backend only affects find_similar_concepts.
			refresh := func() {
				if err := a.Semantic.Refresh(ctx); err != nil && ctx.Err() == nil {
					logger.Warn("embedding concepts", "err", err)
				}
				if err := a.Semantic.RefreshChunks(ctx); err != nil && ctx.Err() == nil {
					logger.Warn("embedding note chunks", "err", err)
				}
			}
			go refresh()
			// After every quiet period of file events (tool writes included,
			// which the index already holds): embed what changed.
			onSync := func(_ *indexer.Result, err error) {
				if err == nil {
					go refresh()
				}
			}
			if err := a.Indexer.Watch(ctx, a.Config.WatchDebounce, onSync); err != nil && ctx.Err() == nil {
				logger.Error("file watcher stopped", "err", err)
			}
			return
		}
		if !errors.Is(err, lock.ErrHeld) {
			logger.Warn("indexer lock", "err", err)
		}
		a.SetRole(app.RoleReader)
		select {
		case <-ctx.Done():
			return
		case <-time.After(lockRetry):
		}
	}
}

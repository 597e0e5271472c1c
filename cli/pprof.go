package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// servePprof serves the Go runtime's profiles (net/http/pprof's handlers,
// under /debug/pprof/) on addr until ctx is done: `NOEMA_PPROF=127.0.0.1:6060
// noema serve` lets the scale benchmarks take a server's heap and CPU
// profiles (docs/decisions.md, issue 21). Only a loopback address is
// accepted: the profiles show what the server holds.
func servePprof(ctx context.Context, addr string, stderr io.Writer) error {
	if err := checkLoopback(addr); err != nil {
		return fmt.Errorf("NOEMA_PPROF: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("NOEMA_PPROF: listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	go srv.Serve(ln) //nolint:errcheck // ends with ErrServerClosed at ctx's end
	fmt.Fprintf(stderr, "noema: profiles at http://%s/debug/pprof/\n", ln.Addr())
	return nil
}

// checkLoopback accepts host:port whose host is a loopback address or
// localhost.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("address %q is not a loopback address", addr)
}

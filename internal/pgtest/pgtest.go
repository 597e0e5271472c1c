// Package pgtest gives tests a fresh PostgreSQL database of their own on the
// server the environment names, so that every test of the PostgreSQL store
// runs against the real server and none sees another's rows.
//
// NOEMA_TEST_POSTGRES holds the DSN of a role allowed to create databases
// (`.ci/postgres start` prints it for a throwaway cluster). Without it a test
// skips with a message, except under CI=true, where a missing database is a
// failure: CI must never pass by testing nothing.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names the variable holding the test server's DSN.
const EnvDSN = "NOEMA_TEST_POSTGRES"

// ServerDSN returns the DSN of the test server, skipping tb (or failing it
// under CI=true) when none is set.
func ServerDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s is not set: CI must run the PostgreSQL tests (.ci/postgres start)", EnvDSN)
		}
		tb.Skipf("no PostgreSQL: set %s to a DSN that may create databases (.ci/postgres start prints one)", EnvDSN)
	}
	return dsn
}

// NewDatabase creates an empty database for tb on the test server and
// returns its DSN; the database is dropped when tb ends.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	server := ServerDSN(tb)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatal(err)
	}
	name := "noema_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := exec(ctx, server, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("create test database: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := exec(ctx, server, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("drop test database %s: %v", name, err)
		}
	})
	dsn, err := withDatabase(server, name)
	if err != nil {
		tb.Fatal(err)
	}
	return dsn
}

// StoreURL returns the store URL of vault name in the database dsn names
// (dsn?vault=name, see postgres.SplitVault).
func StoreURL(tb testing.TB, dsn, name string) string {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatalf("store URL of %q: %v", dsn, err)
	}
	q := u.Query()
	q.Set("vault", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// exec runs one statement on a new connection to dsn.
func exec(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// withDatabase returns dsn naming database name instead of its own.
func withDatabase(dsn, name string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("%s must be a postgres:// URL, not %q", EnvDSN, dsn)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// Proxy is a TCP proxy in front of the test server that a test can cut, to
// stand for PostgreSQL going away (a stopped server, a lost network) without
// stopping the server other tests use.
type Proxy struct {
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

// NewProxy starts a proxy to the server dsn names and returns it with the
// DSN that goes through it; it stops when tb ends.
func NewProxy(tb testing.TB, dsn string) (*Proxy, string) {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{target: u.Host, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	tb.Cleanup(p.Cut)
	u.Host = p.addr
	return p, u.String()
}

// Cut closes every connection through the proxy and refuses new ones.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Restore accepts connections again, on the same address.
func (p *Proxy) Restore(tb testing.TB) {
	tb.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		tb.Fatalf("reopen the proxy at %s: %v", p.addr, err)
	}
	p.serve(ln)
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
}

func (p *Proxy) pipe(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut meanwhile
		p.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(s, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, s); done <- struct{}{} }()
	<-done
	c.Close()
	s.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, s)
	p.mu.Unlock()
}

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
	"net/url"
	"os"
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

package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/pgtest"
)

// TestBrokenConnectionResolved: a write whose connection breaks after it
// was sent — while the database still runs it, blocked on the vault's row
// — is reported as the database settles it: made (with its sequence
// number) when the blocked call goes on to commit, and unavailable with
// "not made" when its backend is terminated instead. Before commit ids both
// were "may or may not have been made".
func TestBrokenConnectionResolved(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	if _, err := Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	proxy, proxied := pgtest.NewProxy(t, dsn)
	db, err := Open(ctx, proxied, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Vault(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	direct, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(ctx)
	cur := write(t, s, "a.md", "v0", noema.Absent).Checksum
	for i, made := range []bool{true, false} {
		next := []byte("v" + string(rune('1'+i)))
		holder, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := holder.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM noema_vaults WHERE vault = 'work' FOR UPDATE`); err != nil {
			t.Fatal(err)
		}
		type result struct {
			c   noema.Change
			err error
		}
		done := make(chan result, 1)
		go func() {
			c, err := s.WriteFile(ctx, "a.md", next, cur)
			done <- result{c, err}
		}()
		var waiting int64
		for deadline := time.Now().Add(10 * time.Second); waiting == 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the write never waited on the vault's row")
			}
			if err := direct.QueryRow(ctx, `SELECT COALESCE(max(pid), 0) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
		}
		proxy.Cut()
		if !made {
			if _, err := direct.Exec(ctx, `SELECT pg_terminate_backend($1)`, waiting); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(100 * time.Millisecond)
		tx.Rollback(ctx)
		holder.Close(ctx)
		proxy.Restore(t)
		res := <-done
		var have string
		if err := direct.QueryRow(ctx, `SELECT convert_from(data, 'UTF8') FROM noema_files WHERE vault = 'work' AND path = 'a.md'`).Scan(&have); err != nil {
			t.Fatal(err)
		}
		if made {
			if res.err != nil || res.c.Seq == 0 || res.c.Checksum != noema.Checksum(next) || have != string(next) {
				t.Fatalf("a write that was made after its connection broke: %+v, %v; the database holds %q", res.c, res.err, have)
			}
			cur = res.c.Checksum
			continue
		}
		if noema.ErrorCode(res.err) != noema.EUNAVAILABLE || !strings.Contains(res.err.Error(), "was not made") || have == string(next) {
			t.Fatalf("a write whose backend was terminated after its connection broke: %v; the database holds %q", res.err, have)
		}
	}
}

package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/pgtest"
)

func TestOpenRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	fresh := pgtest.NewDatabase(t)
	newer := pgtest.NewDatabase(t)
	if _, err := Migrate(ctx, newer); err != nil {
		t.Fatal(err)
	}
	execSQL(t, newer, `INSERT INTO noema_schema (version, name) VALUES (999, '0999_future.sql')`)
	older := pgtest.NewDatabase(t)
	if _, err := migrate(ctx, older, nil); err != nil { // the schema table, no step
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dsn, code, want string
	}{
		{"empty DSN", "", noema.EINVALID, "no PostgreSQL DSN"},
		{"malformed DSN", "postgres://noema:s3cret@127.0.0.1:notaport/db", noema.EINVALID, "malformed PostgreSQL DSN"},
		{"malformed key=value DSN", "host=127.0.0.1 password=s3cret port=x", noema.EINVALID, "malformed PostgreSQL DSN"},
		{"unknown scheme", "mysql://x", noema.EINVALID, "malformed PostgreSQL DSN"},
		{"nobody listening", "postgres://noema@127.0.0.1:1/db?connect_timeout=2", noema.EUNAVAILABLE, "unavailable"},
		{"no schema", fresh, noema.EINVALID, "no noema schema"},
		{"older schema", older, noema.EINVALID, "noema store migrate"},
		{"newer schema", newer, noema.EINVALID, "newer than this noema knows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(ctx, tc.dsn, nil)
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			if got := noema.ErrorCode(err); got != tc.code || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q (code %s), want code %s mentioning %q", err, got, tc.code, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("the error repeats the password: %q", err)
			}
		})
	}
}

func TestMigrateOnceAndOnlyWhole(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)

	// A step that fails leaves nothing behind, not even the steps before it.
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	broken := append(ms[:len(ms):len(ms)], migration{version: len(ms) + 1, name: "bad.sql", sql: `CREATE TABLE half (x int); SELECT no_such_function()`})
	if _, err := migrate(ctx, dsn, broken); err == nil {
		t.Fatal("a failing step was applied")
	}
	if n := tableCount(t, dsn); n != 0 {
		t.Fatalf("a failed migration left %d tables", n)
	}

	// Two servers migrating at once apply every step exactly once.
	var wg sync.WaitGroup
	applied := make([][]string, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			applied[i], errs[i] = Migrate(ctx, dsn)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if total := len(applied[0]) + len(applied[1]); total != len(ms) {
		t.Fatalf("two concurrent migrations applied %d steps, want %d: %v", total, len(ms), applied)
	}
	again, err := Migrate(ctx, dsn)
	if err != nil || len(again) != 0 {
		t.Fatalf("a current schema migrated again: %v %v", again, err)
	}
	db, err := Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

func execSQL(t *testing.T, dsn, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatal(err)
	}
}

func tableCount(t *testing.T, dsn string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSplitVault(t *testing.T) {
	for _, tc := range []struct{ in, dsn, vault string }{
		{"postgres://u@h:5432/db", "postgres://u@h:5432/db", DefaultVault},
		{"postgres://u@h:5432/db?vault=work&sslmode=disable", "postgres://u@h:5432/db?sslmode=disable", "work"},
		{"postgresql://u@h/db?vault=a%20b", "postgresql://u@h/db", "a b"},
		{"host=h dbname=db vault=home", "host=h dbname=db", "home"},
		{"host=h dbname=db", "host=h dbname=db", DefaultVault},
	} {
		dsn, vault, err := SplitVault(tc.in)
		if err != nil || dsn != tc.dsn || vault != tc.vault {
			t.Errorf("SplitVault(%q) = %q, %q, %v; want %q, %q", tc.in, dsn, vault, err, tc.dsn, tc.vault)
		}
	}
}

func TestOpenStoreNamesItsVault(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	if _, err := Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	s, err := OpenStore(ctx, dsn+sep+"vault=work", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Name() != "work" {
		t.Fatalf("vault %q", s.Name())
	}
	if _, err := OpenStore(ctx, dsn+sep+"vault=", nil); noema.ErrorCode(err) != noema.EINVALID {
		t.Fatalf("an empty vault name: %v", err)
	}
}

// TestMigrateFromVersion1: a database at 0001's schema, with a vault and
// its files, is refused by Open until `store migrate` brings it to this
// build's schema, which keeps the files and records operations.
func TestMigrateFromVersion1(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate(ctx, dsn, ms[:1]); err != nil {
		t.Fatal(err)
	}
	execSQL(t, dsn, `INSERT INTO noema_vaults (vault, seq) VALUES ('work', 1)`)
	execSQL(t, dsn, `INSERT INTO noema_files (vault, path, data, checksum, version, modified, seq)
		VALUES ('work', 'a.md', 'a', '`+noema.Checksum([]byte("a"))+`', 1, now(), 1)`)
	if db, err := Open(ctx, dsn, nil); err == nil || !strings.Contains(err.Error(), "noema store migrate") {
		if db != nil {
			db.Close()
		}
		t.Fatalf("a database at version 1 opened: %v", err)
	}
	applied, err := Migrate(ctx, dsn)
	if err != nil || len(applied) != len(ms)-1 || applied[0] != "0002_operations.sql" {
		t.Fatalf("migrate from version 1: applied %v, %v", applied, err)
	}
	db, err := Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Vault(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyChangeset(ctx, &noema.Changeset{Operation: "move_note",
		Changes: []noema.FileChange{{Path: "a.md", Before: noema.Checksum([]byte("a")), After: []byte("b")}}}); err != nil {
		t.Fatal(err)
	}
	ops, total, err := s.Operations(ctx, 0, 0)
	if err != nil || total != 1 || ops[0].Files[0].Path != "a.md" {
		t.Fatalf("after the migration the log lists %+v (total %d), %v", ops, total, err)
	}
}

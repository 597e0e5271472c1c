package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestNewDatabaseIsFreshAndDropped checks that each call gets an empty
// database of its own, and that it is gone once the test that made it ends.
func TestNewDatabaseIsFreshAndDropped(t *testing.T) {
	ctx := context.Background()
	var first string
	t.Run("make", func(t *testing.T) {
		first = NewDatabase(t)
		second := NewDatabase(t)
		if first == second {
			t.Fatalf("two calls gave one database: %s", first)
		}
		conn, err := pgx.Connect(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var tables int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&tables); err != nil {
			t.Fatal(err)
		}
		if tables != 0 {
			t.Fatalf("a new database holds %d tables", tables)
		}
	})
	if first == "" {
		return // skipped: no server
	}
	if conn, err := pgx.Connect(ctx, first); err == nil {
		conn.Close(ctx)
		t.Fatalf("the database of a finished test still accepts connections: %s", first)
	}
}

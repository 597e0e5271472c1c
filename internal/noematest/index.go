package noematest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/sqlite"
)

// OpenIndex opens an empty index in a temporary folder, closed when the
// test ends.
func OpenIndex(tb testing.TB) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "index.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// Key is a simple stand-in for vault.Key: lower case, "_" and "-" as
// spaces, white space folded.
func Key(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("_", " ", "-", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

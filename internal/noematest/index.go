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

// ConceptTables dumps the concepts and concept_keys tables of db in a
// stable order (see Rows).
func ConceptTables(tb testing.TB, db *sqlite.DB) string {
	tb.Helper()
	return Rows(tb, db.Read(),
		`SELECT id, key, label, aliases, description, metadata, COALESCE(page_note_id, 0), created_ns, updated_ns FROM concepts ORDER BY id`,
		`SELECT key, concept_id, text, is_label FROM concept_keys ORDER BY key`)
}

// Recomputed recomputes db's concept registry from scratch with key (see
// sqlite.RecomputeConcepts) and returns its tables as ConceptTables dumps
// them: what an incrementally kept registry must equal.
func Recomputed(tb testing.TB, db *sqlite.DB, key func(string) string) string {
	tb.Helper()
	if err := db.Write(context.Background(), func(tx *sqlite.Tx) error {
		_, err := sqlite.RecomputeConcepts(tx, key)
		return err
	}); err != nil {
		tb.Fatal(err)
	}
	return ConceptTables(tb, db)
}

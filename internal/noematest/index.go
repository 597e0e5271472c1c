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

// ConceptTables dumps the concepts, concept_keys and link_spellings
// tables of db in a stable order (see Rows).
func ConceptTables(tb testing.TB, db *sqlite.DB) string {
	tb.Helper()
	return Rows(tb, db.Read(),
		`SELECT id, key, label, aliases, description, metadata, COALESCE(page_note_id, 0), created_ns, updated_ns FROM concepts ORDER BY id`,
		`SELECT key, concept_id, text, is_label FROM concept_keys ORDER BY key`,
		`SELECT key, target, count FROM link_spellings ORDER BY key, target`)
}

// CheckSpellings fails tb unless db's link_spellings sums its links: one
// row per key and spelling, with their total count.
func CheckSpellings(tb testing.TB, db *sqlite.DB) {
	tb.Helper()
	kept := Rows(tb, db.Read(), `SELECT key, target, count FROM link_spellings ORDER BY key, target`)
	summed := Rows(tb, db.Read(), `SELECT key, target, SUM(count) FROM links GROUP BY key, target ORDER BY key, target`)
	if kept != summed {
		tb.Fatalf("link_spellings does not sum the links:\nkept:\n%.2000s\nsummed:\n%.2000s", kept, summed)
	}
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
	CheckSpellings(tb, db)
	return ConceptTables(tb, db)
}

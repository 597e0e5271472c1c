package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestWritePathQueriesUseIndexes checks the plans of the lookups a write
// runs for every note it changes, and of the reads that follow one (the
// concepts it added or renamed): none may scan a table whose size grows
// with the vault (at a million concepts, one scan of concepts is ~100 ms).
func TestWritePathQueriesUseIndexes(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, q := range map[string]string{
		"page of a note":             pageishQuery,
		"a deleted note's page link": `UPDATE concepts SET page_note_id = NULL WHERE page_note_id = ?1`,
		"concepts changed since":     conceptsSinceQuery,
		"concepts renamed since":     labelsSinceQuery,
	} {
		rows, err := db.Read().QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notUsed int
			var detail string
			if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		for _, step := range plan {
			if strings.HasPrefix(step, "SCAN ") && step != "SCAN CONSTANT ROW" {
				t.Errorf("%s scans a table: %s (plan: %q)", name, step, plan)
			}
		}
	}
}

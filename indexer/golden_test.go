package indexer_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/sqlite"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/coldsync.golden from this build")

// goldenColdSync is the digest of every table after a cold sync of the
// generated vault below, as the build before issue 21's sync changes
// (6d41669) left it.
const goldenColdSync = "testdata/coldsync.golden"

// TestColdSyncIndexIsUnchanged: a cold sync, loaded in bulk and in small
// batches, leaves every table of the index row for row as the build before
// the sync changes left it (testdata/coldsync.golden: a digest by table),
// but for what depends on the machine (file ctimes, inodes, when files
// were read, when the sync ran) and the FTS5 segment layout (checked with
// FTS5's integrity-check instead); and the schema (tables, indexes,
// triggers) is the same.
func TestColdSyncIndexIsUnchanged(t *testing.T) {
	want, err := os.ReadFile(goldenColdSync)
	if err != nil && !*updateGolden {
		t.Fatal(err)
	}
	fixed := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, c := range []struct {
		name        string
		bulk, batch int
	}{{"default", 0, 0}, {"bulk", 1, 0}, {"bulk in small batches", 1, 37}} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := noematest.Corpus(t, corpus.Options{Seed: 21, Notes: 300})
			// What the generated notes lack: pages, relations, tags,
			// aliases, shared titles, CJK text.
			for rel, content := range map[string]string{
				"concepts/Graph Theory.md": "---\nid: graph-theory\naliases: [Graphs]\ndescription: vertices and edges\ntags: [math]\n---\nSee [[Euler]] and [[Graphs]].\n",
				"people/Euler.md":          "---\naliases: [Leonhard Euler]\nrelations:\n  - type: studied\n    to: Graph Theory\n  - type: knew\n    to: Nobody Here\n---\n# Euler\n\n[[Graph Theory]] [[Königsberg]]\n",
				"a/Plan.md":                "first plan, [[Euler]] twice [[Euler]]\n",
				"b/Plan.md":                "second plan 图论 グラフ\n",
			} {
				p := treetest.Write(t, dir, rel, content)
				if err := os.Chtimes(p, fixed, fixed); err != nil { // dates derive from mtimes
					t.Fatal(err)
				}
			}
			ix := open(t, dir)
			if c.bulk > 0 {
				ix.SetBulk(c.bulk)
			}
			if c.batch > 0 {
				ix.SetBatch(c.batch)
			}
			if _, err := ix.Sync(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if err := ix.DB.Write(context.Background(), func(tx *sqlite.Tx) error {
				_, err := tx.Exec(`INSERT INTO notes_fts (notes_fts) VALUES ('integrity-check')`)
				return err
			}); err != nil {
				t.Fatalf("full-text index: %v", err)
			}
			got := tableDigests(t, ix.DB.Read(), c.batch == 0)
			if *updateGolden && c.name == "default" {
				if err := os.MkdirAll(filepath.Dir(goldenColdSync), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(goldenColdSync, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				want = []byte(got)
			}
			if c.batch > 0 {
				// Batches commit more often: the text version counts commits.
				want := strings.Join(dropLines(string(want), "search_state"), "")
				if got != want {
					t.Fatalf("index differs from the golden one:\n%s", lineDiff(got, want))
				}
				return
			}
			if got != string(want) {
				t.Fatalf("index differs from the golden one:\n%s", lineDiff(got, string(want)))
			}
		})
	}
}

// tableDigests renders a line per table of the index: its name, row count
// and a digest of its rows in a fixed order; with versions, search_state
// (commit counters) too. Then a line per schema object with its digest.
func tableDigests(t *testing.T, db *sql.DB, versions bool) string {
	t.Helper()
	// Columns that depend on the machine or the moment, by table.
	// The change log's order of concepts and keys follows map iteration:
	// it is compared as a set of (kind, ref) entries.
	// The note state snapshot holds the notes' skipped columns (and the
	// log position); TestSnapshotSyncFindsEveryChange checks it.
	skip := map[string][]string{"notes": {"ctime_ns", "inode", "verified_ns"}, "graph_log": {"seq"}, "note_state_snapshot": {"pos", "data"}}
	var tables []string
	noematest.EachRow(t, db, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
		AND name NOT IN ('notes_fts_data', 'notes_fts_idx') ORDER BY name`, func(rows *sql.Rows) error {
		var n string
		err := rows.Scan(&n)
		tables = append(tables, n)
		return err
	})
	var b strings.Builder
	for _, table := range tables {
		if table == "search_state" && !versions {
			continue
		}
		var cols []string
		noematest.EachRow(t, db, fmt.Sprintf(`SELECT name FROM pragma_table_info('%s') ORDER BY cid`, table), func(rows *sql.Rows) error {
			var n string
			if err := rows.Scan(&n); err != nil {
				return err
			}
			for _, s := range skip[table] {
				if s == n {
					return nil
				}
			}
			if table == "note_state_snapshot" && n == "schema_version" {
				// SQLite's schema cookie counts the schema's changes, and a
				// cold load in bulk drops and creates indexes (sqlite.TextLoad):
				// what holds is that the snapshot was saved under the schema
				// as it is.
				cols = append(cols, `"schema_version" = (SELECT schema_version FROM pragma_schema_version)`)
				return nil
			}
			cols = append(cols, `"`+n+`"`)
			return nil
		})
		where := ""
		if table == "meta" {
			// When the sync ran; the version of its warnings is new.
			where = ` WHERE key NOT IN ('last_sync', 'last_sync_warnings_at')`
		}
		if table == "notes_fts" {
			cols = append([]string{"rowid"}, cols...)
		}
		order := make([]string, len(cols))
		for i := range cols {
			order[i] = fmt.Sprint(i + 1)
		}
		rows := noematest.Rows(t, db, fmt.Sprintf(`SELECT %s FROM "%s"%s ORDER BY %s`,
			strings.Join(cols, ", "), table, where, strings.Join(order, ", ")))
		fmt.Fprintf(&b, "table %s %d %x\n", table, strings.Count(rows, "\n"), sha256.Sum256([]byte(rows)))
	}
	noematest.EachRow(t, db, `SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY type, name`, func(rows *sql.Rows) error {
		var typ, name, q string
		err := rows.Scan(&typ, &name, &q)
		fmt.Fprintf(&b, "schema %s %s %x\n", typ, name, sha256.Sum256([]byte(q)))
		return err
	})
	return b.String()
}

// dropLines returns the lines of s (with their newlines) but those that
// start with "table "+table+" ".
func dropLines(s, table string) []string {
	var out []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "table "+table+" ") {
			out = append(out, l)
		}
	}
	return out
}

// lineDiff lists the lines of got and want that differ.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&b, "- %s\n+ %s\n", wl, gl)
		}
	}
	return b.String()
}

package sqlite_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/sqlite"
)

// TestWritesKeepTheirStatements: a statement write transactions run more
// than once is kept prepared, one run once is not, and it gives the same results
// prepared as not (rows written, single rows read, within one transaction
// and across); a PRAGMA is never kept; SQL built per call does not grow the
// cache past its bound; and a schema change under a kept statement is
// followed.
func TestWritesKeepTheirStatements(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	const ins = `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`
	const get = `SELECT value FROM meta WHERE key = ?`
	for round := range 4 {
		err := db.Write(ctx, func(tx *sqlite.Tx) error {
			for i := range 3 {
				if _, err := tx.Exec(ins, fmt.Sprintf("k%d", i), fmt.Sprintf("v%d.%d", round, i)); err != nil {
					return err
				}
				var v string
				if err := tx.QueryRow(get, fmt.Sprintf("k%d", i)).Scan(&v); err != nil {
					return err
				}
				if want := fmt.Sprintf("v%d.%d", round, i); v != want {
					return fmt.Errorf("round %d: read %q, want %q", round, v, want)
				}
			}
			var cache int
			return tx.QueryRow(`PRAGMA cache_size`).Scan(&cache)
		})
		if err != nil {
			t.Fatal(err)
		}
		_, insKept := db.KeptStatements(ins)
		_, getKept := db.KeptStatements(get)
		if !insKept || !getKept { // each ran three times in the first transaction
			t.Fatalf("after transaction %d: insert kept %v, select kept %v; want both", round+1, insKept, getKept)
		}
		if _, kept := db.KeptStatements(`PRAGMA cache_size`); kept {
			t.Fatal("a PRAGMA was kept prepared")
		}
	}
	// A statement run once is not kept.
	const once = `SELECT COUNT(*) FROM meta WHERE value <> ?`
	err := db.Write(ctx, func(tx *sqlite.Tx) error {
		var c int
		return tx.QueryRow(once, "x").Scan(&c)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, kept := db.KeptStatements(once); kept {
		t.Fatal("a statement run once was kept prepared")
	}
	// SQL built per call: each string seen twice, far more strings than
	// the cache holds.
	for n := 1; n <= 700; n++ {
		q := `SELECT COUNT(*) FROM meta WHERE key IN (` + strings.TrimSuffix(strings.Repeat("?,", n), ",") + `)`
		args := make([]any, n)
		for i := range args {
			args[i] = fmt.Sprintf("k%d", i)
		}
		for range 2 {
			err := db.Write(ctx, func(tx *sqlite.Tx) error {
				var c int
				if err := tx.QueryRow(q, args...).Scan(&c); err != nil {
					return err
				}
				if want := min(n, 3); c != want {
					return fmt.Errorf("%d keys: counted %d, want %d", n, c, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if n, _ := db.KeptStatements(""); n > 512 {
		t.Fatalf("the cache keeps %d statements, above its bound", n)
	}
	// A schema change under a kept statement: SQLite prepares it again.
	err = db.Write(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`CREATE INDEX IF NOT EXISTS meta_value_probe ON meta(value)`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Write(ctx, func(tx *sqlite.Tx) error {
		if _, err := tx.Exec(ins, "k0", "after"); err != nil {
			return err
		}
		var v string
		if err := tx.QueryRow(get, "k0").Scan(&v); err != nil {
			return err
		}
		if v != "after" {
			return fmt.Errorf("after a schema change: read %q", v)
		}
		_, err := tx.Exec(`DROP INDEX meta_value_probe`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTextRankingKeepsItsStatements: the full-text ranking statements run
// prepared from their second run on, with the same hits as the first.
func TestTextRankingKeepsItsStatements(t *testing.T) {
	ctx := context.Background()
	a, m := noematest.SyncedApp(t, corpus.Options{Seed: 7, Notes: 200}, app.Options{})
	var words []string
	for _, c := range m.Concepts[:3] { // the most linked: in many notes' text
		for _, w := range strings.Fields(c.Label) {
			words = append(words, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
		}
	}
	q := noema.TextQuery{Match: strings.Join(words, " OR "), Weights: [3]float64{1, 1, 1}, Limit: 10}
	first, err := a.DB.Search().SearchText(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) == 0 {
		t.Fatal("no hits to compare")
	}
	for range 3 {
		again, err := a.DB.Search().SearchText(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(first, again) {
			t.Fatalf("prepared: %v, first: %v", again, first)
		}
	}
	if n := a.DB.KeptReads(); n == 0 {
		t.Fatal("the ranking statements run three times were not kept prepared")
	}
}

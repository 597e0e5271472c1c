package noematest

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// Rows runs each query on db and renders every row, one per line, in a
// form exact enough to compare two indexes (Go syntax: strings quoted,
// NULL as nil). Order the queries (ORDER BY) for a stable result.
func Rows(tb testing.TB, db *sql.DB, queries ...string) string {
	tb.Helper()
	var b strings.Builder
	for _, q := range queries {
		rows, err := db.Query(q)
		if err != nil {
			tb.Fatal(err)
		}
		cols, err := rows.Columns()
		if err != nil {
			tb.Fatal(err)
		}
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				tb.Fatal(err)
			}
			fmt.Fprintf(&b, "%#v\n", vals)
		}
		if err := rows.Err(); err != nil {
			tb.Fatal(err)
		}
		rows.Close()
	}
	return b.String()
}

// EachRow runs query on db and calls scan with every row; an error (the
// query's, one from scan or the rows') fails the test.
func EachRow(tb testing.TB, db *sql.DB, query string, scan func(rows *sql.Rows) error) {
	tb.Helper()
	rows, err := db.Query(query)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			tb.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
}

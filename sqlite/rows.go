package sqlite

import (
	"context"
	"database/sql"
	"github.com/noema-mem/noema/internal/gate"
)

// querier runs a query: *sql.DB, *sql.Tx or *Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// eachRow runs query on q and calls scan for every row it returns, then
// closes the rows. It returns the first error: the query's, one from scan,
// or the rows'. Callers wrap it with what they were doing.
func eachRow(ctx context.Context, q querier, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for n := 1; rows.Next(); n++ {
		if err := scan(rows); err != nil {
			return err
		}
		if n%yieldRows == 0 {
			gate.Yield(ctx) // background reads give way to requests
		}
	}
	return rows.Err()
}

// yieldRows is how many rows a read goes through between two chances for
// a request to take the processor from background work (gate.Yield): a
// few hundred microseconds of reading and scanning.
const yieldRows = 64

// eachPair runs query on q and calls fn with the two columns of every row
// (see eachRow).
func eachPair[A, B any](ctx context.Context, q querier, query string, args []any, fn func(A, B)) error {
	return eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var a A
		var b B
		if err := rows.Scan(&a, &b); err != nil {
			return err
		}
		fn(a, b)
		return nil
	})
}

// collect runs query on q and returns what scan makes of every row, in
// order; empty, not nil, when there is none. Errors are eachRow's.
func collect[T any](ctx context.Context, q querier, query string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	out := []T{}
	err := eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		v, err := scan(rows)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// queryStrings returns the first (string) column of every row query
// returns, in order; nil when there is none.
func queryStrings(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	out, err := collect(ctx, q, query, args, func(rows *sql.Rows) (s string, err error) {
		err = rows.Scan(&s)
		return s, err
	})
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return out, nil
}

// queryStringSet returns the set of the first (string) column of the rows
// query returns; empty, not nil, when there is none.
func queryStringSet(ctx context.Context, q querier, query string, args ...any) (map[string]bool, error) {
	vals, err := queryStrings(ctx, q, query, args...)
	if err != nil {
		return nil, err
	}
	set := make(map[string]bool, len(vals))
	for _, v := range vals {
		set[v] = true
	}
	return set, nil
}

// anyArgs returns vs as query arguments.
func anyArgs[T any](vs []T) []any {
	args := make([]any, len(vs))
	for i, v := range vs {
		args[i] = v
	}
	return args
}

// addRows runs query on q and adds the one column of every row to set
// (see eachRow).
func addRows[T comparable](ctx context.Context, q querier, query string, args []any, set map[T]bool) error {
	return eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var v T
		if err := rows.Scan(&v); err != nil {
			return err
		}
		set[v] = true
		return nil
	})
}

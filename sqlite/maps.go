package sqlite

import (
	"context"
	"database/sql"
)

// queryMap returns the rows of a two-column query as a map from the first
// column to the second (a later row wins a repeated key); empty, not nil,
// when there is none. Errors are eachRow's.
func queryMap[K comparable, V any](ctx context.Context, q querier, query string, args ...any) (map[K]V, error) {
	out := map[K]V{}
	err := eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var k K
		var v V
		err := rows.Scan(&k, &v)
		out[k] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

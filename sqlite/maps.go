package sqlite

import "context"

// queryMap returns the rows of a two-column query as a map from the first
// column to the second (a later row wins a repeated key); empty, not nil,
// when there is none. Errors are eachRow's.
func queryMap[K comparable, V any](ctx context.Context, q querier, query string, args ...any) (map[K]V, error) {
	out := map[K]V{}
	if err := eachPair(ctx, q, query, args, func(k K, v V) { out[k] = v }); err != nil {
		return nil, err
	}
	return out, nil
}

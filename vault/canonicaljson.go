package vault

import "encoding/json"

// CanonicalJSON encodes v with sorted object keys and no insignificant
// whitespace, so equal values compare equal as strings. YAML-decoded values
// (map[string]any, map[any]any, []any, scalars, time.Time) are all accepted;
// [JSONValue] normalises them.
func CanonicalJSON(v any) string {
	b, err := json.Marshal(JSONValue(v))
	if err != nil {
		return "{}"
	}
	return string(b)
}

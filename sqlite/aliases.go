package sqlite

import "encoding/json"

// decodeAliases reads a concept's aliases column (a JSON array of
// strings); nil for none. Most concepts have none: "[]" is read without
// the JSON decoder (a million concepts load at a server's first answer,
// issue 21).
func decodeAliases(s string) []string {
	if s == "[]" || s == "" {
		return nil
	}
	var al []string
	_ = json.Unmarshal([]byte(s), &al)
	return al
}

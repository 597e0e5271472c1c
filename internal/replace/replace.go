// Package replace replaces a string where its surroundings allow: the
// boundary-aware replacement behind CLI error messages (a parameter name,
// not a word containing it) and note links (memory://a/b, not
// memory://a/bc).
package replace

import "strings"

// Where returns s with every occurrence of old, left to right and not
// overlapping, replaced by repl where keep(s, i, end) is false: s[i:end] is
// the occurrence and keep sees the whole of s.
func Where(s, old, repl string, keep func(s string, i, end int) bool) string {
	if old == "" {
		return s
	}
	var b strings.Builder
	for from := 0; ; {
		j := strings.Index(s[from:], old)
		if j < 0 {
			b.WriteString(s[from:])
			return b.String()
		}
		i, end := from+j, from+j+len(old)
		b.WriteString(s[from:i])
		if keep(s, i, end) {
			b.WriteString(old)
		} else {
			b.WriteString(repl)
		}
		from = end
	}
}

// Package ascii holds the ASCII test the text code paths share to pick their
// fast path.
package ascii

import "unicode/utf8"

// Is reports whether s is all ASCII (no byte at or above utf8.RuneSelf).
func Is(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

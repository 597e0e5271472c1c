package replace_test

import (
	"testing"

	"github.com/noema-mem/noema/internal/replace"
)

func TestWhere(t *testing.T) {
	notBeforeLetter := func(s string, _, end int) bool { return end < len(s) && s[end] >= 'a' && s[end] <= 'z' }
	for _, tc := range []struct{ s, old, repl, want string }{
		{"a/b a/bc a/b.", "a/b", "X", "X a/bc X."},
		{"", "a", "b", ""},
		{"aaa", "a", "b", "aab"}, // kept where a letter follows
		{"abc", "", "x", "abc"},
		{"no match", "zz", "y", "no match"},
		{"a/ba/b", "a/b", "X", "a/bX"},
	} {
		if got := replace.Where(tc.s, tc.old, tc.repl, notBeforeLetter); got != tc.want {
			t.Errorf("Where(%q, %q, %q) = %q, want %q", tc.s, tc.old, tc.repl, got, tc.want)
		}
	}
}

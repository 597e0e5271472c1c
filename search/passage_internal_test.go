package search

import (
	"testing"

	"github.com/noema-mem/noema"
)

// TestNeedsBody checks when the passage lift reads a body: when the index
// did not say which terms it holds, when it holds two or more, and when it
// holds a CJK term (the cjk column holds the title's bigrams too, so the
// term may be the title's: TestPerTermLift's "東京 guide").
func TestNeedsBody(t *testing.T) {
	const cjk = 0b100 // the third term is CJK
	for _, c := range []struct {
		name string
		hit  noema.TextHit
		want bool
	}{
		{"not said", noema.TextHit{}, true},
		{"none", noema.TextHit{TermsRead: true}, false},
		{"one", noema.TextHit{TermsRead: true, BodyTerms: 0b010}, false},
		{"two", noema.TextHit{TermsRead: true, BodyTerms: 0b011}, true},
		{"the CJK term alone", noema.TextHit{TermsRead: true, BodyTerms: 0b100}, true},
		{"one and the CJK term", noema.TextHit{TermsRead: true, BodyTerms: 0b101}, true},
	} {
		if got := needsBody(c.hit, cjk); got != c.want {
			t.Errorf("%s: needsBody %v, want %v", c.name, got, c.want)
		}
	}
	if got := bodyShare(0b010, []float64{0.2, 0.5, 0.3}); got != 0.5 {
		t.Errorf("bodyShare of the second term: %v, want 0.5", got)
	}
	if got := bodyShare(0, []float64{0.2, 0.5, 0.3}); got != 0 {
		t.Errorf("bodyShare of no term: %v, want 0", got)
	}
}

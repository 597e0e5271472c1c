package concepts

import (
	"slices"
	"testing"
)

// The name shapes of round 5 (docs/duplicates.md): numbers written as
// words and digits, acronyms with digits, a nationality before a coined
// name.

func TestNumberShapes(t *testing.T) {
	for _, tc := range []struct {
		a, b    string
		verdict string // "" no verdict; "veto" a veto
		ev      string
	}{
		{"4WD", "four-wheel drive", VerdictReview, "acronym"},
		{"B2C", "business-to-consumer", VerdictReview, "acronym"},
		{"G7", "Group of Seven", VerdictReview, "acronym"},
		{"T2D", "type 2 diabetes", VerdictReview, "acronym"},
		{"WW2", "World War II", VerdictReview, "acronym"},
		{"Formula One", "Formula 1", VerdictMerge, "number_spelling"},
		{"World War 2", "World War II", VerdictMerge, "number_spelling"},
		{"PS4", "PS5", "veto", ""},
		{"G20", "Group of Eight", "veto", ""},
		{"Python 2", "Python 3", "veto", ""},
		{"World War I", "World War II", "veto", ""},
		{"ES6", "ECMAScript 5", "veto", ""},
		{"IPv4", "IPv6", "veto", ""},
		{"L1 regularization", "L2 regularization", "veto", ""},
		{"Windows 10", "Windows 1", "veto", ""},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		j := compareNames(&a, &b, nil)
		switch {
		case tc.verdict == "veto":
			if j.veto == "" || j.verdict != "" {
				t.Errorf("%s / %s: %+v, want a veto", tc.a, tc.b, j)
			}
		case j.verdict != tc.verdict || !slices.Contains(j.evidence, tc.ev):
			t.Errorf("%s / %s: %+v, want %s %s", tc.a, tc.b, j, tc.verdict, tc.ev)
		}
	}
}

func TestNationalityBefore(t *testing.T) {
	for _, tc := range []struct {
		short, long string
		want        bool
	}{
		{"Bundesliga", "German Bundesliga", true}, {"measles", "German measles", false},
		{"Revolution", "French Revolution", false}, {"NBA", "American NBA", false},
	} {
		a, b := analyseName(tc.short), analyseName(tc.long)
		j := compareNames(&a, &b, nil)
		if got := j.verdict != "" && slices.Contains(j.evidence, "qualifier_word"); got != tc.want {
			t.Errorf("%s / %s: %+v, want qualifier_word %v", tc.short, tc.long, j, tc.want)
		}
	}
}

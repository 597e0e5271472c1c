package concepts

import (
	"slices"
	"testing"
)

// TestRound8Shapes: the name shapes of round 8 (docs/duplicates.md), from
// split H's misses and false pairs, both ways round, judged without
// context or vocabulary.
func TestRound8Shapes(t *testing.T) {
	for _, tc := range []struct {
		a, b     string
		verdict  string // "" no verdict
		weak     bool
		evidence string
	}{
		// Clipped words and dotted forms of the lexicon; one that is no
		// word and names one thing needs no context, one that is a word
		// or names several does.
		{"ammo", "ammunition", VerdictReview, false, "standard_abbreviation"},
		{"telly", "television", VerdictReview, false, "standard_abbreviation"},
		{"avo", "avocado", VerdictReview, false, "standard_abbreviation"},
		{"func", "function", VerdictReview, false, "standard_abbreviation"},
		{"Abp.", "archbishop", VerdictReview, false, "standard_abbreviation"},
		{"Expy.", "expressway", VerdictReview, false, "standard_abbreviation"},
		{"Maj. Gen.", "major general", VerdictReview, false, "standard_abbreviation"},
		{"BBQ", "barbecue", VerdictReview, false, "standard_abbreviation"},
		{"approx", "approximate", VerdictReview, true, "abbreviation"},
		{"util", "utilitarianism", "", false, ""},
		// Numbers and spellings.
		{"3D printing", "three-dimensional printing", VerdictMerge, false, "number_spelling"},
		{"odour", "odor", VerdictMerge, false, "spelling_variant"},
		{"savoury", "savory", VerdictMerge, false, "spelling_variant"},
		{"whisky sour", "whiskey sour", VerdictMerge, false, "spelling_variant"},
		{"storey", "story", "", false, ""},
		{"spies", "spy", VerdictMerge, false, "folded_key"},
		// Places, acronyms and coined names.
		{"DACH", "Dach (roof)", "", false, ""}, // acronym_and_word
		{"Ashgabat", "Ashgabat Airport", VerdictReview, true, "category_noun"},
		{"Aarhus", "Aarhus University", "", false, ""},
		{"Amsterdam Schiphol", "Schiphol", VerdictReview, true, "place_before"},
		{"Portuguese Primeira Liga", "Primeira Liga", VerdictReview, false, "qualifier_word"},
		{"English Premier League", "Premier League", VerdictReview, true, "place_before"},
		{"kNN graph", "k nearest neighbor graph", VerdictReview, false, "acronym"},
		{"TV show", "television show", VerdictReview, true, "acronym"}, // not siblings
		// Kept apart: a possessive, one name qualified two ways, a
		// company of a common noun, two places, a galaxy of a word.
		{"Christie", "Christie's", "", false, ""},
		{"Kansas City, Kansas", "Kansas City, Missouri", "", false, ""},
		{"Alphabet Inc.", "alphabet", "", false, ""},
		{"Colombia", "Columbia", "", false, ""},
		{"antennae", "antennae galaxies", "", false, ""},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		for _, ab := range [][2]*nameInfo{{&a, &b}, {&b, &a}} {
			j := compareNames(ab[0], ab[1], map[string][]int32{})
			if j.verdict != tc.verdict || tc.verdict != "" && (j.weak != tc.weak || !slices.Contains(j.evidence, tc.evidence)) {
				t.Errorf("%s / %s: verdict %q weak %v evidence %v veto %q; want %q weak %v %s", ab[0].text, ab[1].text, j.verdict, j.weak, j.evidence, j.veto, tc.verdict, tc.weak, tc.evidence)
			}
		}
	}
}

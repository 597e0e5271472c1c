package concepts

import (
	"slices"
	"testing"
)

// TestRound11Shapes: clipped compounds (round 11, compounds.go), both ways
// round, judged without context or vocabulary.
func TestRound11Shapes(t *testing.T) {
	for _, tc := range []struct {
		a, b    string
		verdict string // "" no verdict
		weak    bool
	}{
		// Coined words of three-letter clips or more, or in camel case:
		// a review without context.
		{"websec", "web security", VerdictReview, false},
		{"healthtech", "health technology", VerdictReview, false},
		{"FinTech", "financial technology", VerdictReview, false},
		{"NetOps", "network operations", VerdictReview, false},
		{"DevSecOps", "development security operations", VerdictReview, false},
		// Two-letter clips, one-letter camel pieces, proper names and
		// names in capitals: with context only.
		{"agtech", "agricultural technology", VerdictReview, true},
		{"OTel", "OpenTelemetry", VerdictReview, false}, // the acronym lexicon knows it (round 14)
		{"Texaco", "Texas Company", VerdictReview, true},
		{"Adidas", "Adi Dassler", VerdictReview, true},
		{"Benelux", "Belgium, Netherlands and Luxembourg", VerdictReview, true},
		{"PEMEX", "Petróleos Mexicanos", VerdictReview, true},
		// Not clipped compounds: an English word, a person's name, camel
		// pieces that do not start the words.
		{"Internet", "international network", "", false},
		{"Jonas", "John Nash", "", false},
		{"ReactOS", "Regular Actor", "", false},
		{"MoPac", "Missouri Pacific", "", false},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		for _, ab := range [][2]*nameInfo{{&a, &b}, {&b, &a}} {
			j := compareNames(ab[0], ab[1], map[string][]int32{})
			compound := slices.Contains(j.evidence, "clipped_compound")
			if tc.verdict == "" && compound || tc.verdict != "" && (j.verdict != tc.verdict || j.weak != tc.weak || !compound) {
				t.Errorf("%s / %s: verdict %q weak %v evidence %v veto %q; want %q weak %v clipped_compound", ab[0].text, ab[1].text, j.verdict, j.weak, j.evidence, j.veto, tc.verdict, tc.weak)
			}
		}
	}
}

// TestCompoundCandidates: the clipped-compound channel finds a coined word's
// one expansion as such, and two expansions as an acronym of several
// (the context picks).
func TestCompoundCandidates(t *testing.T) {
	m := &matcher{
		ids:     []string{"a", "b", "c", "d", "e"},
		labels:  []string{"FinTech", "financial technology", "medtech", "medical technology", "media technology"},
		aliases: make([][]string, 5),
	}
	x := buildDupIndex(m)
	cs := &candidates{pairs: map[uint64]uint32{}, only: -1}
	x.gatherCompounds(cs)
	for _, tc := range []struct {
		a, b int32
		ch   uint32
	}{{0, 1, chCompound}, {2, 3, chAcronymOfSeveral}, {2, 4, chAcronymOfSeveral}} {
		if got := cs.pairs[pairKey(tc.a, tc.b)]; got != tc.ch {
			t.Errorf("%s / %s: channels %v, want %v", m.labels[tc.a], m.labels[tc.b], channelEvidence(got), channelEvidence(tc.ch))
		}
	}
	if len(cs.pairs) != 3 {
		t.Errorf("%d pairs, want 3: %v", len(cs.pairs), cs.pairs)
	}
}

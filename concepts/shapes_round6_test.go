package concepts

import (
	"slices"
	"testing"
)

// The name shapes of round 6 (docs/duplicates.md): the lexicon of
// standard short forms, what a parenthesised qualifier makes of a name,
// and the gazetteer's places.

func TestLexiconShapes(t *testing.T) {
	for _, tc := range []struct {
		a, b    string
		verdict string // "" no verdict
		weak    bool
	}{
		{"Sgt.", "sergeant", VerdictReview, false},
		{"Capt.", "captain", VerdictReview, false},
		{"Pt. Reyes", "Point Reyes", VerdictReview, false},
		{"Gt. Britain", "Great Britain", VerdictReview, false},
		{"fl oz", "fluid ounce", VerdictReview, false},
		{"qty", "quantity", VerdictReview, false},
		{"xfer", "transfer", VerdictReview, false},
		{"uke", "ukulele", VerdictReview, false},
		{"Ariz.", "Arizona", VerdictReview, false},
		{"poli sci", "political science", VerdictReview, false},
		{"lats", "latissimus dorsi", VerdictReview, false},
		// A short form of several things, or one that is a word: with
		// context only.
		{"bio", "biography", VerdictReview, true},
		{"doc", "documentation", VerdictReview, true},
		{"TX", "Texas", VerdictReview, false}, // the acronym lexicon knows it (round 14)
		{"Crocs", "crocodile", VerdictReview, true},
		// A short form of the lexicon is no clip of another word.
		{"chem", "chemtrail", "", false},
		{"econ", "econometrics", "", false},
		{"Prof.", "Profiling", "", false},
		{"rhino", "rhinovirus", "", false},
		{"demo", "democracy", "", false},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		for _, ab := range [][2]*nameInfo{{&a, &b}, {&b, &a}} {
			j := compareNames(ab[0], ab[1], nil)
			if j.verdict != tc.verdict || tc.verdict != "" && (j.weak != tc.weak || !slices.Contains(j.evidence, "abbreviation")) {
				t.Errorf("%s / %s: verdict %q weak %v evidence %v; want %q weak %v", ab[0].text, ab[1].text, j.verdict, j.weak, j.evidence, tc.verdict, tc.weak)
			}
		}
	}
}

func TestQualifiers(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want string // "review", "weak" (review with context only), "veto"
	}{
		{"Mercury", "Mercury (planet)", "review"},
		{"Ruby", "Ruby (programming language)", "review"},
		{"Blender", "Blender (software)", "review"},
		{"Bauhaus", "Bauhaus (band)", "veto"},
		{"Vivaldi", "Vivaldi (web browser)", "veto"},
		{"Spectre", "Spectre (film)", "veto"},
		{"STD", "STD (C++)", "veto"},
		{"ENT", "Ent (Tolkien)", "veto"},
		{"Georgia", "Georgia (country)", "weak"},
		{"VOC", "VOC (voice of the customer)", "weak"},
		// A place's region: the gazetteer's, another or unknown.
		{"Córdoba", "Córdoba (Spain)", "review"},
		{"Munich", "Munich, Germany", "review"},
		{"Austin", "Austin, TX", "review"},
		{"Arcadia", "Arcadia, California", "review"},
		{"Manchester", "Manchester, New Hampshire", "veto"},
		{"Paris", "Paris, Texas", "veto"},
		{"London", "London, Ontario", "veto"},
		{"Winnipeg", "Lake Winnipeg", "veto"},
		{"Tbilisi", "Tbilisi Sea", "veto"},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		j := compareNames(&a, &b, nil)
		got := "none"
		switch {
		case j.veto != "" && j.verdict == "":
			got = "veto"
		case j.verdict == VerdictReview && j.weak:
			got = "weak"
		case j.verdict == VerdictReview:
			got = "review"
		}
		if got != tc.want {
			t.Errorf("%s / %s: %s (%+v), want %s", tc.a, tc.b, got, j, tc.want)
		}
	}
}

// TestLexiconCandidates: the lexicon's channel pairs a short form with
// its long form however common their words, for the whole vault and for
// one concept.
func TestLexiconCandidates(t *testing.T) {
	names := []string{"Sgt.", "sergeant", "Pt. Reyes", "Point Reyes", "fl oz", "fluid ounce", "uke", "ukulele"}
	checkCandidates(t, names, []string{"point", "reyes", "fluid", "ounce"}, chAbbrev, true)
}

// TestSoleSurname: a surname alone is the person's without context only
// when nothing else can be meant by it: no word, country, city or vendor,
// and no other name in the vault uses it — or WordNet knows it as one
// person's and no proper name of the vault that is no person's uses it
// (round 15: "Freud", beside "Anna Freud").
func TestSoleSurname(t *testing.T) {
	for _, tc := range []struct {
		short, long string
		users       int // concepts whose names use the surname
		weak        bool
	}{
		{"Wittgenstein", "Ludwig Wittgenstein", 2, false},
		{"Freud", "Sigmund Freud", 3, false},    // Anna Freud too: WordNet's one person (round 15)
		{"Jackson", "Michael Jackson", 2, true}, // a city
		{"Ford", "Henry Ford", 2, true},         // a word
		{"Jordan", "Michael Jordan", 2, true},   // a country
	} {
		a, b := analyseName(tc.short), analyseName(tc.long)
		vocab := map[string][]int32{a.content[0]: make([]int32, tc.users)}
		j := compareNames(&a, &b, vocab)
		if j.verdict != VerdictReview || !slices.Contains(j.evidence, "person_name") || j.weak != tc.weak {
			t.Errorf("%s / %s: %+v, want person_name weak %v", tc.short, tc.long, j, tc.weak)
		}
		if j := compareNames(&a, &b, nil); !j.weak {
			t.Errorf("%s / %s without the vault's words: %+v, want weak", tc.short, tc.long, j)
		}
	}
}

// TestMakersAndCategories: a maker before its product, a company's
// suffix (dotted initials are no roman numeral), and a name with what it
// is — the last with context only.
func TestMakersAndCategories(t *testing.T) {
	for _, tc := range []struct {
		a, b, evidence string
		weak           bool
	}{
		{"Prius", "Toyota Prius", "qualifier_word", false},
		{"Walkman", "Sony Walkman", "qualifier_word", false},
		{"Heineken", "Heineken N.V.", "qualifier_word", false},
		{"Ericsson", "Ericsson AB", "qualifier_word", false},
		{"Changi", "Changi Airport", "category_noun", true},
		{"measles", "measles virus", "category_noun", true},
		{"Ceres", "dwarf planet Ceres", "category_noun", true},
		{"graph", "graph database", "", false},
		{"Manhattan", "Manhattan Project", "", false},
		{"hepatitis A", "hepatitis B", "", false},
		{"Kant", "Kantianism", "", false},
		{"Salzburg", "Salzburg Festival", "", false},
		{"mtg", "MtG arena", "", false},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		j := compareNames(&a, &b, nil)
		if tc.evidence == "" {
			if j.verdict != "" {
				t.Errorf("%s / %s: %+v, want no verdict", tc.a, tc.b, j)
			}
			continue
		}
		if j.verdict != VerdictReview || !slices.Contains(j.evidence, tc.evidence) || j.weak != tc.weak {
			t.Errorf("%s / %s: %+v, want %s weak %v", tc.a, tc.b, j, tc.evidence, tc.weak)
		}
	}
}

// TestSlavicNames: transliterations of one Slavic surname are one name;
// a surname and its feminine form are not.
func TestSlavicNames(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		one  bool
	}{
		{"Tchaikovsky", "Chaikovsky", true}, {"Stravinsky", "Strawinsky", true},
		{"Rachmaninoff", "Rachmaninov", true}, {"Shostakovich", "Shostakovitch", true},
		{"Gorbachev", "Gorbachov", true}, {"Dostoevsky", "Dostoyevsky", true},
		{"Ivanov", "Ivanova", false}, {"cello", "chello", false},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		j := compareNames(&a, &b, nil)
		if got := j.verdict == VerdictMerge && slices.Contains(j.evidence, "spelling_variant"); got != tc.one {
			t.Errorf("%s / %s: %+v, want one name %v", tc.a, tc.b, j, tc.one)
		}
	}
}

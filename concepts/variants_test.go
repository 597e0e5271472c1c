package concepts

import (
	"slices"
	"testing"
)

// TestRound4Shapes: the shapes of round 4 (docs/duplicates.md) are judged
// one concept — strongly, or weakly (context only) where the spelling
// alone is as often two things — and their look-alikes are not.
func TestRound4Shapes(t *testing.T) {
	for _, c := range []struct {
		a, b     string
		evidence string // "" when they must not be judged one concept
		weak     bool
	}{
		{"colour", "color", "spelling_variant", false},
		{"catalogue", "catalog", "spelling_variant", false},
		{"defence", "defense", "spelling_variant", false},
		{"organisation", "organization", "spelling_variant", false},
		{"colour model", "color model", "spelling_variant", false},
		{"centre", "center", "spelling_variant", false},
		{"anaemia", "anemia", "spelling_variant", false},
		{"travelled", "traveled", "spelling_variant", false},
		{"bacteria", "bacterium", "folded_key", false},
		{"vertebrae", "vertebra", "folded_key", false},
		{"Nvidia", "Nvidia Corporation", "qualifier_word", false},
		{"Siemens", "Siemens AG", "qualifier_word", false},
		{"Adam", "Adam optimizer", "qualifier_word", false},
		{"SoC", "system on a chip", "acronym", false},
		{"DRY", "don't repeat yourself", "acronym", false},
		{"LRU cache", "least recently used cache", "acronym", false},
		{"U.S. Navy", "United States Navy", "acronym", false},
		{"k-NN", "k nearest neighbors", "acronym", false},
		{"UC Berkeley", "University of California, Berkeley", "acronym", false},
		{"X-ray", "Xray", "spacing", false},
		{"TB", "tuberculosis", "acronym", false},       // weak by spelling, the acronym lexicon knows it (round 14)
		{"ECG", "electrocardiogram", "acronym", false}, // weak by spelling, WordNet's one sense (round 10)
		{"TV", "television", "acronym", false},         // likewise
		{"Turing", "Alan Turing", "person_name", true},
		{"Tolkien", "J. R. R. Tolkien", "person_name", true},
		{"da Vinci", "Leonardo da Vinci", "person_name", false}, // WordNet's one sense (round 10)

		{"Congo", "Congo River", "", false},
		{"Kenya", "Mount Kenya", "", false},
		{"Mass.", "mass", "", false},
		{"photo", "photon", "", false},
		{"Scala", "Scalar", "", false},
		{"React", "ReactOS", "", false},
		{"param", "paraML", "", false},
		{"Turkey", "turkey (bird)", "", false},
		{"Helm", "helm (ship)", "", false},
		{"Turing", "Turing test", "", false},
		{"Gates", "Bill Gates Foundation", "", false},
		{"A/B Hyperparameter", "Active Bayes Hyperparameter", "", false},
		{"prise", "prize", "", false},
		{"desert", "dessert", "", false},
		{"stationary", "stationery", "", false},
		{"genus", "genius", "", false},
		{"absorption", "adsorption", "", false},
		{"garbage colection", "garbage collection", "typo", false},
		{"Kuberentes", "Kubernetes", "typo", false},
	} {
		a, b := analyseName(c.a), analyseName(c.b)
		for _, ab := range [][2]*nameInfo{{&a, &b}, {&b, &a}} {
			j := compareNames(ab[0], ab[1], nil)
			if c.evidence == "" {
				if j.verdict != "" && !j.weak {
					t.Errorf("%q / %q: %s %v, want no duplicate", ab[0].text, ab[1].text, j.verdict, j.evidence)
				}
				continue
			}
			if j.verdict == "" || !slices.Contains(j.evidence, c.evidence) || j.weak != c.weak {
				t.Errorf("%q / %q: verdict %q weak %v evidence %v veto %q, want %s (weak %v)", ab[0].text, ab[1].text, j.verdict, j.weak, j.evidence, j.veto, c.evidence, c.weak)
			}
		}
	}
}

// TestAmericanWord: the British spelling rules, and words they must leave
// alone.
func TestAmericanWord(t *testing.T) {
	for _, c := range []struct {
		in    string
		plain bool
		want  string
	}{
		{"colour", true, "color"}, {"favourite", true, "favorite"}, {"honourable", true, "honorable"},
		{"dialogue", true, "dialog"}, {"analyse", true, "analyze"}, {"organisation", true, "organization"},
		{"theatre", true, "theater"}, {"fibre", true, "fiber"}, {"modelling", true, "modeling"},
		{"oestrogen", true, "estrogen"}, {"paediatric", true, "pediatric"}, {"licence", true, "license"},
		{"four", true, "four"}, {"tour", true, "tour"}, {"flour", true, "flour"}, {"vogue", true, "vogue"},
		{"prise", true, "prise"}, {"noise", true, "noise"}, {"genre", true, "genre"}, {"acre", true, "acre"},
		{"michael", false, "michael"}, {"canoes", true, "canoes"}, {"filling", true, "filling"},
	} {
		if got := americanWord(c.in, c.plain); got != c.want {
			t.Errorf("americanWord(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestContextInformative: the distinct_contexts veto is on only when the
// pairs spelling makes one concept are linked beside common things.
func TestContextInformative(t *testing.T) {
	con := func(keys ...string) dupConcept {
		c := dupConcept{hasContext: true, context: keys}
		c.names = []nameInfo{analyseName("x")}
		return c
	}
	sure := func(n int) [][2]int32 {
		var out [][2]int32
		for i := range n {
			out = append(out, [2]int32{int32(2 * i), int32(2*i + 1)})
		}
		return out
	}
	topical := func(n, shared int) []dupConcept {
		var cons []dupConcept
		for i := range n {
			if i < shared {
				cons = append(cons, con("a", "b", "c"), con("a", "d", "e"))
			} else {
				cons = append(cons, con("f", "g", "h"), con("i", "j", "k"))
			}
		}
		return cons
	}
	for _, c := range []struct {
		name      string
		n, shared int
		want      bool
	}{
		{"topic vault", 10, 6, true},
		{"a third share", 9, 3, true},
		{"random vault", 10, 0, false},
		{"one in ten share", 10, 1, false},
		{"too few pairs to tell: on, as in a small vault", 4, 0, true},
	} {
		if got := contextInformative(topical(c.n, c.shared), sure(c.n)); got != c.want {
			t.Errorf("%s: contextInformative = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestEnglishWords: the embedded list reads, and holds words, not
// misspellings.
func TestEnglishWords(t *testing.T) {
	l := englishWords()
	if len(l.at) < 200000 {
		t.Fatalf("%d words, want the whole list", len(l.at))
	}
	for _, w := range []string{"desert", "dessert", "abandon", "zygote", "collection"} {
		if !l.has(w) {
			t.Errorf("%q not in the list", w)
		}
	}
	for _, w := range []string{"colection", "kuberentes", "aaaa", "zzzzzz", ""} {
		if l.has(w) {
			t.Errorf("%q in the list", w)
		}
	}
}

package concepts

import (
	"testing"
	"unicode/utf8"
)

// TestSingular: the plurals the folding knows fold to their singular
// (regular, closed-class, foreign, compounds, the shapes the English word
// list decides), and words that only look like plurals are kept apart.
func TestSingular(t *testing.T) {
	for _, c := range []struct{ plural, want string }{
		// Regular.
		{"networks", "network"}, {"cities", "city"}, {"boxes", "box"}, {"churches", "church"},
		{"wishes", "wish"}, {"glasses", "glass"}, {"buses", "bus"}, {"statuses", "status"},
		// -es and -ches after a word, not after a word in -e.
		{"heroes", "hero"}, {"potatoes", "potato"}, {"volcanoes", "volcano"}, {"echoes", "echo"},
		{"beaches", "beach"}, {"speeches", "speech"}, {"coaches", "coach"}, {"bonuses", "bonus"},
		{"walruses", "walrus"}, {"canoes", "canoe"}, {"shoes", "shoe"}, {"caches", "cache"},
		{"niches", "niche"}, {"headaches", "headache"}, {"houses", "house"},
		// -ies of a word in -ie; -zzes.
		{"movies", "movie"}, {"zombies", "zombie"}, {"brownies", "brownie"}, {"quizzes", "quiz"},
		{"buzzes", "buzz"},
		// f and fe -> -ves, and their compounds.
		{"calves", "calf"}, {"hooves", "hoof"}, {"scarves", "scarf"}, {"wharves", "wharf"},
		{"thieves", "thief"}, {"loaves", "loaf"}, {"midwives", "midwife"}, {"bookshelves", "bookshelf"},
		{"curves", "curve"}, {"olives", "olive"}, {"archives", "archive"},
		// Vowel changes and their compounds.
		{"geese", "goose"}, {"lice", "louse"}, {"oxen", "ox"}, {"dormice", "dormouse"},
		{"firemen", "fireman"}, {"policewomen", "policewoman"}, {"woodlice", "woodlouse"},
		// Latin, Greek, French, Hebrew.
		{"bacilli", "bacillus"}, {"cumuli", "cumulus"}, {"phyla", "phylum"}, {"stadia", "stadium"},
		{"tibiae", "tibia"}, {"antennae", "antenna"}, {"plateaux", "plateau"}, {"codices", "codex"},
		{"criteria", "criterion"}, {"kibbutzim", "kibbutz"}, {"cherubim", "cherub"}, {"matzot", "matzo"},
		// -is of a word.
		{"taxis", "taxi"}, {"kiwis", "kiwi"},

		// Not plurals, or plurals of words of their own.
		{"analysis", "analysis"}, {"tennis", "tennis"}, {"pelvis", "pelvis"}, {"status", "status"},
		{"kubernetes", "kubernetes"}, {"famous", "famous"}, {"physics", "physics"}, {"data", "data"},
		{"tantra", "tantra"}, {"magnesia", "magnesia"}, {"titania", "titania"}, {"saga", "saga"},
		{"sushi", "sushi"}, {"salami", "salami"}, {"tsunami", "tsunami"}, {"specimen", "specimen"},
		{"abdomen", "abdomen"}, {"slice", "slice"}, {"police", "police"}, {"prices", "price"},
		{"suffices", "suffice"}, {"series", "series"}, {"species", "species"},
	} {
		if got := singular(c.plural); got != c.want {
			t.Errorf("singular(%q) = %q, want %q", c.plural, got, c.want)
		}
	}
}

// TestStripAccentsUndecomposed: letters that NFD leaves whole are written
// as their plain letters, as the accents NFD splits off are dropped.
func TestStripAccentsUndecomposed(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Łódź", "Lodz"}, {"Brønsted", "Bronsted"}, {"Øresund", "Oresund"}, {"Đoković", "Dokovic"},
		{"Æsir", "Aesir"}, {"œuvre", "oeuvre"}, {"Þingvellir", "Thingvellir"}, {"Hafþór", "Hafthor"},
		{"Café", "Cafe"}, {"naïve", "naive"}, {"plain", "plain"},
	} {
		if got := stripAccents(c.in); got != c.want {
			t.Errorf("stripAccents(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPluralPairsOneKey: a name and its plural have one folded key, so
// analyze_duplicates and merge_concepts (one judgement) see one concept.
func TestPluralPairsOneKey(t *testing.T) {
	for _, p := range [][2]string{
		{"tomato", "tomatoes"}, {"hoof", "hooves"}, {"Kibbutz", "Kibbutzim"}, {"bench press", "bench presses"},
		{"movie night", "movie nights"}, {"phylum", "phyla"}, {"Łódź", "Lodz"},
	} {
		a, b := analyseName(p[0]), analyseName(p[1])
		if a.folded != b.folded {
			t.Errorf("%q and %q fold to %q and %q", p[0], p[1], a.folded, b.folded)
		}
	}
	for _, p := range [][2]string{{"magnesia", "magnesium"}, {"tantra", "tantrum"}, {"price", "prex"}} {
		if a, b := analyseName(p[0]), analyseName(p[1]); a.folded == b.folded {
			t.Errorf("%q and %q fold to one key %q", p[0], p[1], a.folded)
		}
	}
}

// TestSingularWordList runs the folding over every word of the English
// list and its -s and -es forms (about 800,000 words: an exhaustive check
// rather than a fuzz target, which would add 45 s to CI): it never makes
// a word empty, keeps UTF-8, never grows a word by more than an irregular
// singular adds, and never changes a word of three letters or less.
func TestSingularWordList(t *testing.T) {
	l := englishWords()
	if len(l.at) < 200000 {
		t.Fatalf("the English word list has %d words", len(l.at))
	}
	for i := range l.at {
		w := string(l.word(i))
		for _, v := range []string{w, w + "s", w + "es"} {
			s := singular(v)
			if s == "" || !utf8.ValidString(s) || len(s) > len(v)+3 {
				t.Fatalf("singular(%q) = %q", v, s)
			}
		}
	}
	for _, w := range []string{"", "a", "is", "gas", "bus", "ox", "ies", "es", "zzes", "ae", "men", "é", "\xff"} {
		if s := singular(w); len(w) <= 3 && s != w && irregularPlurals[w] == "" {
			t.Errorf("singular(%q) = %q, want it kept", w, s)
		}
	}
}

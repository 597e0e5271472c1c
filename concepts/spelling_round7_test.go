package concepts

import "testing"

// TestTranslitWord: the Russian letters English writes two ways are
// written one way in a capitalised name's words, and names that only
// look alike keep their spelling.
func TestTranslitWord(t *testing.T) {
	for _, c := range [][2]string{
		{"Yevgeny", "Evgeny"}, {"Yekaterinburg", "Ekaterinburg"}, {"Dmitry", "Dmitri"}, {"Dmitriy", "Dmitri"},
		{"Sergey", "Sergei"}, {"Andrey", "Andrei"}, {"Nikolay", "Nikolai"}, {"Gorky", "Gorki"},
		{"Nizhny Novgorod", "Nizhni Novgorod"}, {"Tatyana", "Tatiana"}, {"Natalya", "Natalia"},
	} {
		a, b := analyseName(c[0]), analyseName(c[1])
		if !spellingVariant(&a, &b) && a.folded != b.folded {
			t.Errorf("%q / %q: not one spelling (%q, %q)", c[0], c[1], a.variant, b.variant)
		}
	}
	for _, c := range [][2]string{
		{"Terry", "Terri"}, {"Harry", "Harri"}, {"Kyoto", "Keto"}, {"Maya", "Maia"}, {"Casey", "Casei"},
		{"Dali", "Daly"}, {"Khan", "Chan"},
	} {
		a, b := analyseName(c[0]), analyseName(c[1])
		if spellingVariant(&a, &b) {
			t.Errorf("%q / %q: taken for one spelling (%q, %q)", c[0], c[1], a.variant, b.variant)
		}
	}
}

// TestAmericanWordRound7: British spellings that round 7 adds (split J).
func TestAmericanWordRound7(t *testing.T) {
	for _, c := range [][2]string{
		{"meagre", "meager"}, {"sepulchre", "sepulcher"}, {"marvellous", "marvelous"}, {"instil", "instill"},
		{"draughtsman", "draftsman"}, {"kerbside", "curbside"}, {"manoeuvring", "maneuvering"},
		{"ogre", "ogre"}, {"acre", "acre"}, {"massacre", "massacre"}, {"timbre", "timbre"},
	} {
		if got := americanWord(c[0], true); got != c[1] {
			t.Errorf("americanWord(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}

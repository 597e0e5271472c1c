package concepts

import (
	"slices"
	"testing"
)

// wantGroups checks the groups names-only analysis makes of labels.
func wantGroups(t *testing.T, labels, want []string) {
	t.Helper()
	if _, got := labelGroups(labels); !slices.Equal(got, want) {
		t.Errorf("groups %q, want %q", got, want)
	}
}

// TestEponymLeavesSurnameAlone: a thing named after a person by a word of
// its kind ("Spinoza Prize", "Cervantes Institute", "Frida Kahlo Museum")
// is no other meaning of the surname alone: "Spinoza" is still Baruch
// Spinoza's. A proper name of two words that is no eponym ("River
// Shannon", "Vivaldi Partners") still makes the bare surname ambiguous.
func TestEponymLeavesSurnameAlone(t *testing.T) {
	wantGroups(t, []string{
		"Spinoza", "Baruch Spinoza", "Spinoza Prize",
		"Cervantes", "Miguel de Cervantes", "Cervantes Institute",
		"Shannon", "Claude Shannon", "River Shannon",
		"Vivaldi", "Antonio Vivaldi", "Vivaldi Partners",
	}, []string{"Baruch Spinoza | Spinoza", "Cervantes | Miguel de Cervantes"})
}

// TestGivenNameEndingInS: the name folding writes a word's singular
// ("nicholas" is "nichola" in nameInfo.all), and the given names must be
// looked up as it writes them — before, a person whose given name ends
// in s (Nicholas, Charles, James, Thomas) was never a person's name.
func TestGivenNameEndingInS(t *testing.T) {
	wantGroups(t, []string{"Nicholas Negroponte", "Negroponte", "Charles Babbage", "Babbage"}, []string{"Babbage | Charles Babbage", "Negroponte | Nicholas Negroponte"})
}

// TestWordNetPersonNoOtherMeaning: a two-word name WordNet knows as a
// person ("Marc Chagall", "Katsushika Hokusai") is no proper name of
// something else that the surname could mean, even when its given name is
// not in givennames.txt: before, it blocked its own surname ("Chagall"
// beside "Marc Chagall" alone was no pair).
func TestWordNetPersonNoOtherMeaning(t *testing.T) {
	wantGroups(t, []string{"Chagall", "Marc Chagall", "Chagall Museum", "Hokusai", "Katsushika Hokusai",
		"Shannon", "Claude Shannon", "River Shannon"}, []string{"Chagall | Marc Chagall", "Hokusai | Katsushika Hokusai"})
}

// TestMoreGivenNames: the longer given-name list (givennames_more.txt)
// makes "Frida Kahlo" / "Kahlo" and "Edsger Dijkstra" / "Dijkstra" a
// person and her surname; but a given name only that list holds makes no
// person's name of a surname that is also a word or a city ("Freddie
// Mercury" / "Mercury", "Whitney Houston" / "Houston": the context could
// pick the person for the planet), while the shorter list's still does,
// with context only ("Henry Ford" / "Ford").
func TestMoreGivenNames(t *testing.T) {
	wantGroups(t, []string{"Kahlo", "Frida Kahlo", "Dijkstra", "Edsger Dijkstra"}, []string{"Dijkstra | Edsger Dijkstra", "Frida Kahlo | Kahlo"})
	for _, c := range []struct {
		short, long string
		person      bool
	}{
		{"Mercury", "Freddie Mercury", false},
		{"Houston", "Whitney Houston", false},
		{"Ford", "Henry Ford", true},
	} {
		a, b := analyseName(c.short), analyseName(c.long)
		j := compareNames(&a, &b, map[string][]int32{})
		if got := slices.Contains(j.evidence, "person_name"); got != c.person {
			t.Errorf("%q / %q: person_name %v, want %v (evidence %v)", c.short, c.long, got, c.person, j.evidence)
		}
	}
}

// TestInsertedDescriptor: a capitalised name and a lower-case head, and
// the same with one lower-case word inside ("Mohs scale" / "Mohs
// hardness scale"), are one thing; a name inserted ("Gauss Jordan
// elimination") or a name throughout ("Paris Peace Agreement") is not,
// nor a person's name ("Alan Turing" / "Alan M. Turing" is another rule's).
func TestInsertedDescriptor(t *testing.T) {
	wantGroups(t, []string{"Mohs scale", "Mohs hardness scale", "Petri dish", "Petri culture dish",
		"Gauss elimination", "Gauss Jordan elimination", "Paris Agreement", "Paris Peace Agreement"}, []string{"Mohs hardness scale | Mohs scale", "Petri culture dish | Petri dish"})
}

// BenchmarkParseGivenNames is the cost of reading both given-name lists,
// paid once per process, on the first name analysis that needs them.
func BenchmarkParseGivenNames(b *testing.B) {
	for b.Loop() {
		parseGivenNames(givenNamesText)
		parseGivenNames(moreGivenNamesText)
	}
}

package concepts

import (
	"slices"
	"testing"
)

// TestSurnameOfOnePerson: a surname WordNet knows as one person's is that
// person's without context unless a proper name of two words that is no
// person's uses it ("River Shannon", "Goldman Sachs"); eponyms in lower
// case ("Kepler space telescope"), longer names and other people's names
// do not count.
func TestSurnameOfOnePerson(t *testing.T) {
	labels := []string{
		"Freud", "Sigmund Freud", "Freud Museum of Vienna", "Anna Freud",
		"Kepler", "Johannes Kepler", "Kepler space telescope", "Kepler's laws",
		"Shannon", "Claude Shannon", "River Shannon",
		"Goldman", "Emma Goldman", "Goldman Sachs",
	}
	_, got := labelGroups(labels)
	want := []string{"Freud | Sigmund Freud", "Johannes Kepler | Kepler"}
	if !slices.Equal(got, want) {
		t.Errorf("groups %q, want %q", got, want)
	}
}

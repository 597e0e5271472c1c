package concepts

import (
	"slices"
	"strings"
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
	m := &matcher{ids: make([]string, len(labels)), labels: labels, aliases: make([][]string, len(labels))}
	for i := range labels {
		m.ids[i] = string(rune('A' + i))
	}
	x := buildDupIndex(m)
	cons := make([]dupConcept, len(labels))
	for i := range labels {
		cons[i] = dupConcept{id: m.ids[i], label: labels[i], names: x.names[i], vocab: x.token}
	}
	groups, _ := analyseVault(x, cons, 0, nil)
	var got []string
	for _, g := range groups {
		var names []string
		for _, mb := range g.Members {
			names = append(names, mb.Label)
		}
		slices.Sort(names)
		got = append(got, strings.Join(names, " | "))
	}
	slices.Sort(got)
	want := []string{"Freud | Sigmund Freud", "Johannes Kepler | Kepler"}
	if !slices.Equal(got, want) {
		t.Errorf("groups %q, want %q", got, want)
	}
}

package concepts

import (
	"slices"
	"strings"
	"testing"
)

// TestRound15Shapes: a bare name and the name with a comma qualifier the
// gazetteer does not place it in is a weak review (the context says), but
// a country or a company's legal form says which.
func TestRound15Shapes(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		weak bool
	}{
		{"Kew", "Kew, Victoria", true},
		{"Logan", "Logan, Utah", true},
		{"Wimbledon", "Wimbledon, London", true},
		{"Daugavpils", "Daugavpils, Latvia", false},
		{"Airbyte", "Airbyte, Inc.", false},
		{"Munich", "Munich, Germany", false},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		for _, ab := range [][2]*nameInfo{{&a, &b}, {&b, &a}} {
			j := compareNames(ab[0], ab[1], map[string][]int32{})
			if j.verdict != VerdictReview || j.weak != tc.weak {
				t.Errorf("%s / %s: verdict %q weak %v evidence %v veto %q; want review, weak %v", ab[0].text, ab[1].text, j.verdict, j.weak, j.evidence, j.veto, tc.weak)
			}
		}
	}
}

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

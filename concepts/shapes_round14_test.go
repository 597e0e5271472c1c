package concepts

import (
	"slices"
	"testing"
)

// TestRound14Shapes: a coined one-word name and one or two lower-case
// words after it that WordNet files as a kind of thing made, disease,
// organisation or landform are one concept for review without context
// (kind_noun, round 13's last variant shipped in round 14); a person's,
// place's or natural object's name and a thing named after it, a place
// or an animal after the name, a possessive, an English word, a word
// that is no kind, a thing for a thing ("Aeron chair cushion") and a
// name glued to its words are not.
func TestRound14Shapes(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		kind bool
	}{
		// Right pairs: sense 3 of "server" is a computer (sense 1, a
		// person, does not stop it), "board" a plank and a committee;
		// "search engine" is a program in WordNet, so its last word
		// decides.
		{"Nextcloud", "Nextcloud server", true},
		{"Memcached", "Memcached server", true},
		{"Trivy", "Trivy scanner", true},
		{"Nmap", "Nmap security scanner", true},
		{"Wireshark", "Wireshark packet analyzer", true},
		{"Zipkin", "Zipkin tracing system", true},
		{"Meilisearch", "Meilisearch search engine", true},
		{"Arduino", "Arduino board", true},
		{"Authelia", "Authelia authentication server", true},
		{"containerd", "containerd daemon", false}, // a daemon is a spirit, not a program, to WordNet
		// A person, a place, a natural object of the shipped sets
		// and a thing named after them.
		{"Feynman", "Feynman diagram", false},
		{"Peking", "Peking duck", false},
		{"Irrawaddy", "Irrawaddy dolphin", false},
		// No kind: a place, an animal, an abstraction, a person.
		{"Mykonos", "Mykonos town", false},
		{"Douro", "Douro wine region", false},
		{"Amur", "Amur tiger", false},
		{"Roche", "Roche limit", false},
		{"Kruskal", "Kruskal test", false},
		{"Emotet", "Emotet loader", false},
		// The word between is a thing first: the last names a part of
		// it or a thing for it.
		{"Aeron", "Aeron chair cushion", false},
		// Not the shape: an English word, a possessive, capitalised
		// or glued words after the name, an acronym, a country.
		{"Honeycomb", "honeycomb structure", false},
		{"Chekhov", "Chekhov's gun", false},
		{"Schrödinger", "Schrödinger's cat", false},
		{"Rosetta", "Rosetta@home", false},
		{"Nextcloud", "Nextcloud Server", false},
		{"NATO", "NATO headquarters", false},
		{"Qatar", "Qatar airport", false},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		if got := kindNounAfter(&a, &b); got != tc.kind {
			t.Errorf("kindNounAfter(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.kind)
		}
		for _, ab := range [][2]*nameInfo{{&a, &b}, {&b, &a}} {
			j := compareNames(ab[0], ab[1], map[string][]int32{})
			if got := slices.Contains(j.evidence, "kind_noun"); got != tc.kind || got && (j.verdict != VerdictReview || j.weak || j.veto != "") {
				t.Errorf("%s / %s: verdict %q weak %v evidence %v veto %q; want kind_noun %v, a review without context", ab[0].text, ab[1].text, j.verdict, j.weak, j.evidence, j.veto, tc.kind)
			}
		}
	}
}

package concepts

import (
	"slices"
	"testing"
)

// TestEponymLeavesSurnameAlone: a thing named after a person by a word of
// its kind ("Spinoza Prize", "Cervantes Institute", "Frida Kahlo Museum")
// is no other meaning of the surname alone: "Spinoza" is still Baruch
// Spinoza's. A proper name of two words that is no eponym ("River
// Shannon", "Vivaldi Partners") still makes the bare surname ambiguous.
func TestEponymLeavesSurnameAlone(t *testing.T) {
	labels := []string{
		"Spinoza", "Baruch Spinoza", "Spinoza Prize",
		"Cervantes", "Miguel de Cervantes", "Cervantes Institute",
		"Shannon", "Claude Shannon", "River Shannon",
		"Vivaldi", "Antonio Vivaldi", "Vivaldi Partners",
	}
	_, got := labelGroups(labels)
	want := []string{"Baruch Spinoza | Spinoza", "Cervantes | Miguel de Cervantes"}
	if !slices.Equal(got, want) {
		t.Errorf("groups %q, want %q", got, want)
	}
}

package concepts

import (
	"slices"
	"testing"
)

func TestDefinitionsIn(t *testing.T) {
	for _, tc := range []struct {
		body  string
		short string
		long  []string // nil: no definition
	}{
		{"We use Transport Layer Security (TLS) for this.", "TLS", []string{"We use Transport Layer Security", "use Transport Layer Security", "Transport Layer Security", "Layer Security", "Security"}},
		{"- [[Transport Layer Security]] (TLS)\n", "TLS", []string{"Transport Layer Security"}},
		{"the [[Secret Intelligence Service|the service]] ([[MI6]])", "MI6", []string{"Secret Intelligence Service"}},
		{"[[TLS]] (Transport Layer Security, formerly SSL) is", "TLS", []string{"Transport Layer Security"}},
		{"Then, **P&L** (profit and loss) fell.", "P&L", []string{"profit and loss"}},
		{"as in the U.S. Army (USA) today", "USA", []string{"as in the U.S. Army", "in the U.S. Army", "the U.S. Army", "U.S. Army", "Army"}},
		{"it failed (see below)", "", nil},
		{"a note (TLS) spans\nlines (", "TLS", []string{"a note", "note"}},
		{"It ends. Mt. Fuji (MF) is", "MF", []string{"Mt. Fuji", "Fuji"}},
		{"(TLS)", "", nil},
		{"see [[Transport Layer Security|TLS]] here", "TLS", []string{"Transport Layer Security"}},
		{"see [[Transport Layer Security#Handshake|TLS]]", "TLS", []string{"Transport Layer Security"}},
		{"see [[TLS|Transport Layer Security]]", "", nil},
		{"nothing here", "", nil},
	} {
		got := definitionsIn(tc.body)
		if tc.long == nil {
			if len(got) != 0 {
				t.Errorf("%q: got %+v, want none", tc.body, got)
			}
			continue
		}
		if len(got) != 1 || got[0].short != tc.short || !slices.Equal(got[0].long, tc.long) {
			t.Errorf("%q: got %+v, want %s %q", tc.body, got, tc.short, tc.long)
		}
	}
}

func TestShortForm(t *testing.T) {
	for s, want := range map[string]bool{
		"TLS": true, "MI6": true, "S3": true, "P&L": true, "IoT": true, "HbA1c": true, "eVTOL": true,
		"Kafka": false, "tls": false, "2024": false, "A": false, "TOOLONGNAME": false, "&A": false,
	} {
		if got := shortForm(s); got != want {
			t.Errorf("shortForm(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzDefinitionsIn(f *testing.F) {
	for _, s := range []string{"Transport Layer Security (TLS)", "[[TLS]] ([[Transport Layer Security|x]])", "((", "[[a|]] (B2)", "x ([[", "é (ÉÉ)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, d := range definitionsIn(body) {
			if d.short == "" || len(d.long) == 0 {
				t.Fatalf("%q: empty definition %+v", body, d)
			}
		}
	})
}

func TestContainsShort(t *testing.T) {
	for _, tc := range []struct {
		long, short string
		want        bool
	}{
		{"NFL Draft", "NFL", true}, {"HTML 4.01", "HTML5", true}, {"ETH Zurich", "ETH", true}, {"MySQL Workbench", "MySQL", true},
		{"Transport Layer Security", "TLS", false}, {"Secret Intelligence Service", "MI6", false}, {"Formula One", "F1", false},
	} {
		if got := containsShort(analyseName(tc.long), tc.short); got != tc.want {
			t.Errorf("containsShort(%q, %q) = %v, want %v", tc.long, tc.short, got, tc.want)
		}
	}
}

package vault_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// TestSupersedesForms reads `supersedes` in every form Obsidian users
// write it, and the index reference each becomes.
func TestSupersedesForms(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // the relation targets
		refs       []string // their index form
	}{
		{"quoted link", `supersedes: "[[Old Note]]"`, []string{"Old Note"}, []string{"concept:old note"}},
		{"link with heading and shown text", `supersedes: "[[Old Note#Plan|the old plan]]"`, []string{"Old Note"}, []string{"concept:old note"}},
		{"block list of links", "supersedes:\n  - \"[[A]]\"\n  - \"[[B]]\"", []string{"A", "B"}, []string{"concept:a", "concept:b"}},
		{"flow list of links", `supersedes: ["[[A]]", "[[B]]"]`, []string{"A", "B"}, []string{"concept:a", "concept:b"}},
		{"plain title", `supersedes: Old Note`, []string{"Old Note"}, []string{"concept:old note"}},
		{"list of plain titles", "supersedes:\n  - Coffee Preference\n  - Tea Preference", []string{"Coffee Preference", "Tea Preference"},
			[]string{"concept:coffee preference", "concept:tea preference"}},
		{"mixed list", `supersedes: ["[[A]]", B, notes/C.md]`, []string{"A", "B", "notes/C.md"}, []string{"concept:a", "concept:b", "note:notes/C.md"}},
		{"path with .md", `supersedes: notes/Old Note.md`, []string{"notes/Old Note.md"}, []string{"note:notes/Old Note.md"}},
		{"path link with .md", `supersedes: "[[notes/Old Note.md]]"`, []string{"notes/Old Note.md"}, []string{"note:notes/Old Note.md"}},
		{"path link without .md", `supersedes: "[[notes/Old Note]]"`, []string{"notes/Old Note.md"}, []string{"note:notes/Old Note.md"}},
		{"path with a leading slash", `supersedes: /notes/Old.md`, []string{"notes/Old.md"}, []string{"note:notes/Old.md"}},
		{"memory URI", `supersedes: memory://notes/Old Note`, []string{"memory://notes/Old Note"}, []string{"note:notes/Old Note.md"}},
		{"file name with .md", `supersedes: Old Note.md`, []string{"Old Note.md"}, []string{"note:Old Note.md"}},
		{"empty", `supersedes:`, nil, nil},
		{"empty string", `supersedes: ""`, nil, nil},
		{"empty list", `supersedes: []`, nil, nil},
		{"a mapping is not a target", "supersedes:\n  note: A", nil, nil},
		{"absent", `title: New`, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fm, err := vault.ParseFrontMatter([]byte(c.yaml))
			if err != nil {
				t.Fatal(err)
			}
			got := fm.Supersedes()
			if !slices.Equal(got, c.want) {
				t.Fatalf("Supersedes() = %q, want %q", got, c.want)
			}
			var refs []string
			for _, g := range got {
				refs = append(refs, vault.RelationRef(g))
			}
			if !slices.Equal(refs, c.refs) {
				t.Errorf("refs = %q, want %q", refs, c.refs)
			}
			// Each is a relation of type supersedes, in the property form.
			rels, err := fm.Relations()
			if err != nil {
				t.Fatal(err)
			}
			var typed []string
			for _, r := range rels {
				if r.Type == noema.SupersedesKey && r.Property {
					typed = append(typed, r.To)
				}
			}
			if !slices.Equal(typed, c.want) {
				t.Errorf("relations of type supersedes = %q, want %q", typed, c.want)
			}
		})
	}
}

// TestSupersedesOtherPropertiesStayLinksOnly: plain text in any other
// property is not a relation; only `supersedes` reads titles and paths.
func TestSupersedesOtherPropertiesStayLinksOnly(t *testing.T) {
	fm, err := vault.ParseFrontMatter([]byte("replaces: Old Note\nsupersedes: Old Note\nvalid_until: \"[[2026-01-01]]\""))
	if err != nil {
		t.Fatal(err)
	}
	rels, err := fm.Relations()
	if err != nil {
		t.Fatal(err)
	}
	if len(rels) != 1 || rels[0].Type != noema.SupersedesKey {
		t.Fatalf("relations = %+v, want one, supersedes (valid_until is reserved, replaces holds no link)", rels)
	}
}

// TestSupersedesEditable: a supersedes relation added, then removed, by its
// reference, whatever form it was written in.
func TestSupersedesEditable(t *testing.T) {
	fm, err := vault.ParseFrontMatter([]byte("supersedes:\n  - Old Note\n  - \"[[notes/Plan]]\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := fm.AddRelation(noema.SupersedesKey, vault.LinkTo("Other"), "", nil, nil); err != nil {
		t.Fatalf("adding a link to a property holding titles: %v", err)
	}
	if !fm.RemoveRelation(noema.SupersedesKey, "note:notes/Plan.md") {
		t.Fatal("the path link without .md was not removed by its note reference")
	}
	if !fm.RemoveRelation(noema.SupersedesKey, "concept:old note") {
		t.Fatal("the plain title was not removed by its reference")
	}
	if got := fm.Supersedes(); !slices.Equal(got, []string{"Other"}) {
		t.Fatalf("Supersedes() = %q, want [Other]", got)
	}
	b, err := fm.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `[[Other]]`) {
		t.Errorf("front matter:\n%s", b)
	}
}

// TestValidityForms reads valid_from and valid_until in every form, and
// refuses anything else with invalid_argument naming the key and line.
func TestValidityForms(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	endOf := func(s string) time.Time { return day(s).AddDate(0, 0, 1).Add(-time.Nanosecond) }
	at := func(s string) time.Time {
		d, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	cases := []struct {
		name, yaml  string
		from, until time.Time
		err         string // a part of the error's message
	}{
		{"dates", "valid_from: 2026-01-02\nvalid_until: 2026-03-04", day("2026-01-02"), endOf("2026-03-04"), ""},
		{"quoted dates", "valid_from: \"2026-01-02\"\nvalid_until: '2026-03-04'", day("2026-01-02"), endOf("2026-03-04"), ""},
		{"RFC 3339", "valid_from: 2026-01-02T10:00:00+02:00", at("2026-01-02T08:00:00Z"), time.Time{}, ""},
		{"fractional seconds", "valid_until: 2026-01-02T10:00:00.5Z", time.Time{}, at("2026-01-02T10:00:00.5Z"), ""},
		{"date and time with a space", "valid_from: 2026-01-02 10:30:00", at("2026-01-02T10:30:00Z"), time.Time{}, ""},
		{"Obsidian date-time", "valid_until: 2026-01-02T10:30", time.Time{}, at("2026-01-02T10:30:00Z"), ""},
		{"daily note link", "valid_until: \"[[2026-01-02]]\"", time.Time{}, endOf("2026-01-02"), ""},
		{"empty", "valid_from:\nvalid_until: \"\"", time.Time{}, time.Time{}, ""},
		{"absent", "title: x", time.Time{}, time.Time{}, ""},
		{"not a date", "title: x\nvalid_from: next week", time.Time{}, time.Time{}, "line 2: valid_from must be a date"},
		{"impossible date", "valid_until: 2026-02-30", time.Time{}, time.Time{}, "valid_until must be a date"},
		{"a number", "valid_until: 20260101", time.Time{}, time.Time{}, "valid_until must be a date"},
		{"a list", "valid_from: [2026-01-01]", time.Time{}, time.Time{}, "valid_from must be a date"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fm, err := vault.ParseFrontMatter([]byte(c.yaml))
			if err != nil {
				t.Fatal(err)
			}
			from, until, err := fm.Validity()
			if c.err != "" {
				if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(noema.ErrorMessage(err), c.err) {
					t.Fatalf("err = %v, want invalid_argument with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !from.Equal(c.from) || !until.Equal(c.until) {
				t.Errorf("Validity() = %v, %v; want %v, %v", from, until, c.from, c.until)
			}
		})
	}
}

// FuzzValidity: any front matter parses into a validity or an
// invalid_argument, never a panic, and a valid_until is never before its
// day's start.
func FuzzValidity(f *testing.F) {
	for _, s := range []string{"valid_from: 2026-01-02", "valid_until: \"[[2026-01-02]]\"", "valid_from: x", "supersedes: [a, \"[[b]]\"]", "valid_until: 2026-01-02T10:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		fm, err := vault.ParseFrontMatter([]byte(src))
		if err != nil {
			return
		}
		_, _, err = fm.Validity()
		if err != nil && noema.ErrorCode(err) != noema.EINVALID {
			t.Fatalf("Validity: %v", err)
		}
		for _, s := range fm.Supersedes() {
			if strings.TrimSpace(s) == "" {
				t.Fatalf("an empty target from %q", src)
			}
		}
	})
}

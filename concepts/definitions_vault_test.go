package concepts_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
)

// TestDuplicatesDefinedInNotes: an abbreviation a note spells out is a
// pair of analyze_duplicates, in each form people write it, for the whole
// vault and for one concept; a short form defined as one concept is not
// also paired by its initials with another.
func TestDuplicatesDefinedInNotes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	for path, body := range map[string]string{
		"a.md": "We rely on [[Transport Layer Security]] (TLS) for the link.\n",
		"b.md": "Its handshake: see [[TLS]].\n",
		"c.md": "The [[Secret Intelligence Service|MI6]] recruited him.\n",
		"d.md": "He worked for [[MI6]] later.\n",
		"e.md": "Per-thread data is [[thread local storage]].\n",
		"f.md": "[[CERN]] (European Organization for Nuclear Research) runs it.\n",
		"g.md": "The [[European Organization for Nuclear Research]] in Geneva.\n",
		"h.md": "The [[NFL Draft]] (NFL) happens in April; [[NFL]] teams pick.\n",
	} {
		treetest.Write(t, dir, path, body)
	}
	a := noematest.OpenSynced(t, dir, app.Options{})
	ctx := context.Background()
	res, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{Limit: concepts.MaxDuplicateLimit}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defined := map[[2]string]bool{}
	for _, g := range res.Groups {
		for _, p := range g.Pairs {
			if slices.Contains(p.Evidence, "defined_in_notes") {
				defined[[2]string{p.A.Label, p.B.Label}] = true
				defined[[2]string{p.B.Label, p.A.Label}] = true
			}
			if (p.A.Label == "TLS" || p.B.Label == "TLS") && (p.A.Label == "thread local storage" || p.B.Label == "thread local storage") {
				t.Errorf("TLS paired with thread local storage: %+v", p)
			}
		}
	}
	for _, want := range [][2]string{{"TLS", "Transport Layer Security"}, {"MI6", "Secret Intelligence Service"}, {"CERN", "European Organization for Nuclear Research"}} {
		if !defined[want] {
			t.Errorf("no defined_in_notes pair %s / %s; groups %+v", want[0], want[1], res.Groups)
		}
	}
	if defined[[2]string{"NFL", "NFL Draft"}] {
		t.Errorf("NFL Draft (NFL) read as a definition")
	}
	one, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{Concept: "Secret Intelligence Service"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Groups) != 1 || !slices.ContainsFunc(one.Groups[0].Members, func(m concepts.DupMember) bool { return m.Label == "MI6" }) {
		t.Errorf("one concept's group: %+v, want MI6 in it", one.Groups)
	}
}

package concepts_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/noematest"
)

// goroutineVault is issue 19's vault: "Goroutine" (no page, 6 mentions)
// beside "Goroutines", whose page is the note stdlib/Goroutines.md (4
// links); "Mutex" / "Mutexes", which the builtin embedder scores at 0.47;
// and the note PostgreSQL, taken as a page by its title, whose aliases are
// the note's.
func goroutineVault(t *testing.T) *app.App {
	t.Helper()
	return noematest.AppWith(t, map[string]string{
		"stdlib/Goroutines.md": "# Goroutines\n\nLightweight threads of the Go runtime.\n",
		"stdlib/PostgreSQL.md": "---\naliases: [Postgres DB]\n---\n# PostgreSQL\n\nA database.\n",
		"db/Postgres.md":       "# Postgres\n\nThe other note.\n",
		"a.md":                 "[[Goroutine]] [[Goroutine]] [[Goroutine]] [[Mutex]] [[Postgres]]\n",
		"b.md":                 "[[Goroutine]] [[Goroutine]] [[Goroutine]] [[Mutex]] [[PostgreSQL]] [[Postgres DB]]\n",
		"c.md":                 "[[Goroutines]] [[Goroutines]] [[Mutexes]]\n",
		"d.md":                 "[[Goroutines]] [[Goroutines]] [[Mutexes]]\n",
	})
}

func groupOf(t *testing.T, res *concepts.DuplicatesResult, label string) concepts.DupGroup {
	t.Helper()
	for _, g := range res.Groups {
		if slices.ContainsFunc(g.Members, func(m concepts.DupMember) bool { return m.Label == label }) {
			return g
		}
	}
	t.Fatalf("no group holds %q: %+v", label, res.Groups)
	return concepts.DupGroup{}
}

// TestMergeKeepsNotePage: the survivor is the concept whose page is a real
// note; the dry run lists the notes that gain or lose inbound links;
// applying the proposal makes no empty page and the links open the note;
// the other direction is refused.
func TestMergeKeepsNotePage(t *testing.T) {
	ctx := context.Background()
	a := goroutineVault(t)
	res, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, a.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	g := groupOf(t, res, "Goroutine")
	if g.Target.Label != "Goroutines" || g.Verdict != concepts.VerdictMerge {
		t.Fatalf("survivor %q (%s), want Goroutines, whose page is a note: %+v", g.Target.Label, g.Verdict, g.Members)
	}
	// The other way round is refused: it would point the note's links at
	// an empty page.
	_, err = a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Goroutines"}, Target: "Goroutine", DryRun: no()})
	if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), `merge "Goroutine" into "Goroutines" instead`) {
		t.Errorf("merging the note's concept away: %v", err)
	}
	dry, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: g.Merge.Sources, Target: g.Merge.Target})
	if err != nil {
		t.Fatal(err)
	}
	want := []concepts.InboundChange{{URI: "memory://stdlib/Goroutines", Role: "target_page", Before: 4, After: 10}}
	if !slices.Equal(dry.InboundLinks, want) || dry.NeedsForce {
		t.Errorf("dry run inbound links %+v, want %+v (%s)", dry.InboundLinks, want, dry.Message)
	}
	if _, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: g.Merge.Sources, Target: g.Merge.Target, DryRun: no()}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, "concepts", "Goroutine.md")); !os.IsNotExist(err) {
		t.Errorf("the merge made a page for Goroutine: %v", err)
	}
	if got := noematest.ReadFile(t, a, "a.md"); !strings.HasPrefix(got, "[[Goroutines|Goroutine]] [[Goroutines|Goroutine]]") {
		t.Errorf("a.md = %q", got)
	}
	c, err := a.Concepts.Get(ctx, "Goroutine")
	if err != nil || c.Page != "memory://stdlib/Goroutines" || c.Mentions != 10 {
		t.Errorf("after the merge Goroutine = %+v, %v", c, err)
	}
}

// TestMergeOrphanedNoteListed: merging a concept whose page is a note into
// another note's concept lists the note losing its inbound links, and
// says that no link reaches it.
func TestMergeOrphanedNoteListed(t *testing.T) {
	ctx := context.Background()
	a := goroutineVault(t)
	dry, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Postgres"}, Target: "PostgreSQL", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []concepts.InboundChange{
		{URI: "memory://db/Postgres", Role: "source_page", Before: 1, After: 0},
		{URI: "memory://stdlib/PostgreSQL", Role: "target_page", Before: 2, After: 3},
	}
	if !slices.Equal(dry.InboundLinks, want) {
		t.Errorf("inbound links %+v, want %+v", dry.InboundLinks, want)
	}
	if !slices.ContainsFunc(dry.Warnings, func(w string) bool {
		return strings.Contains(w, "memory://db/Postgres keeps its text, but no link reaches it")
	}) {
		t.Errorf("warnings %q", dry.Warnings)
	}
}

// TestDuplicatesVerdictMatchesMerge: what analyze_duplicates calls a merge,
// merge_concepts accepts (Mutex / Mutexes at similarity 0.47); a merge it
// does not call one still needs force, and its dry run previews it and
// says so instead of failing.
func TestDuplicatesVerdictMatchesMerge(t *testing.T) {
	ctx := context.Background()
	a := goroutineVault(t)
	res, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, a.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	g := groupOf(t, res, "Mutex")
	if g.Verdict != concepts.VerdictMerge {
		t.Fatalf("Mutex / Mutexes: %+v", g)
	}
	for _, p := range g.Pairs {
		if slices.ContainsFunc(p.Evidence, func(e string) bool { return strings.Contains(e, "needs force") }) {
			t.Errorf("a merge verdict says merge_concepts needs force: %v", p.Evidence)
		}
	}
	out, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: g.Merge.Sources, Target: g.Merge.Target, DryRun: no()})
	if err != nil {
		t.Fatalf("merge_concepts refuses analyze_duplicates' merge: %v", err)
	}
	if len(out.Similarities) != 1 || out.Similarities[0].Similarity >= concepts.DefaultMinSimilarity || !out.Similarities[0].Duplicate {
		t.Errorf("similarities %+v: want one below %.1f, judged a duplicate", out.Similarities, concepts.DefaultMinSimilarity)
	}
	// Not duplicates by the rule and dissimilar: the dry run previews and
	// says it needs force; applying without force is refused.
	dry, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Goroutine"}, Target: "Mutexes"})
	if err != nil {
		t.Fatalf("dry run of a merge that needs force: %v", err)
	}
	if !dry.NeedsForce || len(dry.Changes) == 0 || !strings.Contains(dry.Message, "needs force=true") {
		t.Errorf("dry run = %+v", dry)
	}
	_, err = a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Goroutine"}, Target: "Mutexes", DryRun: no()})
	if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), "force") {
		t.Errorf("apply without force: %v", err)
	}
}

// TestNoteAliasesAreNotConceptAliases: the aliases of a note taken as a
// page by its title neither veto a duplicate nor move to the target on
// merge.
func TestNoteAliasesAreNotConceptAliases(t *testing.T) {
	ctx := context.Background()
	a := goroutineVault(t)
	res, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, a.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.DoNotMerge {
		if strings.Contains(d.Reason, "Postgres DB") {
			t.Errorf("a note's alias drives a do_not_merge verdict: %+v", d)
		}
	}
	dry, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"PostgreSQL"}, Target: "Postgres", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(dry.AliasesAdded, "Postgres DB") || !slices.Contains(dry.AliasesAdded, "PostgreSQL") {
		t.Errorf("aliases added %q: want the label, not the note's alias", dry.AliasesAdded)
	}
	// The links by the note's alias still go to the target.
	if !slices.ContainsFunc(dry.Changes, func(c concepts.FileChange) bool { return strings.Contains(c.After, "[[Postgres|Postgres DB]]") }) {
		t.Errorf("changes %+v", dry.Changes)
	}
}

// TestSurvivorIsNotTheTypo: when a typo's words are in no other name and
// its partner's are, the partner survives, even with fewer mentions.
func TestSurvivorIsNotTheTypo(t *testing.T) {
	ctx := context.Background()
	a := noematest.AppWith(t, map[string]string{
		"a.md": "[[Garbage Colection]] [[Garbage Colection]] [[Garbage Colection]] [[Garbage Collection]]\n",
		"b.md": "[[Collection Types]] [[Garbage Truck]] [[Stamp Collection]]\n",
	})
	res, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := groupOf(t, res, "Garbage Colection"); g.Target.Label != "Garbage Collection" {
		t.Errorf("survivor %q, want the right spelling: %+v", g.Target.Label, g.Members)
	}
}

// TestNewShapesVerdictMatchesMerge: round 6's evidence (a sole surname,
// a standard short form, a place's region) and round 7's plurals, backed
// by notes that link both names, make analyze_duplicates say merge, and merge_concepts
// accepts each such group as proposed, without force.
func TestNewShapesVerdictMatchesMerge(t *testing.T) {
	ctx := context.Background()
	pairs := [][2]string{{"Wittgenstein", "Ludwig Wittgenstein"}, {"Sgt.", "sergeant"}, {"Salzburg", "Salzburg, Austria"},
		// Round 7: plurals the word list decides, closed-class and
		// foreign plurals, letters NFD leaves whole.
		{"Hoof", "Hooves"}, {"tomato", "tomatoes"}, {"Kibbutz", "Kibbutzim"}, {"beach", "beaches"}, {"Łódź", "Lodz"}}
	files := map[string]string{}
	for i, p := range pairs {
		for k := range 2 {
			files[string(rune('a'+i))+string(rune('0'+k))+".md"] = "[[" + p[0] + "]] and [[" + p[1] + "]]\n"
		}
	}
	a := noematest.AppWith(t, files)
	res, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, a.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		g := groupOf(t, res, p[0])
		if g.Verdict != concepts.VerdictMerge || len(g.Members) != 2 {
			t.Errorf("%s / %s: %s %+v, want a merge of the two", p[0], p[1], g.Verdict, g.Pairs)
			continue
		}
		if _, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: g.Merge.Sources, Target: g.Merge.Target, DryRun: no()}); err != nil {
			t.Errorf("%s / %s: merge_concepts refuses analyze_duplicates' merge: %v", p[0], p[1], err)
		}
	}
}

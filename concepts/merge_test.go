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
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/relations"
)

func no() *bool { f := false; return &f }

// mergeVault is a vault with a duplicate: "Garbage Colection" (a typo with
// its own page, alias and relation) beside "Garbage Collection".
func mergeVault(t *testing.T) *app.App {
	t.Helper()
	ctx := context.Background()
	a := noematest.OpenApp(t, t.TempDir(), app.Options{})
	file := func(rel, content string) {
		t.Helper()
		treetest.Write(t, a.Vault.Root, rel, content)
		noematest.Sync(t, a)
	}
	file("B.md", "Only [[Garbage Colection]] here, and [[Rust]] and [[Garbage Collection]].\n")
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Garbage Colection", AddAliases: []string{"GCol"},
		Metadata: map[string]any{"field": "memory"}}); err != nil {
		t.Fatal(err)
	}
	file("A.md", "Uses [[Garbage Colection]] and [[GCol|the collector]], see [[Garbage Colection#Pauses]].\n"+
		"Embedded: ![[Garbage Colection]]\n```\n[[Garbage Colection]] in code\n```\nAlso [[Garbage Collection]].\n")
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Garbage Collection", Metadata: map[string]any{"year": 1959}}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []relations.CreateInput{
		{From: "Garbage Colection", Type: "part_of", To: "Rust"},
		{From: "Rust", Type: "uses", To: "Garbage Colection"},
		{From: "Garbage Collection", Type: "part_of", To: "Rust"}, // collapses with the moved one
	} {
		if _, err := a.Relations.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func TestMergeConcepts(t *testing.T) {
	ctx := context.Background()
	a := mergeVault(t)
	beforeA := noematest.ReadFile(t, a, "A.md")

	// A dry run (the default) reports and changes nothing.
	dry, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"gcol"}, Target: "Garbage Collection"})
	if err != nil {
		t.Fatal(err)
	}
	if !dry.DryRun || len(dry.Sources) != 1 || dry.Sources[0].Label != "Garbage Colection" || len(dry.Changes) == 0 ||
		!slices.Equal(dry.AliasesAdded, []string{"Garbage Colection", "GCol"}) || len(dry.PagesDeleted) != 1 || len(dry.Similarities) != 1 {
		t.Fatalf("dry run = %+v", dry)
	}
	if noematest.ReadFile(t, a, "A.md") != beforeA {
		t.Fatal("a dry run changed A.md")
	}

	res, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Garbage Colection"}, Target: "garbage collection", DryRun: no()})
	if err != nil {
		t.Fatal(err)
	}
	// Rust uses → moved; the source's part_of Rust collapses into the
	// target's own.
	if res.DryRun || res.RelationsMoved != 1 {
		t.Errorf("merge = %+v", res)
	}
	wantA := "Uses [[Garbage Collection|Garbage Colection]] and [[Garbage Collection|the collector]], see [[Garbage Collection#Pauses]].\n" +
		"Embedded: ![[Garbage Collection]]\n```\n[[Garbage Colection]] in code\n```\nAlso [[Garbage Collection]].\n"
	if got := noematest.ReadFile(t, a, "A.md"); got != wantA {
		t.Errorf("A.md =\n%s\nwant\n%s", got, wantA)
	}
	if got := noematest.ReadFile(t, a, "B.md"); got != "Only [[Garbage Collection|Garbage Colection]] here, and [[Rust]] and [[Garbage Collection]].\n" {
		t.Errorf("B.md = %q", got)
	}
	// The old spellings resolve to the target; the duplicate is gone.
	gc, err := a.Concepts.Get(ctx, "Garbage Colection")
	if err != nil || gc.Label != "Garbage Collection" || !slices.Contains(gc.Aliases, "GCol") {
		t.Fatalf("old spelling = %+v, %v", gc, err)
	}
	if gc.Metadata["field"] != "memory" || gc.Metadata["year"] != float64(1959) {
		t.Errorf("metadata = %v", gc.Metadata)
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, "concepts", "Garbage Colection.md")); !os.IsNotExist(err) {
		t.Errorf("source page still there: %v", err)
	}
	page := noematest.ReadFile(t, a, gc.Page)
	if strings.Count(page, "'[[Rust]]'") != 1 {
		t.Errorf("target page relations (part_of Rust once):\n%s", page)
	}
	rust := noematest.ReadFile(t, a, "concepts/Rust.md")
	if !strings.Contains(rust, "uses:\n  - '[[Garbage Collection]]'") || strings.Contains(rust, "Colection") {
		t.Errorf("incoming relation not moved:\n%s", rust)
	}
	st, _ := a.Status(ctx)
	if st.Concepts != 2 {
		t.Errorf("concepts = %d, want 2 (Garbage Collection, Rust)", st.Concepts)
	}

	// Again: a no-op that says so.
	again, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Garbage Colection"}, Target: "Garbage Collection", DryRun: no()})
	if err != nil || len(again.Sources) != 0 || !strings.Contains(again.Message, "nothing to merge") {
		t.Errorf("again = %+v, %v", again, err)
	}
}

func TestMergeRefusals(t *testing.T) {
	ctx := context.Background()
	a := mergeVault(t)
	// Dissimilar concepts need force; the error names the embedder.
	_, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Rust"}, Target: "Garbage Collection", DryRun: no()})
	if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), "builtin") || !strings.Contains(err.Error(), "force") {
		t.Errorf("dissimilar: %v", err)
	}
	// A metadata conflict stops everything, naming the key.
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Garbage Colection", Metadata: map[string]any{"year": 1960}}); err != nil {
		t.Fatal(err)
	}
	before := noematest.ReadFile(t, a, "A.md")
	_, err = a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Garbage Colection"}, Target: "Garbage Collection", DryRun: no()})
	if noema.ErrorCode(err) != noema.EMETADATACONFLICT || !strings.Contains(err.Error(), "year") {
		t.Errorf("metadata conflict: %v", err)
	}
	if noematest.ReadFile(t, a, "A.md") != before {
		t.Error("a refused merge changed A.md")
	}
	if _, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Nope"}, Target: "Garbage Collection"}); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Errorf("unknown source: %v", err)
	}
}

// TestDeleteCascadeRelations: a concept other files relate to is not
// deleted silently; with cascade_relations those relations go with it.
func TestDeleteCascadeRelations(t *testing.T) {
	ctx := context.Background()
	a := mergeVault(t)
	_, err := a.Concepts.Delete(ctx, concepts.DeleteInput{Concept: "Garbage Colection", Unlink: true})
	if noema.ErrorCode(err) != noema.ECONFLICT || !strings.Contains(err.Error(), "cascade_relations") {
		t.Fatalf("delete with incoming relations: %v", err)
	}
	if !strings.Contains(noematest.ReadFile(t, a, "concepts/Rust.md"), "Garbage Colection") {
		t.Fatal("a refused delete changed Rust's page")
	}
	res, err := a.Concepts.Delete(ctx, concepts.DeleteInput{Concept: "Garbage Colection", Unlink: true, CascadeRelations: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.RelationsRemoved) != 1 || res.RelationsRemoved[0] != "memory://concepts/Rust" || len(res.Unlinked) != 2 {
		t.Errorf("delete = %+v", res)
	}
	if rust := noematest.ReadFile(t, a, "concepts/Rust.md"); strings.Contains(rust, "Colection") || strings.Contains(rust, "uses:") {
		t.Errorf("Rust's page still relates to the deleted concept:\n%s", rust)
	}
	if _, err := a.Concepts.Get(ctx, "Garbage Colection"); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Errorf("after delete: %v", err)
	}
}

// TestRenameRewritesLinks: a new label rewrites the links and relation
// targets that use the old one (the text reading the same) and renames a
// page named by it; rewrite_links=false leaves them.
func TestRenameRewritesLinks(t *testing.T) {
	ctx := context.Background()
	a := mergeVault(t)
	c, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Garbage Colection", Label: "Garbage Collector"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Label != "Garbage Collector" || c.Page != "memory://concepts/Garbage Collector" || !slices.Contains(c.Aliases, "Garbage Colection") {
		t.Fatalf("renamed = %+v", c)
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, "concepts", "Garbage Colection.md")); !os.IsNotExist(err) {
		t.Errorf("old page file: %v", err)
	}
	wantA := "Uses [[Garbage Collector|Garbage Colection]] and [[GCol|the collector]], see [[Garbage Collector#Pauses]].\n" +
		"Embedded: ![[Garbage Collector]]\n```\n[[Garbage Colection]] in code\n```\nAlso [[Garbage Collection]].\n"
	if got := noematest.ReadFile(t, a, "A.md"); got != wantA {
		t.Errorf("A.md =\n%s\nwant\n%s", got, wantA)
	}
	if rust := noematest.ReadFile(t, a, "concepts/Rust.md"); !strings.Contains(rust, "uses:\n  - '[[Garbage Collector]]'") {
		t.Errorf("relation target not renamed:\n%s", rust)
	}
	keep := false
	c, err = a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Garbage Collector", Label: "GC Thing", RewriteLinks: &keep})
	if err != nil {
		t.Fatal(err)
	}
	if got := noematest.ReadFile(t, a, "A.md"); got != wantA || c.Page != "memory://concepts/Garbage Collector" {
		t.Errorf("rewrite_links=false changed links or the page: %s, page %s", got, c.Page)
	}
}

// TestMergeKeepsLinksOpening: a merge rewrites the links to a source so
// that they open the target's page in noema and in Obsidian — by the page's
// file name when it differs from the label only as keys do — and leaves a
// link to a note by path alone when that note stays.
func TestMergeKeepsLinksOpening(t *testing.T) {
	ctx := context.Background()
	a := noematest.AppWith(t, map[string]string{
		"ml/Cobalt.md":      "---\ntitle: Cobalt\n---\nThe element.\n",
		"db/lagoon-reef.md": "---\ntitle: Lagoon Reef\n---\nA slug-named note of an older noema.\n",
		"Uses.md":           "[[ml/Cobalt]], [[Cobalt]] and [[Lagoon Reef]].\n",
	})
	apply := false
	if _, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Cobalt"}, Target: "Lagoon Reef", DryRun: &apply, Force: true}); err != nil {
		t.Fatal(err)
	}
	if got, want := noematest.ReadFile(t, a, "Uses.md"), "[[ml/Cobalt]], [[lagoon-reef|Cobalt]] and [[Lagoon Reef]].\n"; got != want {
		t.Errorf("Uses.md = %q, want %q", got, want)
	}
}

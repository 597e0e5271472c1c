package indexer_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
)

// TestDuplicateTitles: two files with one title are reported by sync and
// status, naming both, and the title keeps meaning the first by path — a
// second file never switches it silently.
func TestDuplicateTitles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := noematest.OpenApp(t, dir, app.Options{})
	write := func(rel, content string) { treetest.Write(t, dir, rel, content) }
	write("b/Plan.md", "first plan\n")
	res := noematest.Sync(t, a)
	if len(res.Warnings) != 0 {
		t.Fatalf("one plan: warnings %+v", res.Warnings)
	}
	write("a/Plan.md", "second plan\n")
	res = noematest.Sync(t, a)
	if len(res.Warnings) != 1 || res.Warnings[0].Code != "duplicate_title" || res.Warnings[0].Path != "a/Plan.md" ||
		!strings.Contains(res.Warnings[0].Message, "a/Plan.md, b/Plan.md") {
		t.Fatalf("two plans: warnings %+v", res.Warnings)
	}
	st, err := a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Warnings) != 1 || st.Warnings[0].Code != "duplicate_title" {
		t.Errorf("status warnings %+v", st.Warnings)
	}
	if path, err := a.Notes.Resolve(ctx, "Plan"); err != nil || path != "a/Plan.md" {
		t.Errorf("Plan resolves to %q, %v; want a/Plan.md (first by path)", path, err)
	}
	write("Links.md", "see [[Plan]]\n")
	noematest.Sync(t, a)
	if c, err := a.Concepts.Get(ctx, "Plan"); err != nil || c.Page != "memory://a/Plan" {
		t.Errorf("the page of [[Plan]] = %+v, %v; want memory://a/Plan", c, err)
	}
	// Written through noema, the duplicate goes away from status at once.
	if _, err := a.Notes.Delete(ctx, "a/Plan.md", true); err != nil {
		t.Fatal(err)
	}
	if st, _ = a.Status(ctx); len(st.Warnings) != 0 {
		t.Errorf("after delete: status warnings %+v", st.Warnings)
	}
}

// TestObsidianVault indexes a vault written with Obsidian's own forms
// (help.obsidian.md: internal links, embeds, block and heading links,
// aliases, nested tags, link properties) and checks what noema makes of
// each. docs/obsidian.md states the rules.
func TestObsidianVault(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/obsidian")); err != nil {
		t.Fatal(err)
	}
	a := noematest.OpenApp(t, dir, app.Options{})
	res := noematest.Sync(t, a)
	if res.Added != 3 || len(res.Warnings) != 0 {
		t.Fatalf("sync = %+v", res)
	}
	list, err := a.Concepts.List(ctx, concepts.ListInput{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, c := range list.Concepts {
		labels = append(labels, c.Label)
	}
	slices.Sort(labels)
	// Not concepts: attachments (jpg, png, pdf), links in code, the
	// same-note heading link. Aliases resolve to their concept; the path
	// links name Roadmap.
	want := []string{"Force", "Inertia", "Mass", "Roadmap", "TCP/IP", "Three laws of motion"}
	if !slices.Equal(labels, want) {
		t.Errorf("concepts = %q, want %q", labels, want)
	}
	laws, err := a.Concepts.Get(ctx, "Newton's laws")
	if err != nil || laws.Label != "Three laws of motion" || laws.Page != "memory://Three laws of motion" {
		t.Fatalf("alias lookup = %+v, %v", laws, err)
	}
	// Heading, block, alias, extension and embed links: five mentions
	// from the reading list, one (by alias) from the roadmap. The property
	// link is a relation, not a mention.
	if laws.Mentions != 6 {
		t.Errorf("mentions of the laws = %d, want 6", laws.Mentions)
	}
	road, err := a.Concepts.Get(ctx, "roadmap")
	if err != nil || road.Page != "memory://Projects/Roadmap" || road.Mentions != 2 {
		t.Errorf("roadmap = %+v, %v", road, err)
	}
	n, err := a.Notes.Read(ctx, "Reading list")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"reading", "to-read", "book/science"}; !slices.Equal(n.Tags, want) {
		t.Errorf("tags = %q, want %q", n.Tags, want)
	}
	var embeds, paths int
	for _, l := range n.Links {
		if l.Embed {
			embeds++
		}
		if l.Path != "" {
			paths++
		}
	}
	if embeds != 1 || paths != 2 {
		t.Errorf("reading list: %d embeds, %d path links; want 1 and 2: %+v", embeds, paths, n.Links)
	}
	laws2, _ := a.Notes.Read(ctx, "Three laws of motion")
	if want := []string{"physics", "physics/classical", "history"}; !slices.Equal(laws2.Tags, want) {
		t.Errorf("tags = %q, want %q", laws2.Tags, want)
	}
	// related: "[[Three laws of motion]]" is a relation, as Dataview reads it.
	page, err := graph.Neighbors(ctx, a.DB.Graph(), "memory://Reading list", graph.NeighborOptions{Direction: "out", Type: "related"})
	if err != nil || page.Total != 1 || page.Neighbors[0].Edge.Target != laws.ID {
		t.Errorf("related property = %+v, %v", page, err)
	}
}

package concepts_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/sqlite"
	"github.com/noema-mem/noema/vault"
)

func write(t *testing.T, a *app.App, title, content string) {
	t.Helper()
	noematest.WriteNote(t, a, notes.WriteInput{Title: title, Content: content})
}

func code(err error) string { return noema.ErrorCode(err) }

func TestAliasResolvesLinks(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	c, err := a.Concepts.Create(ctx, concepts.CreateInput{Label: "Garbage Collection", Aliases: []string{"GC"}, Description: "automatic memory management"})
	if err != nil {
		t.Fatal(err)
	}
	write(t, a, "Runtime", "The [[GC]] pauses; [[garbage-collection]] again.")
	got, err := a.Concepts.Get(ctx, "gc")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != c.ID || got.Mentions != 2 || got.Page != "memory://concepts/Garbage Collection" {
		t.Errorf("concept via alias = %+v (created %+v)", got, c)
	}
	st, _ := a.Status(ctx)
	if st.Concepts != 1 {
		t.Errorf("concepts = %d, want 1 (the alias must not create a second concept)", st.Concepts)
	}
}

func TestCreateConflicts(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	write(t, a, "N", "[[Memory]]")
	if _, err := a.Concepts.Create(ctx, concepts.CreateInput{Label: "Garbage Collection", Aliases: []string{"GC"}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   concepts.CreateInput
		code string
	}{
		{"alias collides with a label", concepts.CreateInput{Label: "Gen Collector", Aliases: []string{"garbage_collection"}}, noema.ECONFLICT},
		{"label collides with an alias", concepts.CreateInput{Label: "gc"}, noema.ECONFLICT},
		{"label collides with an implicit concept", concepts.CreateInput{Label: "MEMORY"}, noema.ECONFLICT},
		{"empty label", concepts.CreateInput{Label: "  "}, noema.EINVALID},
		{"label with brackets", concepts.CreateInput{Label: "a]]b"}, noema.EINVALID},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := a.Concepts.Create(ctx, c.in)
			if code(err) != c.code {
				t.Fatalf("err = %v, want %s", err, c.code)
			}
			if c.code == noema.ECONFLICT && !strings.Contains(err.Error(), "concept \"") {
				t.Errorf("conflict does not name the owner: %v", err)
			}
		})
	}
	entries, _ := os.ReadDir(filepath.Join(a.Vault.Root, "concepts"))
	if len(entries) != 1 {
		t.Errorf("concept pages = %d, want 1: failed creates must write nothing", len(entries))
	}
}

func TestUpdateRenameAndMetadata(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	write(t, a, "N", "[[Grad Ckpt]] and [[grad ckpt]]")
	c, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "grad ckpt", Label: "Gradient Checkpointing", Metadata: map[string]any{"field": "ml", "year": 2016}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Label != "Gradient Checkpointing" || len(c.Aliases) != 1 || c.Aliases[0] != "Grad Ckpt" || c.Mentions != 2 {
		t.Fatalf("after rename: %+v", c)
	}
	pageBefore := noematest.ReadFile(t, a, c.Page)
	_, err = a.Concepts.Update(ctx, concepts.UpdateInput{Concept: c.ID, Metadata: map[string]any{"field": "systems", "year": 2016, "other": 1}})
	if code(err) != noema.EMETADATACONFLICT || !strings.Contains(err.Error(), "field") {
		t.Fatalf("conflicting metadata: %v", err)
	}
	if pageAfter := noematest.ReadFile(t, a, c.Page); pageAfter != pageBefore {
		t.Error("a metadata conflict wrote to the page")
	}
	c, err = a.Concepts.Update(ctx, concepts.UpdateInput{Concept: c.ID, Metadata: map[string]any{"other": 1}, MetadataRemove: []string{"year"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Metadata) != 2 || c.Metadata["field"] != "ml" || c.Metadata["year"] != nil {
		t.Errorf("metadata = %v", c.Metadata)
	}
	// The id survives a rebuild.
	if _, err := a.Sync(ctx, true, nil); err != nil {
		t.Fatal(err)
	}
	again, err := a.Concepts.Get(ctx, "Grad Ckpt")
	if err != nil || again.ID != c.ID {
		t.Errorf("after reindex: %+v, %v; want id %s", again, err, c.ID)
	}
}

func TestReindexKeepsIDs(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	write(t, a, "A", "[[Alpha]] [[Beta]] [[Gamma Ray]]")
	if _, err := a.Concepts.Create(ctx, concepts.CreateInput{Label: "Delta", Aliases: []string{"Δ"}}); err != nil {
		t.Fatal(err)
	}
	// Rename so the page's id no longer derives from its label.
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Delta", Label: "Delta Function"}); err != nil {
		t.Fatal(err)
	}
	before, _ := a.Concepts.List(ctx, concepts.ListInput{Limit: 500})
	if err := os.RemoveAll(filepath.Join(a.Vault.Root, ".noema", "index.db")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Sync(ctx, true, nil); err != nil {
		t.Fatal(err)
	}
	after, _ := a.Concepts.List(ctx, concepts.ListInput{Limit: 500})
	ids := func(r *concepts.ListResult) string {
		var s []string
		for _, c := range r.Concepts {
			s = append(s, c.ID+"="+c.Label)
		}
		return strings.Join(s, ",")
	}
	if ids(before) != ids(after) || before.Total != 4 {
		t.Errorf("ids changed across reindex:\n%s\n%s", ids(before), ids(after))
	}
}

func TestFindConcepts(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	write(t, a, "A", "[[Gradient Checkpointing]] [[Gradient Descent]] [[Activation Checkpointing]] [[Zebra]]")
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Zebra", AddAliases: []string{"gradient check-pointing"}}); err != nil {
		t.Fatal(err)
	}
	res, err := a.Concepts.Find(ctx, concepts.FindInput{Query: "gradient check pointing"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 4 || len(res.Candidates) != 4 {
		t.Fatalf("find = %+v, want all 4 concepts (recall first)", res)
	}
	top := res.Candidates[0]
	if top.Label != "Zebra" || !top.IsAlias || top.Matched != "gradient check-pointing" || top.Score != 100 {
		t.Errorf("top = %+v, want Zebra via its alias at 100", top)
	}
	if res.Candidates[1].Label != "Gradient Checkpointing" {
		t.Errorf("second = %+v", res.Candidates[1])
	}
	for i := 1; i < len(res.Candidates); i++ {
		if res.Candidates[i].Score > res.Candidates[i-1].Score {
			t.Errorf("not sorted: %+v", res.Candidates)
		}
	}
	res, _ = a.Concepts.Find(ctx, concepts.FindInput{Query: "gradient", MinScore: 80, Limit: 1})
	if len(res.Candidates) != 1 {
		t.Errorf("limit/min_score: %+v", res)
	}
	if _, err := a.Concepts.Find(ctx, concepts.FindInput{Query: " "}); code(err) != noema.EINVALID {
		t.Errorf("empty query: %v", err)
	}
	// The cache follows changes to the registry.
	write(t, a, "B", "[[Gradient Checkpoint]]")
	res, _ = a.Concepts.Find(ctx, concepts.FindInput{Query: "gradient checkpoint"})
	if res.Total != 5 || res.Candidates[0].Label != "Gradient Checkpoint" {
		t.Errorf("after a new concept: %+v", res.Candidates[0])
	}
}

func TestListConcepts(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	write(t, a, "A", "[[Alpha Beta]] [[Beta_Gamma]] [[Delta]]")
	for _, c := range []struct {
		text, match string
		want        int
	}{
		{"", "", 3}, {"BETA", "contains", 2}, {"beta", "starts_with", 1}, {"gamma", "ends_with", 1}, {"beta gamma", "", 1},
	} {
		res, err := a.Concepts.List(ctx, concepts.ListInput{Text: c.text, Match: c.match})
		if err != nil || res.Total != c.want {
			t.Errorf("list %q %s = %+v %v, want %d", c.text, c.match, res, err, c.want)
		}
	}
	if _, err := a.Concepts.List(ctx, concepts.ListInput{Text: "x", Match: "regex"}); code(err) != noema.EINVALID {
		t.Errorf("bad match: %v", err)
	}
	res, _ := a.Concepts.List(ctx, concepts.ListInput{Limit: 2})
	if !res.HasMore || len(res.Concepts) != 2 {
		t.Errorf("paging: %+v", res)
	}
}

func TestDeleteConcept(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	if _, err := a.Concepts.Create(ctx, concepts.CreateInput{Label: "Garbage Collection", Aliases: []string{"GC"}}); err != nil {
		t.Fatal(err)
	}
	write(t, a, "Uses", "The [[GC|collector]] and [[Garbage Collection#Pauses]] and ![[gc]].\n`[[GC]]` stays.")
	if _, err := a.Concepts.Delete(ctx, concepts.DeleteInput{Concept: "gc"}); code(err) != noema.ECONFLICT {
		t.Fatalf("delete while linked: %v", err)
	}
	res, err := a.Concepts.Delete(ctx, concepts.DeleteInput{Concept: "gc", Unlink: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unlinked) != 1 || res.PageDeleted == "" {
		t.Errorf("delete = %+v", res)
	}
	n, _ := a.Notes.Read(ctx, "uses")
	if !strings.Contains(n.Content, "The collector and Garbage Collection and gc.\n`[[GC]]` stays.") {
		t.Errorf("unlinked content = %q", n.Content)
	}
	if _, err := a.Concepts.Get(ctx, "gc"); code(err) != noema.ENOTFOUND {
		t.Errorf("concept still there: %v", err)
	}
}

// concepts.ignore: matching links stay in the text, never become concepts,
// and a write that makes one warns.
func TestIgnoreList(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Concepts.Ignore = []string{"todo", "*.cs", "daily/*"}
	a := noematest.OpenApp(t, "", app.Options{Config: &cfg})
	res := noematest.WriteNote(t, a, notes.WriteInput{Title: "Plan", Content: "[[TODO]] fix [[GraphTools.cs]] from [[daily/2026-11-30]] about [[Raft]]"})
	for _, name := range []string{"todo", "GraphTools.cs", "daily/2026-11-30"} {
		if _, err := a.Concepts.Get(ctx, name); code(err) != noema.ENOTFOUND {
			t.Errorf("%s is a concept: %v", name, err)
		}
	}
	if _, err := a.Concepts.Get(ctx, "Raft"); err != nil {
		t.Errorf("Raft: %v", err)
	}
	if data := noematest.ReadFile(t, a, res.Path); !strings.Contains(data, "[[TODO]] fix [[GraphTools.cs]]") {
		t.Errorf("the links must stay in the text: %q", data)
	}
	_, warnings := a.Concepts.Feedback(ctx, res.Path, map[string]bool{}, nil)
	if len(warnings) != 3 || !strings.Contains(strings.Join(warnings, "\n"), `"*.cs"`) {
		t.Errorf("warnings = %q", warnings)
	}
	// A reindex keeps them out too.
	if _, err := a.Sync(ctx, true, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Concepts.Get(ctx, "todo"); code(err) != noema.ENOTFOUND {
		t.Errorf("after reindex, todo: %v", err)
	}
}

// Changing the list applies at the next sync to notes that did not change.
func TestIgnoreListChanged(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	a := noematest.OpenApp(t, dir, app.Options{})
	write(t, a, "Plan", "[[TODO]] about [[Raft]]")
	if _, err := a.Concepts.Get(ctx, "todo"); err != nil {
		t.Fatalf("before: %v", err)
	}
	a.Close()
	cfg := config.Default()
	cfg.Concepts.Ignore = []string{"todo"}
	b := noematest.OpenApp(t, dir, app.Options{Config: &cfg})
	if _, err := b.Sync(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Concepts.Get(ctx, "todo"); code(err) != noema.ENOTFOUND {
		t.Errorf("after the list changed: %v", err)
	}
	if _, err := b.Concepts.Get(ctx, "Raft"); err != nil {
		t.Errorf("Raft: %v", err)
	}
}

// TestPageNotDuplicatedWhenNotIndexed: a concept whose page exists on disk
// but is missing from the index (a rebuild in progress, another process
// not caught up) gets that page updated, not a second page concepts/x-2.md.
func TestPageNotDuplicatedWhenNotIndexed(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	write(t, a, "Seed", "About [[Hub]].")
	desc := "first"
	c, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Hub", Description: &desc})
	if err != nil {
		t.Fatal(err)
	}
	// Drop the page from the index only.
	if err := a.DB.Write(ctx, func(tx *sqlite.Tx) error {
		if err := sqlite.DeleteNote(tx, "concepts/Hub.md"); err != nil {
			return err
		}
		_, err := sqlite.RecomputeConcepts(tx, vault.Key)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	desc = "second"
	c2, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Hub", Description: &desc})
	if err != nil {
		t.Fatal(err)
	}
	if c2.ID != c.ID || c2.Page != "memory://concepts/Hub" {
		t.Errorf("updated concept = %s page %s, want %s page memory://concepts/Hub", c2.ID, c2.Page, c.ID)
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, "concepts", "Hub 2.md")); err == nil {
		t.Error("a second page concepts/Hub 2.md was written")
	}
}

// TestRenameRewritesThePageItself: a concept rename rewrites the links of
// every note, the renamed page's own body included, and links to the page
// by path follow the renamed page file.
func TestRenameRewritesThePageItself(t *testing.T) {
	ctx := context.Background()
	a := noematest.AppWith(t, map[string]string{
		"concepts/Kafka.md": "---\ntitle: Kafka\nconcept: Kafka\n---\n[[Kafka]] is a log; see [[Kafka#Topics]] and [[Zookeeper]].\n",
		"Uses.md":           "[[Kafka]], [[concepts/Kafka]] and [[concepts/Kafka.md|the page]].\n",
	})
	c, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Kafka", Label: "Apache Kafka"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Page != "memory://concepts/Apache Kafka" {
		t.Fatalf("page = %q", c.Page)
	}
	page := noematest.ReadFile(t, a, c.Page)
	if want := "[[Apache Kafka|Kafka]] is a log; see [[Apache Kafka#Topics]] and [[Zookeeper]].\n"; !strings.HasSuffix(page, "---\n"+want) {
		t.Errorf("page =\n%s\nwant its body\n%s", page, want)
	}
	uses := noematest.ReadFile(t, a, "Uses.md")
	if want := "[[Apache Kafka|Kafka]], [[concepts/Apache Kafka]] and [[concepts/Apache Kafka|the page]].\n"; uses != want {
		t.Errorf("Uses.md = %q, want %q", uses, want)
	}
}

// TestRenameSlugNamedPage: renaming a concept whose page has the name an
// older noema gave it (the slug of the label) renames the file too, so that
// the rewritten links ([[New|old]]) open it in Obsidian.
func TestRenameSlugNamedPage(t *testing.T) {
	ctx := context.Background()
	a := noematest.AppWith(t, map[string]string{
		"ml/onyx-quartz.md": "---\ntitle: Onyx Quartz\n---\nA page.\n",
		"Uses.md":           "[[onyx-quartz]] and [[Onyx Quartz]].\n",
	})
	c, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Onyx Quartz", Label: "Basalt Vortex"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Page != "memory://ml/Basalt Vortex" {
		t.Errorf("page = %q, want memory://ml/Basalt Vortex", c.Page)
	}
	if got, want := noematest.ReadFile(t, a, "Uses.md"), "[[Basalt Vortex|onyx-quartz]] and [[Basalt Vortex|Onyx Quartz]].\n"; got != want {
		t.Errorf("Uses.md = %q, want %q", got, want)
	}
}

// TestFindAfterWritesWithoutReload checks issue 21's "no rebuild of the
// duplicate index for one new concept": after concepts are added, renamed
// and given aliases, find_concepts reads only the changed concepts (the
// names loaded in full stay the same) and answers exactly what a service
// reading every name afresh answers, second channel included; a deleted
// concept makes it read every name again.
func TestFindAfterWritesWithoutReload(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	for i := range 40 {
		write(t, a, fmt.Sprintf("N%d", i), fmt.Sprintf("[[Gradient Check %d]] [[Topic %c%c]] [[Config]]", i, 'a'+i%26, 'a'+i/26))
	}
	queries := []string{"gradient check 7", "configuration", "topic ab", "gradient checkpointing", "grad chk", "Kubernetes"}
	find := func(s *concepts.Service, q string) *concepts.FindResult {
		t.Helper()
		res, err := s.Find(ctx, concepts.FindInput{Query: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	find(a.Concepts, "warm")
	base := a.Concepts.NamesBase()
	write(t, a, "New 1", "[[Gradient Checkpointing]] [[Kubernetes]] [[Configuration]]")
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Topic ab", AddAliases: []string{"k8s"}}); err != nil {
		t.Fatal(err)
	}
	write(t, a, "New 2", "[[grad chk]] [[Topic Aa]]")
	for _, q := range queries {
		got := find(a.Concepts, q)
		fresh := concepts.New(a.Vault, a.DB.Concepts(), a.Indexer)
		want := find(fresh, q)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("find %q after writes:\n got %+v\nwant %+v", q, got, want)
		}
	}
	if a.Concepts.NamesBase() != base {
		t.Error("find_concepts read every name again after concepts were added (want only the changed ones)")
	}
	if _, err := a.Notes.Delete(ctx, "New 2", true); err != nil {
		t.Fatal(err)
	}
	got := find(a.Concepts, "grad chk")
	if want := find(concepts.New(a.Vault, a.DB.Concepts(), a.Indexer), "grad chk"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("find after a deletion:\n got %+v\nwant %+v", got, want)
	}
	if a.Concepts.NamesBase() == base {
		t.Error("a deleted concept did not reload the names")
	}
}

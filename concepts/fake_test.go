package concepts_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/testkit"
	"github.com/noema-mem/noema/vault"
)

var _ noema.ConceptIndex = (*testkit.Concepts)(nil)

// fakeConcepts is a registry on the in-memory index: Garbage Collection
// (alias GC) linked three times from two notes, Go linked once, and
// "100% coverage", whose key holds a LIKE wildcard. Each is a day newer
// than the one before.
func fakeConcepts() (*concepts.Service, *testkit.Concepts) {
	ix := testkit.NewConcepts(vault.Key)
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ix.Put(noema.Concept{ID: "c_gc", Label: "Garbage Collection", Aliases: []string{"GC"}, Page: "memory://concepts/Garbage Collection", CreatedAt: day})
	ix.Put(noema.Concept{ID: "c_go", Label: "Go", CreatedAt: day.AddDate(0, 0, 1)})
	ix.Put(noema.Concept{ID: "c_cov", Label: "100% coverage", CreatedAt: day.AddDate(0, 0, 2)})
	ix.Put(noema.Concept{ID: "c_1000", Label: "1000 coverage", CreatedAt: day.AddDate(0, 0, 3)})
	ix.Link("notes/runtime.md", "GC", 1)
	ix.Link("notes/runtime.md", "garbage-collection", 1)
	ix.Link("notes/go.md", "Garbage_Collection", 1)
	ix.Link("notes/go.md", "Go", 1)
	return &concepts.Service{DB: ix, Now: time.Now}, ix
}

func TestGetOnFake(t *testing.T) {
	ctx := context.Background()
	s, _ := fakeConcepts()
	for _, ref := range []string{"c_gc", "garbage collection", " Garbage_Collection ", "gc"} {
		c, err := s.Get(ctx, ref)
		if err != nil {
			t.Fatalf("Get(%q): %v", ref, err)
		}
		if c.ID != "c_gc" || c.Mentions != 3 {
			t.Errorf("Get(%q) = %s with %d mentions, want c_gc with 3 (every spelling, both notes)", ref, c.ID, c.Mentions)
		}
	}
	if _, err := s.Get(ctx, "Rust"); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Errorf("Get(Rust): %v, want not_found", err)
	}
	if _, err := s.Get(ctx, "  "); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("Get(blank): %v, want invalid_argument", err)
	}
}

// TestFindOnFake checks find_concepts' ranking and its names cache: a
// concept added or renamed after the first call is found by the next one
// (the delta of the cached names), the old name no longer is.
func TestFindOnFake(t *testing.T) {
	ctx := context.Background()
	s, ix := fakeConcepts()
	find := func(q string) []concepts.Candidate {
		t.Helper()
		res, err := s.Find(ctx, concepts.FindInput{Query: q, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		return res.Candidates
	}
	got := find("garbage colection")
	if len(got) == 0 || got[0].ID != "c_gc" || got[0].Matched != "Garbage Collection" || got[0].IsAlias || got[0].Mentions != 3 {
		t.Fatalf("find(garbage colection) = %+v, want Garbage Collection first, by its label, with 3 mentions", got)
	}
	if got := find("GC"); got[0].ID != "c_gc" || !got[0].IsAlias || got[0].Score != 100 {
		t.Errorf("find(GC) = %+v, want c_gc matched exactly by its alias", got[0])
	}

	ix.Put(noema.Concept{ID: "c_rust", Label: "Rust"})
	if got := find("rust"); got[0].ID != "c_rust" || got[0].Score != 100 {
		t.Errorf("after adding Rust, find(rust) = %+v, want c_rust at 100", got[0])
	}
	ix.Put(noema.Concept{ID: "c_go", Label: "Golang"})
	got = find("golang")
	if got[0].ID != "c_go" || got[0].Label != "Golang" {
		t.Errorf("after renaming Go, find(golang) = %+v, want c_go as Golang", got[0])
	}
	for _, c := range find("go") {
		if c.Matched == "Go" {
			t.Errorf("find(go) still matches the old name: %+v", c)
		}
	}
}

func TestListOnFake(t *testing.T) {
	ctx := context.Background()
	s, _ := fakeConcepts()
	list := func(in concepts.ListInput) ([]string, *concepts.ListResult) {
		t.Helper()
		res, err := s.List(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range res.Concepts {
			ids = append(ids, c.ID)
		}
		return ids, res
	}
	if ids, res := list(concepts.ListInput{Limit: 2}); !slices.Equal(ids, []string{"c_1000", "c_cov"}) || res.Total != 4 || !res.HasMore {
		t.Errorf("first page of 2 = %q (total %d, more %v), want the two newest of 4", ids, res.Total, res.HasMore)
	}
	if ids, res := list(concepts.ListInput{Offset: 2, Limit: 2}); !slices.Equal(ids, []string{"c_go", "c_gc"}) || res.HasMore {
		t.Errorf("second page = %q (more %v), want the two oldest, no more", ids, res.HasMore)
	}
	// The text is matched literally against every key: % is no wildcard.
	if ids, _ := list(concepts.ListInput{Text: "100%"}); !slices.Equal(ids, []string{"c_cov"}) {
		t.Errorf("text 100%% = %q, want only 100%% coverage", ids)
	}
	if ids, _ := list(concepts.ListInput{Text: "g", Match: "starts_with"}); !slices.Equal(ids, []string{"c_go", "c_gc"}) {
		t.Errorf("starts_with g = %q, want Go and Garbage Collection (by its label's key and its alias gc)", ids)
	}
	if ids, _ := list(concepts.ListInput{Text: "COVERAGE", Match: "ends_with"}); !slices.Equal(ids, []string{"c_1000", "c_cov"}) {
		t.Errorf("ends_with COVERAGE = %q, want both coverage concepts", ids)
	}
	if _, err := s.List(ctx, concepts.ListInput{Text: "x", Match: "near"}); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("match near: %v, want invalid_argument", err)
	}
}

// TestCreateUpdateOnFake curates concepts through the fake: pages are
// written to a temp vault and indexed back into the fake registry, whose
// keys then refuse a clash and resolve the new names.
// fakeCurated is a concepts service over a temp vault and the fake
// registry, whose files are indexed back into the fake when written.
func fakeCurated(t *testing.T) (*concepts.Service, *vault.Vault, *testkit.ConceptSync) {
	t.Helper()
	v, err := vault.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ix := testkit.NewConcepts(vault.Key)
	syncer := ix.Sync(func(path string) (testkit.ConceptFile, bool, error) {
		n, _, _, err := v.ReadNote(path)
		if noema.ErrorCode(err) == noema.ENOTFOUND {
			return testkit.ConceptFile{}, false, nil
		}
		if err != nil {
			return testkit.ConceptFile{}, false, err
		}
		cf := testkit.ConceptFile{Links: map[string]int{}}
		for _, l := range n.Links {
			cf.Links[l.Target]++
		}
		if n.Concept != "" {
			id, _ := n.FrontMatter.Get("id")
			desc, _ := n.FrontMatter.Get("description")
			c := &noema.Concept{ID: fmt.Sprint(id), Label: n.Concept, Aliases: n.Aliases}
			if d, ok := desc.(string); ok {
				c.Description = d
			}
			cf.Concept = c
		}
		return cf, true, nil
	})
	return &concepts.Service{Vault: v, DB: ix, Sync: syncer, Now: time.Now}, v, syncer
}

func TestCreateUpdateOnFake(t *testing.T) {
	ctx := context.Background()
	s, _, _ := fakeCurated(t)

	c, err := s.Create(ctx, concepts.CreateInput{Label: "Garbage Collection", Aliases: []string{"GC"}, Description: "automatic memory management"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Page != "memory://concepts/Garbage Collection" || !slices.Equal(c.Aliases, []string{"GC"}) || c.Description != "automatic memory management" {
		t.Errorf("created %+v, want its page under concepts/ with the alias and description", c)
	}
	_, err = s.Create(ctx, concepts.CreateInput{Label: "gc"})
	if noema.ErrorCode(err) != noema.ECONFLICT || !strings.Contains(noema.ErrorMessage(err), c.ID) {
		t.Errorf("creating gc: %v, want a conflict naming %s", err, c.ID)
	}
	if _, err := s.Update(ctx, concepts.UpdateInput{Concept: "gc", AddAliases: []string{"Garbage Collector"}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "garbage-collector")
	if err != nil || got.ID != c.ID {
		t.Fatalf("Get(garbage-collector) after adding the alias = %+v, %v; want %s", got, err, c.ID)
	}
	res, err := s.Find(ctx, concepts.FindInput{Query: "garbage collecter", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 1 || res.Candidates[0].ID != c.ID || res.Candidates[0].Matched != "Garbage Collector" {
		t.Errorf("find(garbage collecter) = %+v, want the concept by its new alias", res.Candidates)
	}
}

// TestMergeOnFake merges a concept into another through the fake: the
// dry run changes nothing; the merge rewrites the note's link, deletes the
// source's page and makes its name an alias of the target, as the index
// then shows.
func TestMergeOnFake(t *testing.T) {
	ctx := context.Background()
	s, v, syncer := fakeCurated(t)
	target, err := s.Create(ctx, concepts.CreateInput{Label: "Garbage Collection"})
	if err != nil {
		t.Fatal(err)
	}
	source, err := s.Create(ctx, concepts.CreateInput{Label: "Garbage Collector", Aliases: []string{"collector"}})
	if err != nil {
		t.Fatal(err)
	}
	err = v.Locked(ctx, func(w *vault.Writer) error {
		return w.WriteFile("notes/a.md", []byte("Tune the [[Garbage Collector]].\n"), false)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := syncer.SyncFiles(ctx, []string{"notes/a.md"}, ""); err != nil {
		t.Fatal(err)
	}

	in := concepts.MergeInput{Sources: []string{"collector"}, Target: "garbage collection"}
	dry, err := s.Merge(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !dry.DryRun || len(dry.Changes) == 0 || !slices.Equal(dry.PagesDeleted, []string{"memory://concepts/Garbage Collector"}) {
		t.Errorf("dry run = %+v, want the changes and the page to delete listed", dry)
	}
	if c, _ := s.Get(ctx, "collector"); c == nil || c.ID != source.ID {
		t.Fatalf("after the dry run, collector = %+v, want the source still", c)
	}

	in.DryRun = new(bool)
	res, err := s.Merge(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.DryRun || !slices.Equal(res.AliasesAdded, []string{"Garbage Collector", "collector"}) {
		t.Errorf("merge = %+v, want the source's names added as aliases", res)
	}
	for _, name := range []string{"Garbage Collector", "collector"} {
		if c, err := s.Get(ctx, name); err != nil || c.ID != target.ID {
			t.Errorf("after the merge, %s = %+v, %v; want the target", name, c, err)
		}
	}
	content, _, err := v.ReadFile("notes/a.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(content), "[[Garbage Collection|Garbage Collector]]") {
		t.Errorf("notes/a.md after the merge: %q, want its link retargeted, reading the same", content)
	}
	if c, _ := s.Get(ctx, target.ID); c.Mentions != 1 {
		t.Errorf("the target has %d mentions after the merge, want the note's 1", c.Mentions)
	}
	if again, err := s.Merge(ctx, in); err != nil || !strings.Contains(again.Message, "nothing to merge") {
		t.Errorf("merging again = %+v, %v; want nothing to merge", again, err)
	}
}

package recall_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/internal/testkit"
	"github.com/noema-mem/noema/recall"
	"github.com/noema-mem/noema/vault"
)

// fakeFruit is fruitVault on the in-memory indexes: the same notes, ages,
// links and relations, with the concepts resolved by a concepts.Service
// over a fake registry. It returns the service, the graph it reads and
// the concepts.
func fakeFruit() (*recall.Service, *testkit.Graph, *concepts.Service) {
	g := testkit.NewGraph()
	reg := testkit.NewConcepts(vault.Key)
	concept := func(label, page string, aliases ...string) {
		id := "c_" + strings.ToLower(label)
		g.AddConcept(id, label, page, aliases...)
		c := noema.Concept{ID: id, Label: label, Aliases: aliases}
		if page != "" {
			c.Page = noema.NoteURI(page)
		}
		if label == "Apple" {
			c.Description = "A pome fruit."
		}
		reg.Put(c)
	}
	concept("Apple", "concepts/Apple.md", "Malus")
	concept("Fruit", "concepts/Fruit.md")
	concept("Banana", "concepts/Banana.md")
	for _, l := range []string{"Apricot", "Cherry", "Date", "Elder", "Fig", "Grape"} {
		concept(l, "")
	}
	note := func(title string, age int, body string, links ...string) {
		path := title + ".md"
		g.AddNote(path, title)
		g.NoteActivity(path, now.AddDate(0, 0, -age), time.Time{}, body)
		for pos, l := range links {
			g.Mention(path, "c_"+strings.ToLower(l), 1, pos)
			reg.Link(path, l, 1)
		}
	}
	note("One", 0, "Fresh [[Apple]] with [[Apricot]].\n\nAlso [[Banana]] and [[Cherry]].\n", "Apple", "Apricot", "Banana", "Cherry")
	note("Two", 44, "[[Apple]] and [[Banana]].\n", "Apple", "Banana")
	note("Three", 74, "[[Apple]] beside [[Date]].\n", "Apple", "Date")
	note("Four", 1, "[[Banana]] then [[Elder]].\n", "Banana", "Elder")
	note("Five", 104, "[[Date]], [[Fig]] and [[Elder]].\n", "Date", "Fig", "Elder")
	note("Six", 2, "[[Fig]] with [[Grape]].\n", "Fig", "Grape")
	note("Seven", 3, "[[Malus]] is [[apple]]; so is not [[Banana]].\n", "Apple", "Banana")
	g.Mention("Seven.md", "c_apple", 1, 0) // [[apple]]: a second link, at the first's place
	g.Relate("r_isa", noema.NoteURI("concepts/Apple.md"), "is_a", "c_fruit", nil)
	g.Relate("r_grows", noema.NoteURI("concepts/Banana.md"), "grows_with", "concept:malus", nil)

	cs := &concepts.Service{DB: reg, Now: func() time.Time { return now }}
	s := recall.New(g.Mentions(), cs, decay.DefaultConfig())
	s.Now = func() time.Time { return now }
	return s, g, cs
}

// TestBuildContextOnFake is build_context over a fake mention index: the
// same related concepts, relations and notes as over SQLite.
func TestBuildContextOnFake(t *testing.T) {
	s, _, cs := fakeFruit()
	res := build(t, s, recall.Input{Concept: "malus", Depth: 2})
	if c := res.Concept; c.ID != "c_apple" || c.Description != "A pome fruit." || c.Page != "memory://concepts/Apple" {
		t.Errorf("concept = %+v", c)
	}
	checkRelated(t, cs, res.Related, slices.Concat(distance1, distance2))
	want := []recall.Relation{
		{ID: "r_isa", Type: "is_a", Direction: "out", Other: "c_fruit", OtherLabel: "Fruit"},
		{ID: "r_grows", Type: "grows_with", Direction: "in", Other: "c_banana", OtherLabel: "Banana"},
	}
	if !slices.Equal(res.Relations, want) {
		t.Errorf("relations = %+v, want %+v", res.Relations, want)
	}
	var titles []string
	for _, n := range res.Notes {
		titles = append(titles, n.Title)
	}
	if strings.Join(titles, ",") != "One,Seven,Two,Three" {
		t.Errorf("notes = %v, want One,Seven,Two,Three (freshest first)", titles)
	}

	res = build(t, s, recall.Input{Concept: "Fig", Depth: 0, MaxEntities: 1, IncludeContent: true})
	if len(res.Notes) != 1 || res.Notes[0].Title != "Six" || !strings.Contains(res.Notes[0].Excerpt, "[[Fig]] with [[Grape]]") {
		t.Errorf("Fig's freshest note = %+v, want Six with its paragraph", res.Notes)
	}
	if len(res.Warnings) == 0 {
		t.Errorf("Fig's notes cut to 1 of 2 without a warning")
	}
}

// TestBuildContextKeepsGraphOnFake checks that build_context reads the
// mention graph once while the index does not change, and sees a change
// on the next call.
func TestBuildContextKeepsGraphOnFake(t *testing.T) {
	s, g, _ := fakeFruit()
	mentions := s.Index.(*testkit.Mentions)
	build(t, s, recall.Input{Concept: "Grape", Depth: 1})
	build(t, s, recall.Input{Concept: "Grape", Depth: 1})
	if n := mentions.Builds(); n != 1 {
		t.Errorf("two calls on an unchanged index built %d graphs, want 1", n)
	}
	g.AddNote("Eight.md", "Eight")
	g.NoteActivity("Eight.md", now, time.Time{}, "[[Grape]] and [[Cherry]].")
	g.Mention("Eight.md", "c_grape", 1, 0)
	g.Mention("Eight.md", "c_cherry", 1, 1)
	res := build(t, s, recall.Input{Concept: "Grape", Depth: 1})
	if len(res.Notes) != 2 || res.Notes[0].Title != "Eight" || mentions.Builds() != 2 {
		t.Errorf("after a new note: notes %+v after %d builds, want Eight first of 2 after 2", res.Notes, mentions.Builds())
	}
	if !slices.ContainsFunc(res.Related, func(r recall.Related) bool { return r.Label == "Cherry" }) {
		t.Errorf("related after a new note = %+v, want Cherry among them", res.Related)
	}
}

func TestUnknownConceptOnFake(t *testing.T) {
	s, _, _ := fakeFruit()
	_, err := s.BuildContext(context.Background(), recall.Input{Concept: "Banan"})
	if noema.ErrorCode(err) != noema.ENOTFOUND || !strings.Contains(noema.ErrorMessage(err), `"Banana" (c_banana`) {
		t.Errorf("Banan: %v, want not_found naming Banana as the closest", err)
	}
}

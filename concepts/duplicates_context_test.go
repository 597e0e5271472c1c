package concepts_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/noematest"
)

// TestDuplicatesContext: the concepts linked beside two names decide what
// spelling alone cannot. "PM" has two expansions in the vault, both
// written about some of the same things; the one with more in common is
// proposed, the other is not. "Arcadia,
// California" is written about other things than "Arcadia": no group, and
// a do_not_merge saying why. "Paris, Texas" is told from "Paris" by its
// name alone: the gazetteer puts Paris in France (round 6).
func TestDuplicatesContext(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	write(t, a, "Standup", "The [[PM]] moved the [[sprint]] review; the [[roadmap]] and the [[backlog]] wait.")
	write(t, a, "Planning", "[[PM]] owns the [[roadmap]]; [[stakeholder]] sign-off before the [[sprint]].")
	write(t, a, "Hiring", "We hire a [[project manager]] to run the [[sprint]] and keep the [[backlog]] and [[roadmap]].")
	write(t, a, "Team", "The [[project manager]] talks to each [[stakeholder]] about the [[roadmap]].")
	write(t, a, "Politics", "The [[prime minister]] faces [[parliament]] before the [[election]]; the [[cabinet]] meets.")
	write(t, a, "Politics 2", "The [[prime minister]] set a [[roadmap]] for each [[stakeholder]].")
	write(t, a, "Travel", "[[Paris]]: the [[Louvre]], the [[Seine]], [[Montmartre]] and [[France]]'s food.")
	write(t, a, "Road trip", "[[Paris, Texas]] is in [[Lamar County]], near [[Oklahoma]]; the [[Texas]] heat.")
	write(t, a, "Myths", "[[Arcadia]]: the [[Peloponnese]], [[Pan]], the [[shepherds]] of [[Greece]].")
	write(t, a, "Suburbs", "[[Arcadia, California]] is in [[Los Angeles County]], near [[Pasadena]]; the [[Santa Anita Park]] races.")
	write(t, a, "Deploy", "Each [[env]] has its [[secrets]], its [[config file]] and a [[staging]] copy.")
	write(t, a, "Setup", "A new [[environment]] needs [[secrets]] and a [[config file]]; [[staging]] first.")
	write(t, a, "Mail", "An [[envelope]], a [[stamp]], the [[post office]].")

	res, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, a.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	grouped := map[string]concepts.DupGroup{}
	for _, g := range res.Groups {
		var names []string
		for _, m := range g.Members {
			names = append(names, m.Label)
		}
		slices.Sort(names)
		grouped[strings.Join(names, " | ")] = g
	}
	g, ok := grouped["PM | project manager"]
	if !ok {
		t.Fatalf("no group PM | project manager; groups: %v", keys(grouped))
	}
	if !slices.Contains(g.Pairs[0].Evidence, "shared_context") || !slices.Contains(g.Pairs[0].Evidence, "acronym") {
		t.Errorf("PM | project manager evidence %v; want acronym and shared_context", g.Pairs[0].Evidence)
	}
	g, ok = grouped["env | environment"]
	if !ok {
		t.Fatalf("no group env | environment; groups: %v", keys(grouped))
	}
	if !slices.Contains(g.Pairs[0].Evidence, "shared_context") {
		t.Errorf("env | environment evidence %v; want shared_context", g.Pairs[0].Evidence)
	}
	for k := range grouped {
		if strings.Contains(k, "prime minister") || strings.Contains(k, "Paris") || strings.Contains(k, "Arcadia") || strings.Contains(k, "envelope") {
			t.Errorf("group %q: two concepts linked beside different things", k)
		}
	}
	if !slices.ContainsFunc(res.DoNotMerge, func(d concepts.DoNotMerge) bool {
		pair := d.A.Label + "|" + d.B.Label
		return (pair == "Arcadia|Arcadia, California" || pair == "Arcadia, California|Arcadia") && strings.HasPrefix(d.Reason, "distinct_contexts")
	}) {
		t.Errorf("no do_not_merge Arcadia / Arcadia, California (distinct_contexts): %+v", res.DoNotMerge)
	}
	if !slices.ContainsFunc(res.DoNotMerge, func(d concepts.DoNotMerge) bool {
		pair := d.A.Label + "|" + d.B.Label
		return (pair == "Paris|Paris, Texas" || pair == "Paris, Texas|Paris") && strings.HasPrefix(d.Reason, "qualified_other_place")
	}) {
		t.Errorf("no do_not_merge Paris / Paris, Texas (qualified_other_place): %+v", res.DoNotMerge)
	}

	// One concept's group finds the same.
	one, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{Concept: "PM"}, a.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Groups) != 1 || len(one.Groups[0].Members) != 2 {
		t.Fatalf("concept PM: %+v", one.Groups)
	}

	// Alone in notes of their own, PM is an acronym of two concepts and
	// left alone, env a three-letter clip (as often a word of its own);
	// Arcadia, California is a qualifier worth a review, Paris, Texas
	// another place.
	b := noematest.App(t)
	for _, n := range []string{"PM", "project manager", "prime minister", "Paris", "Paris, Texas", "Arcadia", "Arcadia, California", "env", "environment"} {
		write(t, b, "about "+n, "[["+n+"]]")
	}
	res, err = b.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, b.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range res.Groups {
		var names []string
		for _, m := range g.Members {
			names = append(names, m.Label)
		}
		slices.Sort(names)
		got = append(got, strings.Join(names, " | "))
	}
	if !slices.Equal(got, []string{"Arcadia | Arcadia, California"}) {
		t.Errorf("without context: groups %v; want only Arcadia | Arcadia, California", got)
	}
}

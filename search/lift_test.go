package search_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema/search"
)

// TestConceptLift: a query naming a concept, by its label, an alias or
// one typo away, lifts the notes linking it (and its page) in hybrid mode,
// including one that spells it nowhere in its text; fulltext mode and a
// ConceptWeight of 0 do not; a name two typos away, or a real word one
// letter away from a name ("basic", Basil), names nothing.

func TestConceptLift(t *testing.T) {
	e := newEnv(t)
	e.note("", "Cluster upgrade", "", nil, "We moved the cluster to [[Kubernetes]] last spring; the upgrade took a week.")
	e.note("", "Pod limits", "", nil, "Set requests and limits on every pod, as [[k8s]] documents.")
	e.note("", "Deploy log", "", nil, "Rolled out the new scheduler to the [[Kubernetes]] cluster.")
	e.note("concepts", "Kubernetes", "", nil, "---\naliases: [k8s]\n---\nContainer orchestration.")
	// Notes that share the query's other words but link nothing.
	for _, title := range []string{"Cluster notes", "Cluster plans", "Orchestra rehearsal", "Cluster costs"} {
		e.note("", title, "", nil, "The cluster budget and the cluster plan for the quarter, the cluster again.")
	}
	e.note("", "Gardening", "", nil, "Notes about [[Tomatoes]] and [[Basil]].")
	e.note("", "Setup", "", nil, "The basic setup of a cluster.")
	e.embed()
	linking := []string{"Cluster upgrade", "Pod limits", "Deploy log", "Kubernetes"}
	top := func(res *search.Result) []string {
		got := titles(res)
		return got[:min(len(got), len(linking))]
	}
	for _, q := range []string{"kubernetes cluster", "k8s cluster", "kubernetse", "what about kuberentes"} {
		got := top(e.search(search.Input{Query: q, Decay: off()}))
		if s := slices.Clone(got); len(s) != len(linking) || !sameSet(s, linking) {
			t.Errorf("%q: top %v, want the notes linking Kubernetes and its page %v", q, got, linking)
		}
		ft := top(e.search(search.Input{Query: q, Mode: search.ModeFulltext, Decay: off()}))
		if sameSet(ft, linking) {
			t.Errorf("%q: fulltext %v already lifts the concept's notes: the test shows nothing", q, ft)
		}
	}
	// Off: with ConceptWeight 0 the alias query finds what full text finds.
	saved := e.svc.Tuning
	e.svc.Tuning.ConceptWeight = 0
	if got := top(e.search(search.Input{Query: "k8s cluster", Decay: off()})); sameSet(got, linking) {
		t.Errorf("ConceptWeight 0: %v still lifted", got)
	}
	e.svc.Tuning = saved
	// "Pod limits" spells Kubernetes nowhere: only the concept finds it.
	res := e.search(search.Input{Query: "kubernetes", Decay: off()})
	if !slices.Contains(titles(res), "Pod limits") {
		t.Errorf("kubernetes: %v, want Pod limits (links [[k8s]])", titles(res))
	}
	// Two typos, or a real word one letter from a name ("basic", Basil),
	// name nothing.
	for _, q := range []string{"kbuernetse cluster", "basic cluster"} {
		for _, title := range titles(e.search(search.Input{Query: q, Decay: off()})) {
			if title == "Pod limits" || title == "Gardening" {
				t.Errorf("%q: %s lifted", q, title)
			}
		}
	}
}

// TestPassageLift: a long chat note whose one turn holds the question's
// words together ranks above a short note holding them scattered, which
// plain BM25 ranks first (its length drowns the long one); with
// PassageWeight 0 the order is BM25's.
func TestPassageLift(t *testing.T) {
	e := newEnv(t)
	var long strings.Builder
	for i := range 14 {
		if i == 5 {
			long.WriteString("Ana: I adopted a beagle puppy from the shelter on Saturday.\n")
		}
		long.WriteString("Ben: The weather has been so strange lately, busy week at work.\n")
	}
	e.note("", "Long chat", "", nil, long.String())
	e.note("", "Short chat", "", nil, "Ana: The shelter was closed on Monday, so we went for a walk.\nBen: A puppy barked at me near the station this morning.\nAna: We adopted a new routine for the mornings at home.\nBen: My cousin owns a beagle and two old cats.\n")
	for i := range 6 {
		e.note("", "Filler "+string(rune('A'+i)), "", nil, "Ben: Nothing new here, the weather again.\n")
	}
	q := "who adopted a beagle puppy from the shelter"
	for _, mode := range []string{search.ModeFulltext, search.ModeHybrid} {
		if got := titles(e.search(search.Input{Query: q, Mode: mode, Decay: off()})); len(got) < 2 || got[0] != "Long chat" {
			t.Errorf("%s: %v, want Long chat first", mode, got)
		}
	}
	e.svc.Tuning.PassageWeight = 0
	if got := titles(e.search(search.Input{Query: q, Mode: search.ModeFulltext, Decay: off()})); len(got) < 2 || got[0] != "Short chat" {
		t.Errorf("PassageWeight 0: %v, want plain BM25's order (Short chat first): the test shows nothing", got)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestConceptLiftDoesNotWaitForWarmUp checks issue 21's "the first answer
// never waits": while a server's warm-up builds the concept names (here
// marked as being built), a hybrid search answers by full text with the
// ConceptsLoading warning instead of waiting; once they are built, it
// lifts the concept's notes.
func TestConceptLiftDoesNotWaitForWarmUp(t *testing.T) {
	e := newEnv(t)
	e.note("", "Pod limits", "", nil, "Set requests and limits on every pod, as [[k8s]] documents.")
	e.note("concepts", "Kubernetes", "", nil, "---\naliases: [k8s]\n---\nContainer orchestration.")
	e.note("", "Cluster notes", "", nil, "The cluster budget and the cluster plan for the quarter.")
	e.embed()
	search.SetNamesBuilding(e.svc, true)
	res := e.search(search.Input{Query: "kubernetes", Decay: off()})
	if slices.Contains(titles(res), "Pod limits") || !slices.Contains(res.Warnings, search.ConceptsLoading) {
		t.Errorf("while the names are built: %v, warnings %q; want no lift and the loading warning", titles(res), res.Warnings)
	}
	search.SetNamesBuilding(e.svc, false)
	res = e.search(search.Input{Query: "kubernetes", Decay: off()})
	if !slices.Contains(titles(res), "Pod limits") || slices.Contains(res.Warnings, search.ConceptsLoading) {
		t.Errorf("once built: %v, warnings %q; want Pod limits lifted, no loading warning", titles(res), res.Warnings)
	}
}

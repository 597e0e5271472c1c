package search_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/internal/testkit"
	"github.com/noema-mem/noema/search"
	"github.com/noema-mem/noema/vault"
)

// TestNamedShrink: a query naming a concept by an alias no note spells,
// asked of a meaning model's hybrid search, ranks the notes linking the
// concept (and its page) above notes the semantic list prefers for the
// query's other word; with NamedShrink 0 the list pulls them below (the
// test shows something); a question naming it in passing is answered as
// without the rule. TestCoverage has the share that sets the shrink.
func TestNamedShrink(t *testing.T) {
	ix := testkit.NewSearch(vault.Key)
	id := int64(0)
	add := func(title, body string, links ...string) {
		t.Helper()
		id++
		ix.AddNote(noema.SearchNote{ID: id, Path: title + ".md", Title: title, Modified: now.AddDate(0, 0, -1)}, nil, body, links...)
		vecs, err := testkit.Words{}.Embed(context.Background(), []string{title + "\n" + body})
		if err != nil {
			t.Fatal(err)
		}
		ix.SetChunks(id, testkit.Words{}, fmt.Sprint("h", id), noema.ChunkVector{Start: 0, End: len(body), Vec: vecs[0]})
	}
	add("Pod limits", "Set requests and limits on every pod, as the orchestrator documents.", "Kubernetes")
	add("Cluster upgrade", "We moved the cluster to Kubernetes last spring; notes follow.", "Kubernetes")
	add("Kubernetes", "Container orchestration.")
	add("Notes", "Notes: how I keep notes.")
	const meetings = 6
	for i := range meetings {
		add(fmt.Sprintf("Meeting %d", i), "Notes on the meeting, notes on the plan.")
	}
	ix.AddConcept("c_k8s", "Kubernetes", 3, "k8s")
	if noema.IsSpellingModel(testkit.Words{}) {
		t.Fatal("testkit.Words must be a meaning model for this test")
	}
	s := search.New(ix, testkit.Words{}, decay.DefaultConfig())
	s.Now = func() time.Time { return now }
	// A weight at which this list, left whole, pulls the linking notes
	// down (the default's 0.2 pulls less; the rule is the same).
	s.Tuning.SemanticWeight = 0.5
	linking := []string{"Pod limits", "Cluster upgrade", "Kubernetes"}
	// below counts the pairs (a linking note, a meeting note) ranked with
	// the meeting note first.
	below := func(q string) int {
		rank := map[string]int{}
		for i, title := range titles(run(t, s, search.Input{Query: q, Decay: off()})) {
			rank[title] = i + 1
		}
		n := 0
		for _, l := range linking {
			for i := range meetings {
				m := rank[fmt.Sprintf("Meeting %d", i)]
				if rank[l] == 0 || m > 0 && m < rank[l] {
					n++
				}
			}
		}
		return n
	}
	// "k8s" is spelled in no note: only the registry knows it names
	// Kubernetes.
	q := "notes on k8s"
	if n := below(q); n > 0 {
		t.Errorf("%q: %d meeting notes above a note linking Kubernetes: %v", q, n, titles(run(t, s, search.Input{Query: q, Decay: off()})))
	}
	s.Tuning.NamedShrink = 0
	if n := below(q); n == 0 {
		t.Errorf("NamedShrink 0: %q already ranks the linking notes above the meetings: the test shows nothing", q)
	}
	// A question naming the concept in passing (one content word of four,
	// under NamedShare) keeps the list's whole weight: the same answer as
	// without the rule.
	passing := "notes on the meeting plan for k8s"
	without := run(t, s, search.Input{Query: passing, Decay: off()})
	s.Tuning.NamedShrink = search.DefaultTuning.NamedShrink
	on := run(t, s, search.Input{Query: passing, Decay: off()})
	if len(on.Hits) != len(without.Hits) {
		t.Fatalf("%q: %d hits with the rule, %d without", passing, len(on.Hits), len(without.Hits))
	}
	for i := range on.Hits {
		if on.Hits[i].Title != without.Hits[i].Title || on.Hits[i].Score != without.Hits[i].Score {
			t.Errorf("%q: hit %d is %s %.4f with the rule, %s %.4f without", passing, i, on.Hits[i].Title, on.Hits[i].Score, without.Hits[i].Title, without.Hits[i].Score)
		}
	}
	// It does name the concept: applied from any share, the rule changes
	// its scores.
	s.Tuning.NamedShare = 0
	always := run(t, s, search.Input{Query: passing, Decay: off()})
	if slices.EqualFunc(always.Hits, on.Hits, func(x, y search.Hit) bool { return x.Title == y.Title && x.Score == y.Score }) {
		t.Errorf("%q: NamedShare 0 changes nothing: the query names no concept, and the check above shows nothing", passing)
	}
}

package graph_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/sqlite"
)

// gatedSource is an index whose graph version the test sets, and whose
// concept links wait for gate (when set) before they are read.
type gatedSource struct {
	*sqlite.GraphIndex
	mu      sync.Mutex
	version string
	gate    chan struct{}
	reads   int // concept-link reads: one per graph built
}

func (s *gatedSource) GraphVersion(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version, nil
}

func (s *gatedSource) ConceptLinks(ctx context.Context) (*noema.ConceptLinks, error) {
	s.mu.Lock()
	gate := s.gate
	s.reads++
	s.mu.Unlock()
	if gate != nil {
		<-gate
	}
	return s.GraphIndex.ConceptLinks(ctx)
}

// rankedAnalyzer is an Analyzer over a small generated vault at graph
// version "1" whose communities are computed: the first concept's
// community, fresh, is first.
func rankedAnalyzer(t *testing.T) (src *gatedSource, a *graph.Analyzer, id string, first *graph.ConceptCommunity) {
	t.Helper()
	db, _ := analyzeVault(t, 80, 40, 4)
	ctx := context.Background()
	src = &gatedSource{GraphIndex: db.Graph(), version: "1"}
	a = graph.NewAnalyzer(src)
	g, err := a.Graph(ctx, graph.AnalyzeConcepts)
	if err != nil {
		t.Fatal(err)
	}
	id = g.IDs[0]
	first, err = a.RecentConceptCommunity(ctx, id, 3)
	if err != nil || first.Stale {
		t.Fatalf("first call = %+v, %v; want a fresh community", first, err)
	}
	return src, a, id, first
}

// TestRecentConceptCommunityServesStale checks issue 21's "answers after a
// write stay fast": once the graph changed, RecentConceptCommunity answers
// at once from the last computed communities, saying they are stale,
// while the new ones are computed in the background (here held up until
// the gate opens); then it answers fresh. ConceptCommunity, for
// analyze_graph, always waits for the current graph.
func TestRecentConceptCommunityServesStale(t *testing.T) {
	ctx := context.Background()
	src, a, id, first := rankedAnalyzer(t)
	gate := make(chan struct{})
	src.mu.Lock()
	src.version, src.gate = "2", gate
	src.mu.Unlock()
	got := make(chan *graph.ConceptCommunity, 1)
	go func() {
		cc, err := a.RecentConceptCommunity(ctx, id, 3)
		if err != nil {
			t.Error(err)
		}
		got <- cc
	}()
	select {
	case cc := <-got:
		if cc == nil || !cc.Stale || cc.Community != first.Community || cc.Size != first.Size {
			t.Errorf("after a change = %+v; want the earlier community, stale", cc)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("after a change, the community waited for the new graph")
	}
	close(gate)
	deadline := time.Now().Add(20 * time.Second)
	for {
		cc, err := a.RecentConceptCommunity(ctx, id, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !cc.Stale {
			if cc.Community != first.Community || cc.Size != first.Size {
				t.Errorf("fresh again = %+v, want %+v (the graph itself did not change)", cc, first)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background computation never finished")
		}
		time.Sleep(10 * time.Millisecond)
	}
	src.mu.Lock()
	src.version = "3"
	src.mu.Unlock()
	if cc, err := a.ConceptCommunity(ctx, id, 3); err != nil || cc.Stale {
		t.Errorf("ConceptCommunity after a change = %+v, %v; want fresh", cc, err)
	}
}

// TestFirstCommunityDoesNotBlock checks issue 21's "Louvain at a million
// concepts does not block": the process's first build_context community,
// when the graph takes longer than FirstRankWait to read and rank (here
// held up by the gate), is answered unavailable after that wait instead
// of after the computation, which goes on in the background (a later call
// meanwhile does not wait again); once it is done the community is there, and the version kept for later stale
// answers holds the graph's nodes, not its edges.
func TestFirstCommunityDoesNotBlock(t *testing.T) {
	db, _ := analyzeVault(t, 80, 40, 4)
	ctx := context.Background()
	gate := make(chan struct{})
	src := &gatedSource{GraphIndex: db.Graph(), version: "1", gate: gate}
	a := graph.NewAnalyzer(src)
	type answer struct {
		cc  *graph.ConceptCommunity
		err error
	}
	got := make(chan answer, 1)
	start := time.Now()
	go func() {
		cc, err := a.RecentConceptCommunity(ctx, "any", 3)
		got <- answer{cc, err}
	}()
	select {
	case ans := <-got:
		if noema.ErrorCode(ans.err) != noema.EUNAVAILABLE {
			t.Fatalf("first call while the graph is read = %+v, %v; want unavailable", ans.cc, ans.err)
		}
		if d := time.Since(start); d < graph.FirstRankWait {
			t.Errorf("answered after %v, before FirstRankWait (%v)", d, graph.FirstRankWait)
		}
	case <-time.After(graph.FirstRankWait + 5*time.Second):
		close(gate)
		t.Fatal("the first call waited for the communities")
	}
	// A later call while the computation still runs does not wait again.
	start = time.Now()
	if _, err := a.RecentConceptCommunity(ctx, "any", 3); noema.ErrorCode(err) != noema.EUNAVAILABLE {
		t.Errorf("second call while the graph is read: %v; want unavailable", err)
	}
	if d := time.Since(start); d > graph.FirstRankWait/2 {
		t.Errorf("second call waited %v", d)
	}
	close(gate)
	g, err := a.Graph(ctx, graph.AnalyzeConcepts)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		cc, err := a.RecentConceptCommunity(ctx, g.IDs[0], 3)
		if err == nil {
			if cc.Stale || cc.Concept.ID != g.IDs[0] {
				t.Errorf("once computed = %+v; want the concept's fresh community", cc)
			}
			break
		}
		if noema.ErrorCode(err) != noema.EUNAVAILABLE || time.Now().After(deadline) {
			t.Fatalf("once the gate opened: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := graph.RankedEdges(a); n != 0 {
		t.Errorf("the ranked version holds %d edge entries, want 0 (nodes only)", n)
	}
}

// TestRankingIsPaced checks that communities are not recomputed once per
// write: after a computation, the next starts no sooner than the gap after
// it (here an hour, so never within the test), while every call meanwhile
// answers at once from the last communities, stale.
func TestRankingIsPaced(t *testing.T) {
	ctx := context.Background()
	src, a, id, _ := rankedAnalyzer(t)
	graph.SetRankGap(a, func(time.Duration) time.Duration { return time.Hour })
	src.mu.Lock()
	reads := src.reads
	src.mu.Unlock()
	for v := 2; v < 12; v++ { // ten writes, each a new version, each followed by build_context
		src.mu.Lock()
		src.version = string(rune('0' + v))
		src.mu.Unlock()
		start := time.Now()
		cc, err := a.RecentConceptCommunity(ctx, id, 3)
		if err != nil || !cc.Stale {
			t.Fatalf("version %d: %+v, %v; want the earlier community, stale", v, cc, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("version %d: answered after %v", v, d)
		}
	}
	time.Sleep(200 * time.Millisecond)
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.reads != reads {
		t.Errorf("the graph was read %d more times within the gap; want 0 (one computation per gap)", src.reads-reads)
	}
}

// Package recall answers "what do I already know around this concept?":
// build_context (docs/context.md) gathers a concept, its typed relations, the
// concepts that co-occur with it (expanded breadth first up to a depth) and
// the notes that mention it, freshest first, weighted by recency decay
// (docs/context.md, "Definitions"; package decay).
//
// The service holds no SQL: it reads the index through the port
// [noema.MentionIndex] (sqlite.MentionIndex implements it) and resolves
// names through [Concepts] (implemented by *concepts.Service). Building
// context is not an explicit read: it never
// records an access, so it never refreshes any note's decay.
//
// The definitions (count, weight, distance, via, ordering) are in
// docs/context.md and on [Related].
package recall

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/timeline"
)

// Concepts resolves a concept name and finds candidates for a name that
// resolves to none. *concepts.Service implements it.
type Concepts interface {
	// Get returns the concept with the id, or whose label or alias has
	// the key of ref; a noema.ENOTFOUND error when there is none.
	Get(ctx context.Context, ref string) (*noema.Concept, error)
	// Find returns the concepts spelled most like a query
	// (find_concepts).
	Find(ctx context.Context, in concepts.FindInput) (*concepts.FindResult, error)
}

// Service builds context around concepts.
type Service struct {
	// Index is the index read.
	Index noema.MentionIndex
	// Concepts resolves names.
	Concepts Concepts
	// Decay is the recency weighting applied unless a call turns it off.
	Decay decay.Config
	// Now returns the current time, the "now" of decay; tests replace it.
	Now func() time.Time
	// Community, when set, gives a concept's Louvain community and its
	// siblings (graph.Analyzer.ConceptCommunity); build_context adds them.
	Community func(ctx context.Context, conceptID string, siblings int) (*graph.ConceptCommunity, error)

	// Time reads memory over time (supersession, validity); nil: every
	// note is current, and as_of leaves no note out.
	Time noema.TimeIndex

	// last is the latest mention graph read, kept current by graph.
	last atomic.Pointer[keptGraph]
	// timeline keeps the last timeline read from Time.
	timeline timeline.Cache
}

// Refresh brings the kept mention graph up to date with the index. The
// first BuildContext on an open vault reads the whole graph (every note
// row and link: about 0.1 s at 10,000 notes); a front end may call Refresh
// in the background after its first sync so that no caller waits for it.
// BuildContext refreshes on its own; calling Refresh is never required.
func (s *Service) Refresh(ctx context.Context) error {
	_, err := s.graph(ctx)
	return err
}

// graph returns the current mention graph, refreshing the kept one when
// the index changed.
func (s *Service) graph(ctx context.Context) (noema.MentionGraph, error) {
	kept := s.last.Load()
	var prev noema.MentionGraph
	if kept != nil {
		prev = kept.g
	}
	g, err := s.Index.MentionGraph(ctx, prev)
	if err != nil {
		return nil, err
	}
	if g != prev {
		s.last.CompareAndSwap(kept, &keptGraph{g}) // a concurrent refresh may have won: either graph is current
	}
	return g, nil
}

// keptGraph holds the mention graph a Service keeps between calls.
type keptGraph struct{ g noema.MentionGraph }

// New returns a Service reading idx, resolving names with
// cs (a *concepts.Service) and weighting notes by d (the vault's
// config.Config.Decay).
func New(idx noema.MentionIndex, cs Concepts, d decay.Config) *Service {
	return &Service{Index: idx, Concepts: cs, Decay: d, Now: time.Now}
}

package search

import (
	"context"

	"github.com/noema-mem/noema"
)

// PlainOR is the evaluation's baseline expression: every word of q OR-ed.
func PlainOR(q string) string { return parse(q).plainOR(q) }

// TextQueryOf is the full-text query the service sends for q.
func TextQueryOf(q string, limit int) noema.TextQuery {
	p := parse(q)
	return noema.TextQuery{Match: p.match(), Bonus: p.bonus(), All: p.all(), BonusHoldsAll: p.bonusHoldsAll(), Weights: [3]float64{DefaultTuning.TitleWeight, 1, 1}, Limit: limit}
}

// TermExprs returns the FTS5 expression of each term of q, in order.
func TermExprs(q string) []string {
	p := parse(q)
	out := make([]string, len(p.terms))
	for i, t := range p.terms {
		out[i] = t.expr()
	}
	return out
}

// SetSkipCommonTerms turns the common-term pruning on or off and returns
// the previous setting.
func SetSkipCommonTerms(on bool) bool {
	old := skipCommonTerms
	skipCommonTerms = on
	return old
}

// Pruned reports whether the full-text expression of q leaves common terms
// out.
func Pruned(s *Service, q string) bool {
	p := parse(q)
	plan, err := s.fulltextMatch(context.Background(), nil, p, noema.SearchFilter{})
	return err == nil && plan.match != p.match()
}

// SetTextPlans sets how fulltextMatch chooses the SearchText plan and
// returns the previous setting: "counts" (the default: by the terms'
// note counts), "none" (neither EveryFirst nor Together), "every-first"
// "together" or "per-term" (that plan wherever the query allows it).
func SetTextPlans(mode string) string {
	old := textPlans
	textPlans = mode
	return old
}

// SetLiftInRanking makes s read the passage lift's bodies in the ranking
// statement always (on), or as liftApart chooses.
func SetLiftInRanking(s *Service, on bool) { s.liftInRanking = on }

// SetNamesBuilding marks the concept names as being built by another call
// (a server's warm-up) or not.
func SetNamesBuilding(s *Service, on bool) { s.names.building.Store(on) }

// SetSnapshotMinChunks sets the fewest chunks worth a chunk vectors
// snapshot for s.
func SetSnapshotMinChunks(s *Service, n int) { s.snapshotMin = n }

// SetBuild names the build s reads and writes chunk vectors snapshots as.
func SetBuild(s *Service, build string) { s.build = build }

// PerturbVectors moves every loaded chunk vector of s a little, as a build
// with other arithmetic would store them, and makes a snapshot due.
func PerturbVectors(s *Service) {
	c := &s.chunks
	c.mu.Lock()
	defer c.mu.Unlock()
	for id := range c.spans {
		if v, ok := c.idx.Get(id); ok {
			v[0] += 0.01
			c.idx.Set(id, v)
		}
	}
	c.saveDue.Store(true)
}

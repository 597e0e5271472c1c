package concepts

import (
	"context"
	"math"
	"slices"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vector"
)

// SetSecondChannel turns find_concepts' second candidate channel on or off
// and returns a function restoring it.
func SetSecondChannel(on bool) (restore func()) {
	old := secondChannel
	secondChannel = on
	return func() { secondChannel = old }
}

// ResetDuplicateIndex drops the cached names, so that the next call builds
// them again as after a registry change.
func (s *Service) ResetDuplicateIndex() {
	s.mu.Lock()
	s.cache = nil
	s.mu.Unlock()
}

// IsFillerWord reports whether w (lower case) is a function word or a
// generic head word of the name folding.
func IsFillerWord(w string) bool { return functionWords[w] || genericHeads[w] }

// NamesBase returns the identity of the names last read in full (nil
// before the first find), to tell a reload from an update.
func (s *Service) NamesBase() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		return nil
	}
	return s.cache.base
}

// NamesFromSnapshot reports whether the names cached in full were read
// from the names snapshot (not from the index).
func (s *Service) NamesFromSnapshot() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cache != nil && s.cache.base.version == snapshotVersion
}

// FindIndexFromSnapshot reports whether the find index of the names
// cached in full came from the names snapshot.
func (s *Service) FindIndexFromSnapshot() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cache != nil && s.cache.base.findLoaded
}

// SetCodeID makes the names snapshot see the build running as id and
// returns a function restoring it.
func SetCodeID(id string) (restore func()) {
	old := codeID
	codeID = func() string { return id }
	return func() { codeID = old }
}

// SetPairModel makes analyze_duplicates and merge_concepts judge with the
// model given (weights in PairFeatureNames' order and its thresholds:
// add, keep), or with the rules alone for nil weights, and returns a
// function restoring the rules.
func SetPairModel(weights []float64, add, keep float64) (restore func()) {
	old := trainedPairModel
	trainedPairModel = nil
	if weights != nil {
		m := &dupModel{add: add, keep: keep}
		copy(m.weights[:], weights)
		trainedPairModel = m
	}
	return func() { trainedPairModel = old }
}

// PairFeatureNames returns the names of the pair classifier's features.
func PairFeatureNames() []string { return dupFeature[:] }

// PairSample is one candidate pair analyze_duplicates judges: its
// concepts' labels, its features, and whether the classifier decides it
// (Decides) or the rules do, with the rules' verdict (Rule: merge, review,
// "" for none or a veto).
type PairSample struct {
	A, B     string
	Features []float64
	Decides  bool
	Rule     string
	Shared   int // notes linking both
}

// PairSamples returns the candidate pairs of the whole vault as
// analyze_duplicates judges them with the rules alone, with every
// concept's context loaded.
func (s *Service) PairSamples(ctx context.Context, emb Embeddings) ([]PairSample, error) {
	di, ok := s.DB.(noema.DuplicateIndex)
	if !ok {
		return nil, noema.Errorf(noema.EINTERNAL, "the index cannot report concept statistics")
	}
	r, err := s.startDupRun(ctx, di, DuplicatesInput{}, emb, &DuplicatesResult{})
	if err != nil {
		return nil, err
	}
	if err := r.loadStats(ctx, nil); err != nil {
		return nil, err
	}
	defined, err := r.loadDefinitions(ctx, nil)
	if err != nil {
		return nil, err
	}
	cs := vaultCandidates(r.x, r.cons, defined)
	var ctxErr error
	load := r.contextLoader(ctx, &ctxErr)
	restore := SetPairModel(nil, 0, 0)
	keys, first, informative := judgeCandidates(cs, r.cons, load)
	restore()
	if load != nil {
		var need []int32
		for i, k := range keys {
			if !first[i].skip {
				need = append(need, int32(k>>32), int32(uint32(k)))
			}
		}
		slices.Sort(need)
		load(slices.Compact(need))
	}
	if ctxErr != nil {
		return nil, ctxErr
	}
	var out []PairSample
	for i, k := range keys {
		a, b := &r.cons[k>>32], &r.cons[uint32(k)]
		if first[i].skip || markedDistinct(a, b) {
			continue
		}
		var sim *float64
		if a.vec != nil && b.vec != nil {
			s := math.Round(float64(vector.Dot(a.vec, b.vec))*1e6) / 1e6
			sim = &s
		}
		ev := judgeEvidence(a, b, cs.pairs[k])
		var f [nDupFeatures]float64
		pairFeatures(&f, a, b, cs.pairs[k], sim, &ev, informative)
		ps := PairSample{A: a.label, B: b.label, Features: f[:], Decides: modelDecides(&ev) && !plainPair(&ev, sim), Rule: ev.best.verdict, Shared: ev.shared}
		if ps.Rule == VerdictReview && ev.shared >= 2 && ev.best.score >= 0.75 {
			ps.Rule = VerdictMerge // a review the neighbours make a merge
		}
		out = append(out, ps)
	}
	return out, nil
}

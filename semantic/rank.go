package semantic

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vector"
)

// candidate is a concept that may be among the best k: its vector id, an
// upper bound of its score (key) and its similarity (sim: an upper bound
// until scored, then exact), and the bound of its decay weight.
type candidate struct {
	vid    int64
	key    float64
	sim    float32
	weight float64
	scored bool
}

// firstBatch is how many candidates rank scores first, beyond k; each
// further round takes four times as many.
const firstBatch = 8

// rank returns the best k concepts by score = similarity × decay (ties:
// similarity, label, id) of those filter admits, exactly as scoring every
// concept would rank them, scoring few. Every concept's score is bounded
// without a query: the vector index bounds its similarity (its int8
// pass), the freshness bounds its decay (fresh.go; 1 when the index
// cannot tell or decay is off). Rounds then take the candidates with the
// best bounds: their exact similarity first (their vectors), then, for
// those that can still enter the top k, their decay (their notes), until
// no bound left can beat the k-th best score.
func (s *Service) rank(ctx context.Context, qv []float32, k int, filter func(int64) bool, useDecay bool) ([]Similar, error) {
	now := s.Now()
	var latest []float64
	var latestGen int64
	var decayOf decayFunc
	if useDecay {
		decayOf = s.conceptDecay
	}
	if r, ok := s.DB.(noema.ConceptFreshnessReader); ok && useDecay && !s.Decay.Disabled {
		var err error
		if latest, latestGen, err = s.latestByVID(ctx, r); err != nil {
			return nil, err
		}
		decayOf = func(ctx context.Context, ids []string, now time.Time) (map[string]float64, error) {
			return s.exactDecay(ctx, r, ids, now)
		}
	}
	s.mu.RLock()
	idx, model := s.idx, s.model
	if s.gen != latestGen {
		latest = nil // vector ids renumbered meanwhile: bound decay by 1
	}
	s.mu.RUnlock()
	rows := s.rowsOf(ctx, model)
	// First, as without decay: the best 4k by similarity, weighed. When
	// the next similarity is below the k-th best score (decay ≤ 1), no
	// other concept can enter: the common case of fresh notes, at the cost
	// it always had.
	fetch := 4 * k
	hits, err := idx.SearchRows(qv, fetch+1, filter, rows)
	if err != nil {
		return nil, err
	}
	best, err := s.score(ctx, hits, now, decayOf)
	if err != nil {
		return nil, err
	}
	sortHits(best)
	if len(hits) <= fetch || (len(best) >= k && float64(hits[len(hits)-1].Score) < best[k-1].Score) {
		return best[:min(k, len(best))], nil
	}
	scored := make(map[int64]bool, len(hits))
	for _, h := range hits {
		scored[h.ID] = true
	}
	ids, upper := idx.Bounds(qv, filter)
	nowNS, maxGrace := now.UnixNano(), s.Decay.MaxGrace()
	var weights []float64 // by row; nil: all 1
	keys := make([]float64, len(ids))
	if latest != nil {
		weights = make([]float64, len(ids))
	}
	for i, vid := range ids {
		w := 1.0
		if weights != nil {
			if vid >= 0 && vid < int64(len(latest)) {
				w = s.weightBound(latest[vid], nowNS, maxGrace)
			}
			weights[i] = w
		}
		keys[i] = scoreBound(upper[i], w)
	}
	candidateAt := func(i int) candidate {
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		return candidate{vid: ids[i], sim: upper[i], weight: w, key: keys[i]}
	}
	// The rest join the pool once the k-th best score rules most out.
	taken := make([]bool, len(ids))
	for i, vid := range ids {
		taken[i] = scored[vid]
	}
	var pool []candidate
	rest := true
	for batch := k + firstBatch; ; batch *= 4 {
		if len(best) >= k {
			kth := best[k-1]
			pool = slices.DeleteFunc(pool, func(c candidate) bool { return !mayBeat(c, kth) })
		}
		if rest {
			for i := range ids {
				if taken[i] {
					continue
				}
				if len(best) >= k && keys[i] < best[k-1].Score {
					continue // the common case of mayBeat, without a candidate
				}
				if c := candidateAt(i); len(best) < k || mayBeat(c, best[k-1]) {
					pool = append(pool, c)
				}
			}
			rest = false
		}
		if len(pool) == 0 {
			break
		}
		sel := takeBest(pool, batch)
		// Their exact similarity, then a tighter bound.
		var vids []int64
		at := make(map[int64]int, len(sel))
		for i, c := range sel {
			if !c.scored {
				vids = append(vids, c.vid)
				at[c.vid] = i
			}
		}
		hits, err := idx.Scores(qv, vids, rows)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			c := &sel[at[h.ID]]
			c.sim, c.scored, c.key = h.Score, true, scoreBound(h.Score, c.weight)
		}
		// The rest of this round's unscored are gone (deleted meanwhile);
		// the scored that can still enter are weighed by their notes.
		var weigh []vector.Hit
		for _, c := range sel {
			if c.scored && (len(best) < k || mayBeat(c, best[k-1])) {
				weigh = append(weigh, vector.Hit{ID: c.vid, Score: c.sim})
			}
		}
		more, err := s.score(ctx, weigh, now, decayOf)
		if err != nil {
			return nil, err
		}
		best = append(best, more...)
		sortHits(best)
		pool = pool[len(sel):]
	}
	return best[:min(k, len(best))], nil
}

// scoreBound bounds the score of a concept whose similarity is at most
// sim and decay at most w: a similarity below 0 gives a score of at most
// 0 whatever the decay.
func scoreBound(sim float32, w float64) float64 {
	if sim <= 0 {
		return 0
	}
	return float64(sim) * w
}

// mayBeat reports whether candidate c can rank before kth (by score, then
// similarity; equal bounds may still win on label or id).
func mayBeat(c candidate, kth Similar) bool {
	return c.key > kth.Score || (c.key == kth.Score && float64(c.sim) >= kth.Similarity)
}

// betterCandidate orders candidates by key, then similarity, then vector id.
func betterCandidate(a, b candidate) int {
	return cmp.Or(cmp.Compare(b.key, a.key), cmp.Compare(b.sim, a.sim), cmp.Compare(a.vid, b.vid))
}

// takeBest moves the best n candidates of pool (by betterCandidate) to
// its front and returns them.
func takeBest(pool []candidate, n int) []candidate {
	if n >= len(pool) {
		return pool
	}
	for j, i := range topN(len(pool), n, func(a, b int) int { return betterCandidate(pool[a], pool[b]) }) {
		pool[j], pool[i] = pool[i], pool[j] // i ≥ j: ascending, distinct
	}
	return pool[:n]
}

// topN returns the indices, ascending, of the best n of [0, size) by
// compare (negative: the first is better), by a bounded heap.
func topN(size, n int, compare func(i, j int) int) []int {
	if n >= size {
		out := make([]int, size)
		for i := range out {
			out[i] = i
		}
		return out
	}
	h := make([]int, 0, n) // heap with the worst kept index at the root
	worse := func(a, b int) bool { return compare(h[a], h[b]) > 0 }
	down := func(i int) {
		for {
			w := i
			if l := 2*i + 1; l < len(h) && worse(l, w) {
				w = l
			}
			if r := 2*i + 2; r < len(h) && worse(r, w) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for i := range size {
		if len(h) < n {
			h = append(h, i)
			for j := len(h) - 1; j > 0; {
				p := (j - 1) / 2
				if !worse(j, p) {
					break
				}
				h[j], h[p] = h[p], h[j]
				j = p
			}
			continue
		}
		if compare(i, h[0]) < 0 {
			h[0] = i
			down(0)
		}
	}
	slices.Sort(h)
	return h
}

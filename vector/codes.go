package vector

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// An index made by [NewCodes] keeps no float rows at all: only each row's
// int8 codes, their scale and their error bounds (quant.go), dim + 12
// bytes a row (396 at 384 dimensions, against 1,164 for [NewHalf]'s
// halves and codes). The exact rows stay where the caller keeps them
// anyway (noema: the embedding cache in the index), and
// [Index.SearchRows] asks for those of the rows that can be among the
// best k — the second pass of the two-pass search — so it returns exactly
// what a float32 scan of the normalized rows returns. At a million concept
// vectors that is 0.4 GB held instead of 1.2 GB (issue 21).

// NewCodes returns an empty index of vectors of dimension dim that keeps
// only their int8 codes; search it with [Index.SearchRows]. Where the int8
// kernel does not take dim (see quantizable) it returns [NewHalf]'s index,
// which SearchRows searches from its own rows. It panics if dim is not
// positive.
func NewCodes(dim int) *Index {
	x := New(dim)
	if !x.quant {
		x.half = true
		return x
	}
	x.codesOnly = true
	return x
}

// CodesOnly reports whether the index keeps only int8 codes ([NewCodes]).
func (x *Index) CodesOnly() bool { return x.codesOnly }

// RowSource gives the exact vectors of the ids (not necessarily
// normalized), calling fn once for each id it has; ids it lacks (deleted
// meanwhile) are left out. v is valid only during the call.
type RowSource func(ids []int64, fn func(id int64, v []float32)) error

// SearchRows is [Index.Search] for an index that may keep only codes
// ([NewCodes]): the int8 pass bounds every row's score, then rows gives
// the exact vectors of the rows that can be among the best k, which are
// scored in float32. The answer is what a float32 scan of rows' vectors,
// normalized, returns (ties by ascending ID), provided rows gives the
// vectors the codes were made from. An index with float rows searches
// them and never calls rows.
func (x *Index) SearchRows(q []float32, k int, filter func(id int64) bool, rows RowSource) ([]Hit, error) {
	if !x.codesOnly {
		return x.Search(q, k, filter), nil
	}
	if k <= 0 || len(q) != x.dim || IsDegenerate(q) {
		return nil, nil
	}
	qn := slices.Clone(q)
	Normalize(qn)
	ids := x.candidates(qn, k, filter)
	t := newTopK(min(k, max(1, len(ids))))
	if len(ids) == 0 {
		return nil, nil
	}
	if err := x.scoreRows(qn, ids, rows, func(h Hit) { t.offer(h, filter) }); err != nil {
		return nil, err
	}
	return t.sorted(), nil
}

// candidates returns the ids of the rows whose score can be among the
// best k of those filter admits: the int8 pass's upper bound reaches the
// k-th best lower bound.
func (x *Index) candidates(qn []float32, k int, filter func(int64) bool) []int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := len(x.ids)
	if n == 0 {
		return nil
	}
	k = min(k, n)
	workers := 1
	if n >= parallelMinRows {
		workers = maxWorkers
	}
	sq, approx, floor := x.approxPass(qn, k, filter, workers)
	var ids []int64
	for r := range n {
		if approx[r]+x.errBound(r, sq) >= floor && (filter == nil || filter(x.ids[r])) {
			ids = append(ids, x.ids[r])
		}
	}
	return ids
}

// Bounds returns the id of every row filter admits (nil admits all) and,
// at the same index, an upper bound of the score [Index.SearchRows] (or
// [Index.Search]) gives the row against q: the int8 pass's approximate
// score plus its error bound when the index keeps int8 codes, else the
// score itself. A caller ranking by something the score only bounds (a
// weighted score) scores the rows that can matter with [Index.Scores]. It
// returns nil when q has the wrong dimension or is degenerate.
func (x *Index) Bounds(q []float32, filter func(id int64) bool) (ids []int64, upper []float32) {
	if len(q) != x.dim || IsDegenerate(q) {
		return nil, nil
	}
	qn := slices.Clone(q)
	Normalize(qn)
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := len(x.ids)
	upper = make([]float32, n)
	workers := 1
	if n >= parallelMinRows {
		workers = max(1, min(maxWorkers, runtime.GOMAXPROCS(0)))
	}
	dim := x.dim
	if x.quant {
		qi := make([]int16, dim)
		sq := quantizeQuery(qn, qi)
		inParts(n, workers, func(lo, hi int) {
			var sums [scanBlock]int32
			eachBlock(lo, hi, func(r, m int) {
				dotsI8(qi, x.codes[r*dim:(r+m)*dim], sums[:m])
				for j, s := range sums[:m] {
					upper[r+j] = float32(s)*sq*x.scale[r+j] + x.errBound(r+j, sq)
				}
			})
		})
	} else {
		inParts(n, workers, func(lo, hi int) {
			buf := make([]float32, min(scanBlock, hi-lo)*dim)
			eachBlock(lo, hi, func(r, m int) {
				rows := buf[:m*dim]
				for j := range m {
					copy(rows[j*dim:(j+1)*dim], x.row(r+j, rows[j*dim:(j+1)*dim]))
				}
				dots(qn, rows, upper[r:r+m])
			})
		})
	}
	ids = slices.Clone(x.ids)
	if filter != nil {
		kept := 0
		for r, id := range ids {
			if filter(id) {
				ids[kept], upper[kept] = id, upper[r]
				kept++
			}
		}
		ids, upper = ids[:kept], upper[:kept]
	}
	return ids, upper
}

// inParts runs fn over [0, n) split across workers goroutines.
func inParts(n, workers int, fn func(lo, hi int)) {
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { fn(n*w/workers, n*(w+1)/workers) })
	}
	wg.Wait()
}

// Scores returns the score against q of each of the rows ids that the
// index holds, exactly as [Index.SearchRows] computes it: from rows when
// the index keeps only codes, else from its own rows. Rows deleted
// meanwhile (or that rows lacks) and degenerate rows are left out; the
// order is ids'.
func (x *Index) Scores(q []float32, ids []int64, rows RowSource) ([]Hit, error) {
	if len(q) != x.dim || IsDegenerate(q) || len(ids) == 0 {
		return nil, nil
	}
	qn := slices.Clone(q)
	Normalize(qn)
	buf := make([]float32, x.dim)
	if !x.codesOnly {
		x.mu.RLock()
		defer x.mu.RUnlock()
		out := make([]Hit, 0, len(ids))
		for _, id := range ids {
			if r, ok := x.rows[id]; ok {
				out = append(out, Hit{ID: id, Score: dot1(qn, x.row(r, buf))})
			}
		}
		return out, nil
	}
	got := make(map[int64]float32, len(ids))
	if err := x.scoreRows(qn, ids, rows, func(h Hit) { got[h.ID] = h.Score }); err != nil {
		return nil, err
	}
	out := make([]Hit, 0, len(got))
	for _, id := range ids {
		if s, ok := got[id]; ok {
			out = append(out, Hit{ID: id, Score: s})
		}
	}
	return out, nil
}

// scoreRows scores against qn (normalized) the exact vectors rows gives
// of ids, normalized, and passes each to fn; degenerate ones are left out.
func (x *Index) scoreRows(qn []float32, ids []int64, rows RowSource, fn func(Hit)) error {
	buf := make([]float32, x.dim)
	var bad error
	err := rows(ids, func(id int64, v []float32) {
		if len(v) != x.dim {
			bad = fmt.Errorf("vector: row %d has %d dimensions, want %d", id, len(v), x.dim)
			return
		}
		copy(buf, v)
		if Normalize(buf) {
			fn(Hit{ID: id, Score: dot1(qn, buf)})
		}
	})
	if err != nil {
		return fmt.Errorf("vector: read the rows to score: %w", err)
	}
	return bad
}

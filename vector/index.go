package vector

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
)

// parallelMinRows is the index size from which Search splits its scan across
// goroutines; below it the goroutine start-up costs more than it saves.
const parallelMinRows = 8192

// scanBlock is how many rows a scan scores at once before it ranks them.
const scanBlock = 256

// maxWorkers caps the goroutines of one Search. noema runs on small machines
// next to an editor and an LLM client; two cores saturate memory bandwidth
// for this scan on typical hardware.
const maxWorkers = 2

// Hit is one search result.
type Hit struct {
	ID int64 `json:"id"`
	// Score is the cosine similarity of the stored vector and the query.
	Score float32 `json:"score"`
}

// Index is an exact nearest-neighbour index over unit vectors keyed by int64.
// It is safe for concurrent use: any number of readers (Search, Get, Len)
// run in parallel, writers (Set, Delete) exclude everyone. Create it with
// [New].
type Index struct {
	dim int

	mu   sync.RWMutex
	slab []float32 // row r is slab[r*dim : (r+1)*dim] (half: empty)
	// half: the rows are binary16 in hslab instead (half.go).
	half bool
	// codesOnly: no rows are kept, only their int8 codes (codes.go).
	codesOnly bool
	hslab     []uint16
	ids       []int64       // ids[r] is the ID of row r
	rows      map[int64]int // ID → row

	// quant: the rows also have int8 codes (quant.go).
	quant bool
	codes []int8    // row r's codes are codes[r*dim : (r+1)*dim]
	scale []float32 // scale[r] · codes ≈ row r
	qerr  []float32 // ‖row r − scale[r] · codes‖₂, rounded up
	ql1   []float32 // Σ |scale[r] · codes|

	buf []float32 // Set's scratch row, under mu
}

// quantMinRows is the index size from which Search takes the two-pass int8
// route; below it the float32 rows fit in cache and one pass is cheaper.
const quantMinRows = 2048

// New returns an empty index of vectors of dimension dim. It panics if dim is
// not positive.
func New(dim int) *Index {
	if dim <= 0 {
		panic(fmt.Sprintf("vector: New: dimension %d is not positive", dim))
	}
	return &Index{dim: dim, rows: make(map[int64]int), quant: quantizable(dim)}
}

// NewHalf returns an empty index of vectors of dimension dim that stores
// them as half-precision floats, half the bytes of [New]'s (half.go): a
// score is within 2⁻¹¹ + dim·2⁻²⁵ of the float32 one. It panics if dim is
// not positive.
func NewHalf(dim int) *Index {
	x := New(dim)
	x.half = true
	return x
}

// row returns row r as float32: the slab's, or, in a half index, decoded
// into buf (dim long). The caller holds x.mu.
func (x *Index) row(r int, buf []float32) []float32 {
	if !x.half {
		return x.slab[r*x.dim : (r+1)*x.dim]
	}
	decodeHalves(x.hslab[r*x.dim:(r+1)*x.dim], buf)
	return buf
}

// Dim returns the dimension of the index's vectors.
func (x *Index) Dim() int { return x.dim }

// Len returns the number of vectors in the index.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.ids)
}

// Set stores a normalized copy of v under id, replacing any previous vector.
// It rejects, with an error and without changing the index, a vector of the
// wrong dimension and a degenerate one (NaN, ±Inf, zero norm; the error
// wraps [ErrDegenerate]). It allocates nothing but the room a new row takes
// (see [Index.Grow]): loading a large index makes no garbage.
func (x *Index) Set(id int64, v []float32) error {
	if err := checkVector(v, x.dim); err != nil {
		return fmt.Errorf("vector: set %d: %w", id, err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.buf) != x.dim {
		x.buf = make([]float32, x.dim)
	}
	u := x.buf
	copy(u, v)
	Normalize(u)
	r, ok := x.rows[id]
	if !ok {
		r = len(x.ids)
		x.rows[id] = r
		x.ids = append(x.ids, id)
		switch {
		case x.codesOnly:
		case x.half:
			x.hslab = slices.Grow(x.hslab, x.dim)[:(r+1)*x.dim]
		default:
			x.slab = slices.Grow(x.slab, x.dim)[:(r+1)*x.dim]
		}
		if x.quant {
			x.codes = slices.Grow(x.codes, x.dim)[:(r+1)*x.dim]
			x.scale, x.qerr, x.ql1 = append(x.scale, 0), append(x.qerr, 0), append(x.ql1, 0)
		}
	}
	switch {
	case x.codesOnly: // the codes are of the normalized row
	case x.half:
		hs := x.hslab[r*x.dim : (r+1)*x.dim]
		for i, f := range u {
			hs[i] = toHalf(f)
		}
		decodeHalves(hs, u) // the codes are of the stored row
	default:
		copy(x.slab[r*x.dim:], u)
	}
	if x.quant {
		x.scale[r], x.qerr[r], x.ql1[r] = quantizeRow(u, x.codes[r*x.dim:(r+1)*x.dim])
	}
	return nil
}

// Grow reserves room for n more vectors, so that adding them does not
// reallocate the index's storage: a caller that knows how many it will
// Set (a reload of a million concept vectors) holds them once, not up to
// twice while a slab is copied into a larger one.
func (x *Index) Grow(n int) {
	if n <= 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.ids = slices.Grow(x.ids, n)
	switch {
	case x.codesOnly:
	case x.half:
		x.hslab = slices.Grow(x.hslab, n*x.dim)
	default:
		x.slab = slices.Grow(x.slab, n*x.dim)
	}
	if x.quant {
		x.codes = slices.Grow(x.codes, n*x.dim)
		x.scale, x.qerr, x.ql1 = slices.Grow(x.scale, n), slices.Grow(x.qerr, n), slices.Grow(x.ql1, n)
	}
	if len(x.rows) == 0 {
		x.rows = make(map[int64]int, n)
	}
}

// Delete removes id's vector, if any, and reports whether there was one. The
// last row moves into the freed slot, so storage stays contiguous.
func (x *Index) Delete(id int64) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	r, ok := x.rows[id]
	if !ok {
		return false
	}
	last := len(x.ids) - 1
	if r != last {
		switch {
		case x.codesOnly:
		case x.half:
			copy(x.hslab[r*x.dim:(r+1)*x.dim], x.hslab[last*x.dim:(last+1)*x.dim])
		default:
			copy(x.slab[r*x.dim:(r+1)*x.dim], x.slab[last*x.dim:(last+1)*x.dim])
		}
		moved := x.ids[last]
		x.ids[r] = moved
		x.rows[moved] = r
		if x.quant {
			copy(x.codes[r*x.dim:(r+1)*x.dim], x.codes[last*x.dim:(last+1)*x.dim])
			x.scale[r], x.qerr[r], x.ql1[r] = x.scale[last], x.qerr[last], x.ql1[last]
		}
	}
	x.ids = x.ids[:last]
	switch {
	case x.codesOnly:
	case x.half:
		x.hslab = x.hslab[:last*x.dim]
	default:
		x.slab = x.slab[:last*x.dim]
	}
	if x.quant {
		x.codes = x.codes[:last*x.dim]
		x.scale, x.qerr, x.ql1 = x.scale[:last], x.qerr[:last], x.ql1[:last]
	}
	delete(x.rows, id)
	return true
}

// Get returns a copy of id's stored (normalized) vector; an index that
// keeps only codes ([NewCodes]) has none to return (false).
func (x *Index) Get(id int64) ([]float32, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	r, ok := x.rows[id]
	if !ok || x.codesOnly {
		return nil, false
	}
	return slices.Clone(x.row(r, make([]float32, x.dim))), true
}

// Search returns the k stored vectors most similar to q by cosine, best
// first; equal scores are ordered by ascending ID, so results are
// deterministic. q need not be normalized. A nil filter admits every ID;
// otherwise only IDs for which filter returns true are results. The filter
// is consulted only for vectors that would enter the current top k, and it
// may be called from several goroutines at once, so it must be safe for
// concurrent use (a read-only map lookup is). filter must not call methods
// of x that write.
//
// Search returns nil when k ≤ 0, when the index is empty, and when q has the
// wrong dimension or is degenerate (check with [IsDegenerate] to tell the
// cases apart and report them).
func (x *Index) Search(q []float32, k int, filter func(id int64) bool) []Hit {
	return x.SearchWorkers(q, k, filter, maxWorkers)
}

// SearchWorkers is [Index.Search] on at most workers goroutines (Search
// uses up to two): one when the caller keeps the other core busy, as a
// hybrid search does with its full-text query.
func (x *Index) SearchWorkers(q []float32, k int, filter func(id int64) bool, workers int) []Hit {
	if k <= 0 || len(q) != x.dim || IsDegenerate(q) {
		return nil
	}
	qn := slices.Clone(q)
	Normalize(qn)

	x.mu.RLock()
	defer x.mu.RUnlock()
	n := len(x.ids)
	if n == 0 {
		return nil
	}
	k = min(k, n)

	if n < parallelMinRows {
		workers = 1
	}
	workers = max(1, min(workers, maxWorkers, runtime.GOMAXPROCS(0)))
	if x.codesOnly {
		return x.searchApprox(qn, k, filter, workers)
	}
	if x.quant && n >= quantMinRows {
		return x.searchQuant(qn, k, filter, workers)
	}
	all := inParallel(n, workers, func(lo, hi int) topK { return x.scan(qn, k, filter, lo, hi) })
	return all.sorted()
}

// inParallel runs scan over [0, n) split across workers goroutines and
// merges their top k.
func inParallel(n, workers int, scan func(lo, hi int) topK) topK {
	if workers == 1 {
		return scan(0, n)
	}
	parts := make([]topK, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Go(func() { parts[w] = scan(lo, hi) })
	}
	wg.Wait()
	all := parts[0]
	for _, p := range parts[1:] {
		for _, h := range p.hits {
			all.offer(h, nil)
		}
	}
	return all
}

// searchQuant is Search's two-pass route (quant.go): an int8 pass bounds
// every row's score, a float32 pass scores the rows that can be among the
// best k. The caller holds x.mu for reading.
func (x *Index) searchQuant(qn []float32, k int, filter func(int64) bool, workers int) []Hit {
	sq, approx, floor := x.approxPass(qn, k, filter, workers)
	best := inParallel(len(x.ids), workers, func(lo, hi int) topK {
		return x.rescan(qn, sq, k, filter, lo, hi, approx, floor)
	})
	return best.sorted()
}

// approxPass is the int8 pass shared by the two-pass searches: the
// query's scale, every row's approximate score, and the floor a row's
// upper bound must reach to be among the best k of those filter admits
// (the k-th best lower bound; -Inf when fewer than k rows pass the filter,
// so all of them are candidates). The caller holds x.mu for reading.
func (x *Index) approxPass(qn []float32, k int, filter func(int64) bool, workers int) (sq float32, approx []float32, floor float32) {
	n := len(x.ids)
	qi := make([]int16, x.dim)
	sq = quantizeQuery(qn, qi)
	approx = make([]float32, n)
	bounds := inParallel(n, workers, func(lo, hi int) topK {
		return x.approxScan(qi, sq, k, filter, lo, hi, approx)
	})
	floor = float32(math.Inf(-1))
	if len(bounds.hits) == k {
		floor = bounds.hits[0].Score
	}
	return sq, approx, floor
}

// searchApprox ranks by the int8 pass's approximate scores: Search of an
// index that keeps only codes (use [Index.SearchRows] for exact scores).
// The caller holds x.mu for reading.
func (x *Index) searchApprox(qn []float32, k int, filter func(int64) bool, workers int) []Hit {
	n := len(x.ids)
	_, approx, _ := x.approxPass(qn, k, filter, workers)
	best := inParallel(n, workers, func(lo, hi int) topK {
		t := newTopK(k)
		for r := lo; r < hi; r++ {
			t.consider(x, r, approx[r], filter)
		}
		return t
	})
	return best.sorted()
}

// errBound is the most row r's approximate score can be off by with a
// query of scale sq.
func (x *Index) errBound(r int, sq float32) float32 {
	return x.qerr[r] + sq/2*x.ql1[r] + quantSlack
}

// approxScan fills approx[lo:hi] with the rows' approximate scores and
// returns the best k lower bounds (score − error) among the rows filter
// admits.
func (x *Index) approxScan(qi []int16, sq float32, k int, filter func(int64) bool, lo, hi int, approx []float32) topK {
	t := newTopK(k)
	dim := x.dim
	var sums [scanBlock]int32
	eachBlock(lo, hi, func(r, m int) {
		dotsI8(qi, x.codes[r*dim:(r+m)*dim], sums[:m])
		for j, s := range sums[:m] {
			a := float32(s) * sq * x.scale[r+j]
			approx[r+j] = a
			t.consider(x, r+j, a-x.errBound(r+j, sq), filter)
		}
	})
	return t
}

// rescan scores in float32 the rows of [lo, hi) whose upper bound reaches
// floor and returns their best k among those filter admits.
func (x *Index) rescan(qn []float32, sq float32, k int, filter func(int64) bool, lo, hi int, approx []float32, floor float32) topK {
	t := newTopK(k)
	buf := make([]float32, x.dim)
	for r := lo; r < hi; r++ {
		if approx[r]+x.errBound(r, sq) >= floor {
			t.consider(x, r, dot1(qn, x.row(r, buf)), filter)
		}
	}
	return t
}

// scan returns the top k of rows [lo, hi). The caller holds x.mu for reading.
func (x *Index) scan(q []float32, k int, filter func(int64) bool, lo, hi int) topK {
	t := newTopK(k)
	dim := x.dim
	var scores [scanBlock]float32
	var buf []float32
	if x.half {
		buf = make([]float32, min(scanBlock, hi-lo)*dim)
	}
	eachBlock(lo, hi, func(r, m int) {
		var rows []float32
		if x.half {
			rows = buf[:m*dim]
			decodeHalves(x.hslab[r*dim:(r+m)*dim], rows)
		} else {
			rows = x.slab[r*dim : (r+m)*dim]
		}
		dots(q, rows, scores[:m])
		for j, s := range scores[:m] {
			t.consider(x, r+j, s, filter)
		}
	})
	return t
}

// eachBlock calls fn(r, m) for the blocks of [lo, hi): m ≤ scanBlock rows
// from row r.
func eachBlock(lo, hi int, fn func(r, m int)) {
	for r := lo; r < hi; r += scanBlock {
		fn(r, min(scanBlock, hi-r))
	}
}

// topK keeps the best k hits seen so far in a binary heap whose root is the
// worst kept hit.
type topK struct {
	k    int
	hits []Hit
}

// better reports whether a ranks before b: higher score, then lower ID.
func better(a, b Hit) bool {
	return a.Score > b.Score || (a.Score == b.Score && a.ID < b.ID)
}

// newTopK returns an empty top k.
func newTopK(k int) topK { return topK{k: k, hits: make([]Hit, 0, k)} }

// consider offers row r of x scoring s, loading the row's ID (and asking
// filter) only when s could enter the top k: the cheap reject of a scan.
func (t *topK) consider(x *Index, r int, s float32, filter func(int64) bool) {
	if len(t.hits) < t.k || s >= t.hits[0].Score {
		t.offer(Hit{ID: x.ids[r], Score: s}, filter)
	}
}

// offer adds h if it belongs in the top k and passes filter (nil admits all).
func (t *topK) offer(h Hit, filter func(int64) bool) {
	full := len(t.hits) == t.k
	if full && !better(h, t.hits[0]) {
		return
	}
	if filter != nil && !filter(h.ID) {
		return
	}
	if !full {
		t.hits = append(t.hits, h)
		t.up(len(t.hits) - 1)
		return
	}
	t.hits[0] = h
	t.down(0)
}

// up restores the heap property from leaf i towards the root.
func (t *topK) up(i int) {
	h := t.hits
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) { // parent is already worse or equal: done
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

// down restores the heap property from node i towards the leaves.
func (t *topK) down(i int) {
	h := t.hits
	n := len(h)
	for {
		worst := i
		if l := 2*i + 1; l < n && better(h[worst], h[l]) {
			worst = l
		}
		if r := 2*i + 2; r < n && better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// sorted returns the kept hits best first.
func (t *topK) sorted() []Hit {
	slices.SortFunc(t.hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return t.hits
}

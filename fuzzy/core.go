package fuzzy

import (
	"math"
	"math/bits"
)

// This file holds the scoring core shared by the plain scorer functions and
// by Choices.Extract. Every scorer works on a pair: a query (with prebuilt
// patterns) and a prepared choice.
//
// Pruning. Each scorer takes a pruner that says which results are useless to
// the caller: a component whose upper bound, scaled the way the caller will
// scale it, is not above the floor (a value the caller already has) or cannot
// pass the caller's limit is skipped. A skipped component reports a value no
// larger than its true value, so a scorer's result is either exact or, when
// it fails the limit, known to be rejected. All bounds are computed with the
// same float expressions as the scores, from integer bounds on the LCS; since
// IEEE division, subtraction and multiplication are monotone, a bound is never
// below the score it bounds. The unpruned pruner (noPrune) skips nothing.

// limit is the acceptance test of a caller: a score x is acceptable only if
// x > v, or x == v when !strict.
type limit struct {
	v      float64
	strict bool
}

// cannot reports whether x fails the limit.
func (l limit) cannot(x float64) bool {
	return x < l.v || l.strict && x == l.v
}

// tighter returns the stricter of two limits.
func (l limit) tighter(o limit) limit {
	switch {
	case o.v > l.v:
		return o
	case o.v < l.v:
		return l
	}
	return limit{l.v, l.strict || o.strict}
}

// noLimit accepts everything.
var noLimit = limit{v: math.Inf(-1)}

// pruner tells a component scorer how its result x will be used: as
// (x*f1)*f2, compared with floor (already reached by the caller) and lim.
type pruner struct {
	f1, f2 float64
	floor  float64
	lim    limit
}

// noPrune computes everything exactly.
var noPrune = pruner{f1: 1, f2: 1, floor: math.Inf(-1), lim: noLimit}

// skip reports whether a component bounded by ub cannot change the caller's
// decision or result.
func (p *pruner) skip(ub float64) bool {
	v := ub * p.f1 * p.f2
	return v <= p.floor || p.lim.cannot(v)
}

// raise records that the caller already has the component value x.
func (p *pruner) raise(x float64) {
	if v := x * p.f1 * p.f2; v > p.floor {
		p.floor = v
	}
}

// indelScore is ratio's float expression: (1 - d/L) * 100.
func indelScore(d, l int) float64 {
	if l == 0 {
		return 100
	}
	return (1 - float64(d)/float64(l)) * 100
}

// windowScore is the ratio of a needle of length n and a window of length k
// with an LCS of lcs.
func windowScore(n, k, lcs int) float64 {
	return indelScore(n+k-2*lcs, n+k)
}

// normScore is the token_set helper norm(d, L) = 100 - 100*d/L, 0 below cut.
func normScore(d, l int, cut float64) float64 {
	v := 100.0
	if l > 0 {
		v = 100 - 100*float64(d)/float64(l)
	}
	if v >= cut {
		return v
	}
	return 0
}

// ratioCut returns ratio's result for an Indel distance d over total length l
// with rapidfuzz's cutoff test in normalized space.
func ratioCut(d, l int, cut float64) float64 {
	ns := 1.0
	if l > 0 {
		ns = 1 - float64(d)/float64(l)
	}
	if ns >= cut/100 {
		return ns * 100
	}
	return 0
}

// query is a processed query string with everything precomputed that the
// scorers need on the query side.
type query struct {
	prepared
	shp shape
	// win, when built, holds the window shapes (windowShapes) of the
	// text, the sorted tokens and the distinct tokens.
	win      [][]shape
	tokRunes [][]rune // distinct tokens, sorted
	idPos    map[int32]int
	bloom    uint64  // bit id%64 set for every token id of the query
	lens     []int32 // token lengths by id, for the choices' tokens

	pR, pRRev, pS, pSRev, pSet, pSetRev *pattern
}

// newQuery prepares the processed query r; lookup maps a token to its id in
// the choices' dictionary (-1 if absent). Once every token is looked up,
// set q.lens to the dictionary's token lengths.
func newQuery(r []rune, lookup func([]rune) int32) *query {
	q := &query{}
	var runes arena[rune]
	var ids arena[int32]
	q.tokRunes = prepare(&q.prepared, r, &runes, &ids, lookup, nil)
	q.shp = makeShape(&q.prepared)
	for _, id := range q.toks {
		if id >= 0 {
			q.bloom |= 1 << (uint32(id) % 64)
		}
	}
	if len(q.toks) > 16 {
		q.idPos = make(map[int32]int, len(q.toks))
		for i, id := range q.toks {
			if _, ok := q.idPos[id]; !ok && id >= 0 {
				q.idPos[id] = i
			}
		}
	}
	return q
}

// buildWindows builds q.win for choices of at most maxN code points.
func (q *query) buildWindows(maxN int) {
	if q.shp.unbounded() {
		return
	}
	q.win = [][]shape{windowShapes(q.r, maxN), windowShapes(q.sorted, maxN), windowShapes(q.set, maxN)}
}

// buildAll builds every pattern, so q can be shared by goroutines.
func (q *query) buildAll() {
	q.patR()
	q.patRRev()
	q.patS()
	q.patSRev()
	q.patSet()
	q.patSetRev()
}

func buildPattern(p **pattern, s []rune, rev bool) *pattern {
	if *p == nil {
		*p = new(pattern)
		(*p).build(s, rev)
	}
	return *p
}

func (q *query) patR() *pattern    { return buildPattern(&q.pR, q.r, false) }
func (q *query) patRRev() *pattern { return buildPattern(&q.pRRev, q.r, true) }
func (q *query) patS() *pattern    { return buildPattern(&q.pS, q.sorted, false) }
func (q *query) patSRev() *pattern { return buildPattern(&q.pSRev, q.sorted, true) }

func (q *query) patSet() *pattern {
	if !q.dup {
		return q.patS()
	}
	return buildPattern(&q.pSet, q.set, false)
}

func (q *query) patSetRev() *pattern {
	if !q.dup {
		return q.patSRev()
	}
	return buildPattern(&q.pSetRev, q.set, true)
}

// find returns the position of token id among the query's distinct tokens, or -1.
func (q *query) find(id int32) int {
	if q.idPos != nil {
		if i, ok := q.idPos[id]; ok {
			return i
		}
		return -1
	}
	for i, x := range q.toks {
		if x == id {
			return i
		}
	}
	return -1
}

// pair is one (query, choice) comparison with lazily computed shared facts.
type pair struct {
	q  *query
	c  *prepared
	cs *shape // the choice's shape

	inter int32 // interBound of the shapes, -1 until computed

	nI, lenI  int32 // size of the token intersection and total length of its tokens
	lcsSorted int32 // LCS(q.sorted, c.sorted), -1 until computed
	lcsR      int32 // LCS(q.r, c.r), -1 until computed
	interDone bool
}

// same reports whether both strings equal their sorted token forms, so that
// the token_sort forms need no work of their own.
func (pc *pair) same() bool { return pc.q.same && pc.c.same }

// scratch is per-goroutine working memory.
type scratch struct {
	pb, pbRev *pattern // patterns of a choice-side string, allocated on first use
	pd        *pattern // pattern for token-set differences
	buf       []uint64
	mq        []bool // which query tokens are in the intersection
	ab, ba    []rune
	needs     *needs // the filter's cache, allocated on first use
}

// reset prepares pc for a new comparison of q with the choice c of shape cs.
func (pc *pair) reset(q *query, c *prepared, cs *shape) {
	pc.q, pc.c, pc.cs = q, c, cs
	pc.nI, pc.lenI, pc.lcsSorted, pc.lcsR, pc.inter = 0, 0, -1, -1, -1
	pc.interDone = false
}

// ub returns an upper bound of the LCS of any forms (or windows, or token
// subsets) of the pair's two texts.
func (pc *pair) ub() int {
	if pc.inter < 0 {
		pc.inter = int32(min(interBound(&pc.q.shp, pc.cs), math.MaxInt32-1))
	}
	return int(pc.inter)
}

// intersect computes the size and total token length of the token
// intersection of the pair, once.
func (s *scratch) intersect(pc *pair) {
	if pc.interDone {
		return
	}
	pc.interDone = true
	q := pc.q
	for _, id := range pc.c.toks {
		if q.bloom&(1<<(uint32(id)%64)) != 0 && q.find(id) >= 0 {
			pc.nI++
			pc.lenI += q.lens[id]
		}
	}
}

// ratio returns ratio(a, b) where pa is the pattern of a and ub bounds
// their LCS. If it computes the LCS, it stores it in *lcsOut.
func (s *scratch) ratio(pa *pattern, a, b []rune, ub int, cut float64, pr pruner, lcsOut *int32) float64 {
	n, m := len(a), len(b)
	if cut > 100 {
		return 0
	}
	if pr.skip(indelScore(n+m-2*min(ub, n, m), n+m)) {
		return 0
	}
	lcs := pa.lcs(b, &s.buf)
	*lcsOut = int32(lcs)
	return ratioCut(n+m-2*lcs, n+m, cut)
}

// sortedLCS returns LCS(q.sorted, c.sorted), computing it once.
func (s *scratch) sortedLCS(pc *pair) int {
	if pc.lcsSorted < 0 {
		if pc.same() && pc.lcsR >= 0 {
			pc.lcsSorted = pc.lcsR
		} else {
			pc.lcsSorted = int32(pc.q.patS().lcs(pc.c.sorted, &s.buf))
		}
	}
	return int(pc.lcsSorted)
}

// tokenSort is token_sort_ratio.
func (s *scratch) tokenSort(pc *pair, cut float64, pr pruner) float64 {
	q, c := pc.q, pc.c
	n, m := len(q.sorted), len(c.sorted)
	if cut > 100 {
		return 0
	}
	if pr.skip(indelScore(n+m-2*min(pc.ub(), n, m), n+m)) {
		return 0
	}
	return ratioCut(n+m-2*s.sortedLCS(pc), n+m, cut)
}

// tokenSet is token_set_ratio.
func (s *scratch) tokenSet(pc *pair, cut float64, pr pruner) float64 {
	q, c := pc.q, pc.c
	a, b := len(q.toks), len(c.toks)
	if cut > 100 || a == 0 || b == 0 {
		return 0
	}
	s.intersect(pc)
	nI, lenI := int(pc.nI), int(pc.lenI)
	if nI > 0 && (nI == a || nI == b) {
		return 100
	}
	ls := 0
	if nI > 0 {
		ls = lenI + nI - 1
	}
	la := q.tokLen - lenI + (a - nI - 1)
	lb := c.tokLen - lenI + (b - nI - 1)
	sep := 0
	if ls > 0 {
		sep = 1
	}
	lab, lba := ls+sep+la, ls+sep+lb
	best := 0.0
	if ls > 0 {
		best = max(normScore(sep+la, ls+lab, cut), normScore(sep+lb, ls+lba, cut))
		pr.raise(best)
	}
	total := lab + lba
	lcsUB := min(la, lb, pc.ub())
	if ub := normScore(la+lb-2*lcsUB, total, 0); ub <= best || pr.skip(ub) {
		return best
	}
	var lcs int
	if nI == 0 {
		if !q.dup && !c.dup {
			lcs = s.sortedLCS(pc)
		} else {
			lcs = q.patSet().lcs(c.set, &s.buf)
		}
	} else {
		s.mq = s.mq[:0]
		for range q.tokRunes {
			s.mq = append(s.mq, false)
		}
		for _, id := range c.toks {
			if i := q.find(id); i >= 0 {
				s.mq[i] = true
			}
		}
		s.ab = s.ab[:0]
		for i, t := range q.tokRunes {
			if !s.mq[i] {
				if len(s.ab) > 0 {
					s.ab = append(s.ab, ' ')
				}
				s.ab = append(s.ab, t...)
			}
		}
		s.ba = s.ba[:0]
		off := 0
		for _, id := range c.toks {
			l := int(q.lens[id])
			if q.find(id) < 0 {
				if len(s.ba) > 0 {
					s.ba = append(s.ba, ' ')
				}
				s.ba = append(s.ba, c.set[off:off+l]...)
			}
			off += l + 1
		}
		s.pd = reuse(s.pd, s.ab, false)
		lcs = s.pd.lcs(s.ba, &s.buf)
	}
	d := la + lb - 2*lcs
	r1 := 0.0
	if maxd := math.Ceil(float64(total) * (1 - cut/100)); float64(d) <= maxd {
		r1 = normScore(d, total, cut)
	}
	return max(best, r1)
}

// tokenRatio is max(token_set_ratio, token_sort_ratio).
func (s *scratch) tokenRatio(pc *pair, cut float64, pr pruner) float64 {
	if cut > 100 {
		return 0
	}
	ts := s.tokenSet(pc, cut, pr)
	pr.raise(ts)
	return max(ts, s.tokenSort(pc, cut, pr))
}

// partial is partial_ratio(a, b); pa and paRev return the patterns of a and
// of a reversed, built on demand;
// ub bounds the multiset intersection of their code points.
func (s *scratch) partial(a []rune, pa, paRev func() *pattern, b []rune, ub int, cut float64, pr pruner) float64 {
	if cut > 100 {
		return 0
	}
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		if n == 0 && m == 0 {
			return 100
		}
		return 0
	}
	if pr.skip(partialBound(min(n, m), ub)) {
		return 0
	}
	inter := min(ub, n, m)
	var best float64
	if n <= m {
		best = s.partialDir(pa(), paRev(), nil, b, inter, 0, pr)
	}
	if n >= m && best < 100 {
		s.pb = reuse(s.pb, b, false)
		best = s.partialDir(s.pb, nil, func() *pattern {
			s.pbRev = reuse(s.pbRev, b, true)
			return s.pbRev
		}, a, inter, best, pr)
	}
	if best >= cut {
		return best
	}
	return 0
}

// reuse builds the pattern of s (reversed if rev) in p, allocating p if nil.
func reuse(p *pattern, s []rune, rev bool) *pattern {
	if p == nil {
		p = new(pattern)
	}
	p.build(s, rev)
	return p
}

// partialBound bounds partial_ratio for a needle of length n whose code
// points meet the haystack's in inter places: a window of length k with an
// LCS of l <= min(k, inter) scores at most windowScore(n, l, l).
func partialBound(n, inter int) float64 {
	if inter >= n {
		return 100
	}
	return windowScore(n, inter, inter)
}

// minLCS returns the smallest LCS l of a full window (length n) whose score
// exceeds best and passes pr; n+1 if there is none.
func minLCS(n int, best float64, pr *pruner) int {
	lo, hi := 0, n+1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if sc := windowScore(n, n, mid); sc > best && !pr.skip(sc) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// affixes finds the best of the prefix (or suffix) windows of a needle of
// length n, fed in order of length k with their LCS l (which never
// decreases): only the shortest window of each LCS value can be the best, and
// windows compare as the exact fractions 2*l/(n+k).
type affixes struct {
	n, prev int
	bl, bk  int    // best fraction 2*bl/(n+bk)
	mask    uint64 // lowMask(n), for one-word states
}

func newAffixes(n int) affixes { return affixes{n: n, bk: 1, mask: lowMask(n)} }

// add feeds the window of length k, whose LCS is l.
func (a *affixes) add(l, k int) {
	if l > a.prev {
		a.prev = l
		if l*(a.n+a.bk) > a.bl*(a.n+k) {
			a.bl, a.bk = l, k
		}
	}
}

// add1 feeds the window of length k whose one-word LCS state is S.
func (a *affixes) add1(S uint64, k int) { a.add(bits.OnesCount64(^S&a.mask), k) }

// best returns the maximum of best and the best window's score.
func (a *affixes) best(best float64) float64 {
	if a.bl > 0 {
		best = max(best, windowScore(a.n, a.bk, a.bl))
	}
	return best
}

// partialDir returns the maximum of best and of ratio(N, w) over the windows w
// of h (SPEC section 2, step 4), where fwd is the pattern of the needle N,
// rev the pattern of N reversed or nil (then the reversed match vectors are
// derived from fwd, or built by buildRev for needles longer than 64 code
// points), inter bounds the LCS of N with any window, and
// len(h) >= len(N) > 0.
//
// Windows that cannot be the maximum are skipped: a window whose last (for
// suffixes, first) code point is not in N, and, since shifting a full window
// by one changes its LCS by at most one, the next needL-l-1 full windows
// after one with LCS l when needL is the LCS needed to matter. For the prefix
// and suffix windows, whose LCS grows by at most one per code point, only the
// shortest window of each LCS value can be the best; they are compared as
// exact fractions 2*lcs/(n+k), which order the same way as their scores.
func (s *scratch) partialDir(fwd, rev *pattern, buildRev func() *pattern, h []rune, inter int, best float64, pr pruner) float64 {
	n, m := fwd.n, len(h)
	ubShort := 0.0
	if ls := min(inter, n-1); ls > 0 {
		ubShort = windowScore(n, ls, ls)
	}

	// Prefixes h[0:k], 1 <= k < n: one forward pass.
	if ubShort > best && !pr.skip(ubShort) {
		aff := newAffixes(n)
		if fwd.nw == 1 {
			S := ^uint64(0)
			for k := 1; k < n; k++ {
				S = step1(S, fwd.mask1(h[k-1]))
				aff.add1(S, k)
			}
		} else {
			S := fwd.initState(&s.buf)
			for k := 1; k < n; k++ {
				if fwd.step(S, h[k-1]) {
					aff.add(fwd.count(S), k)
				}
			}
		}
		best = aff.best(best)
	}

	// Full windows h[i:i+n].
	if needL := minLCS(n, best, &pr); needL <= min(inter, n) {
		next := 0 // windows before next cannot reach needL
		for i := 0; i+n <= m; i++ {
			if i < next || fwd.index(h[i+n-1]) < 0 {
				continue
			}
			l := fwd.lcs(h[i:i+n], &s.buf)
			switch {
			case l == n:
				return 100
			case l >= needL:
				best = windowScore(n, n, l)
				needL = l + 1
			default:
				next = i + needL - l
			}
		}
	}

	// Suffixes h[m-k:m], 1 <= k < n: one backward pass with the reversed
	// needle; for one-word needles without a reversed pattern its match
	// vectors are the bit reversal of the forward ones.
	if ubShort > best && !pr.skip(ubShort) {
		aff := newAffixes(n)
		switch {
		case fwd.nw == 1 && rev != nil:
			S := ^uint64(0)
			for k := 1; k < n; k++ {
				S = step1(S, rev.mask1(h[m-k]))
				aff.add1(S, k)
			}
		case fwd.nw == 1:
			S := ^uint64(0)
			shift := uint(64 - n)
			for k := 1; k < n; k++ {
				S = step1(S, bits.Reverse64(fwd.mask1(h[m-k]))>>shift)
				aff.add1(S, k)
			}
		default:
			if rev == nil {
				rev = buildRev()
			}
			S := rev.initState(&s.buf)
			for k := 1; k < n; k++ {
				if rev.step(S, h[m-k]) {
					aff.add(rev.count(S), k)
				}
			}
		}
		best = aff.best(best)
	}
	return best
}

// partialTokenSort is partial_token_sort_ratio.
func (s *scratch) partialTokenSort(pc *pair, cut float64, pr pruner) float64 {
	q := pc.q
	return s.partial(q.sorted, q.patS, q.patSRev, pc.c.sorted, pc.ub(), cut, pr)
}

// partialTokenSet is partial_token_set_ratio.
func (s *scratch) partialTokenSet(pc *pair, cut float64, pr pruner) float64 {
	q, c := pc.q, pc.c
	if cut > 100 || len(q.toks) == 0 || len(c.toks) == 0 {
		return 0
	}
	s.intersect(pc)
	if pc.nI > 0 {
		return 100
	}
	return s.partial(q.set, q.patSet, q.patSetRev, c.set, pc.ub(), cut, pr)
}

// partialToken is partial_token_ratio.
func (s *scratch) partialToken(pc *pair, cut float64, pr pruner) float64 {
	q, c := pc.q, pc.c
	if cut > 100 {
		return 0
	}
	s.intersect(pc)
	if pc.nI > 0 {
		return 100
	}
	ub := pc.ub()
	r := s.partial(q.sorted, q.patS, q.patSRev, c.sorted, ub, cut, pr)
	if !q.dup && !c.dup {
		return r
	}
	pr.raise(r)
	return max(r, s.partial(q.set, q.patSet, q.patSetRev, c.set, ub, cut, pr))
}

// wratio is WRatio.
func (s *scratch) wratio(pc *pair, cut float64, pr pruner) float64 {
	q, c := pc.q, pc.c
	n, m := len(q.r), len(c.r)
	if cut > 100 || n == 0 || m == 0 {
		return 0
	}
	lenRatio := float64(max(n, m)) / float64(min(n, m))
	ubR := pc.ub()
	end := s.ratio(q.patR(), q.r, c.r, ubR, 0, pr, &pc.lcsR)
	sub := pruner{floor: max(end, pr.floor), lim: pr.lim}
	if lenRatio < 1.5 {
		sub.f1, sub.f2 = 0.95, 1
		end = max(end, s.tokenRatio(pc, 0, sub)*0.95)
	} else {
		scale := 0.9
		if lenRatio > 8 {
			scale = 0.6
		}
		s.intersect(pc)
		if pc.nI > 0 {
			end = max(end, 100*0.95*scale)
			sub.floor = max(end, sub.floor)
		}
		sub.f1, sub.f2 = scale, 1
		end = max(end, s.partial(q.r, q.patR, q.patRRev, c.r, ubR, 0, sub)*scale)
		// When both strings are their own sorted token forms without
		// duplicates, partial_token_ratio is partial_ratio again, which
		// scaled by 0.95 cannot raise end.
		if pc.nI == 0 && !(pc.same() && !q.dup && !c.dup) {
			sub.f1, sub.f2 = 0.95, scale
			sub.floor = max(end, sub.floor)
			end = max(end, s.partialToken(pc, 0, sub)*0.95*scale)
		}
	}
	if end >= cut {
		return end
	}
	return 0
}

// qratio is QRatio.
func (s *scratch) qratio(pc *pair, cut float64, pr pruner) float64 {
	q, c := pc.q, pc.c
	if len(q.r) == 0 || len(c.r) == 0 {
		return 0
	}
	return s.ratio(q.patR(), q.r, c.r, pc.ub(), cut, pr, &pc.lcsR)
}

// score dispatches to the scorer sc.
func (s *scratch) score(sc Scorer, pc *pair, cut float64, pr pruner) float64 {
	switch sc {
	case ScorerRatio:
		q, c := pc.q, pc.c
		return s.ratio(q.patR(), q.r, c.r, pc.ub(), cut, pr, &pc.lcsR)
	case ScorerPartialRatio:
		q, c := pc.q, pc.c
		return s.partial(q.r, q.patR, q.patRRev, c.r, pc.ub(), cut, pr)
	case ScorerTokenSortRatio:
		return s.tokenSort(pc, cut, pr)
	case ScorerTokenSetRatio:
		return s.tokenSet(pc, cut, pr)
	case ScorerTokenRatio:
		return s.tokenRatio(pc, cut, pr)
	case ScorerPartialTokenSortRatio:
		return s.partialTokenSort(pc, cut, pr)
	case ScorerPartialTokenSetRatio:
		return s.partialTokenSet(pc, cut, pr)
	case ScorerPartialTokenRatio:
		return s.partialToken(pc, cut, pr)
	case ScorerWRatio:
		return s.wratio(pc, cut, pr)
	case ScorerQRatio:
		return s.qratio(pc, cut, pr)
	}
	return 0
}

package fuzzy

import "math"

// Whole-text upper bounds, for skipping a choice before any of its scorer's
// work. Each is the scorer's own float expression applied to integer upper
// bounds of the LCSs it computes (from the shapes' histograms) and to the
// forms' lengths, following the scorer's branches, so, IEEE arithmetic being
// monotone, it is never below the score. Where a shared token decides a
// term (token_set is 100 when one token set holds the other,
// partial_token_set is 100 on any shared token), the bound of a choice that
// may share a token with the query takes that term as 100; the inverted
// token index says which choices may. TestTextBoundAboveScore and
// FuzzScorers check the bounds against the exact scores.

// tokenSensitive reports whether sc's bound depends on a shared token.
func tokenSensitive(sc Scorer) bool {
	switch sc {
	case ScorerTokenSetRatio, ScorerTokenRatio, ScorerPartialTokenSetRatio, ScorerPartialTokenRatio, ScorerWRatio:
		return true
	}
	return false
}

// ratioUB bounds ratio of strings of lengths n and m whose LCS is at most
// inter.
func ratioUB(n, m, inter int) float64 {
	return indelScore(n+m-2*min(inter, n, m), n+m)
}

// normUB bounds the token_set term norm(d, n+m) of two token differences of
// lengths n and m.
func normUB(n, m, inter int) float64 {
	return normScore(n+m-2*min(inter, n, m), n+m, 0)
}

// partialUB bounds partial_ratio of strings of lengths n and m.
func partialUB(n, m, inter int) float64 {
	if n == 0 || m == 0 {
		if n == 0 && m == 0 {
			return 100
		}
		return 0
	}
	return partialBound(min(n, m), min(inter, n, m))
}

// inters are upper bounds of LCSs of a query and a choice: all bounds
// every pair of their forms and windows; r, s and set bound the partial
// scorers' windows of the query's text, sorted tokens and distinct tokens
// when the choice's form is the shorter (the needle), and are all when
// nothing better is known.
type inters struct{ all, r, s, set int }

// same returns inters that are all inter.
func sameInters(inter int) inters { return inters{inter, inter, inter, inter} }

// textBound returns an upper bound of scorer sc's score of a query of shape
// q against a choice of shape c, where in bounds their LCSs; unless shared,
// the two must share no token.
func textBound(sc Scorer, q, c *shape, in inters, shared bool) float64 {
	if q.unbounded() || c.unbounded() {
		return 100
	}
	n, ns, nset := int(q.r), int(q.s), int(q.set)
	m, ms, mset := int(c.r), int(c.s), int(c.set)
	inter := in.all
	switch sc {
	case ScorerRatio:
		return ratioUB(n, m, inter)
	case ScorerQRatio:
		if n == 0 || m == 0 {
			return 0
		}
		return ratioUB(n, m, inter)
	case ScorerPartialRatio:
		return partialUB(n, m, in.r)
	case ScorerTokenSortRatio:
		return ratioUB(ns, ms, inter)
	case ScorerTokenSetRatio:
		return tokenSetUB(nset, mset, inter, shared)
	case ScorerTokenRatio:
		return max(tokenSetUB(nset, mset, inter, shared), ratioUB(ns, ms, inter))
	case ScorerPartialTokenSortRatio:
		return partialUB(ns, ms, in.s)
	case ScorerPartialTokenSetRatio:
		if nset == 0 || mset == 0 {
			return 0
		}
		return partialTokenSetUB(nset, mset, in.set, shared)
	case ScorerPartialTokenRatio:
		return max(partialUB(ns, ms, in.s), partialTokenSetUB(nset, mset, in.set, shared))
	case ScorerWRatio:
		if n == 0 || m == 0 {
			return 0
		}
		lenRatio := float64(max(n, m)) / float64(min(n, m))
		end := ratioUB(n, m, inter)
		if lenRatio < 1.5 {
			tr := max(tokenSetUB(nset, mset, inter, shared), ratioUB(ns, ms, inter))
			return max(end, tr*0.95)
		}
		scale := 0.9
		if lenRatio > 8 {
			scale = 0.6
		}
		end = max(end, partialUB(n, m, in.r)*scale)
		pt := max(partialUB(ns, ms, in.s), partialTokenSetUB(nset, mset, in.set, shared))
		return max(end, pt*0.95*scale)
	}
	return 100
}

// windowInters returns inters whose r, s and set use the query's window
// histograms (query.win) where the choice's form is the shorter.
func windowInters(q *query, c *shape, inter int) inters {
	in := sameInters(inter)
	if q.win == nil {
		return in
	}
	if m := int(c.r); m < int(q.shp.r) && m < len(q.win[0]) {
		in.r = min(inter, interBound(&q.win[0][m], c))
	}
	if m := int(c.s); m < int(q.shp.s) && m < len(q.win[1]) {
		in.s = min(inter, interBound(&q.win[1][m], c))
	}
	if m := int(c.set); m < int(q.shp.set) && m < len(q.win[2]) {
		in.set = min(inter, interBound(&q.win[2][m], c))
	}
	return in
}

// tokenSetUB bounds token_set_ratio of two texts whose distinct sorted
// tokens have lengths n and m (0: no tokens); with a shared token it may
// be 100.
func tokenSetUB(n, m, inter int, shared bool) float64 {
	switch {
	case n == 0 || m == 0:
		return 0
	case shared:
		return 100
	}
	return normUB(n, m, inter)
}

// partialTokenSetUB bounds partial_token_set_ratio of two texts with
// tokens (100 with a shared token), and so partial_token_ratio's second
// term.
func partialTokenSetUB(n, m, inter int, shared bool) float64 {
	if shared {
		return 100
	}
	return partialUB(n, m, inter)
}

// windowShapes returns, for every window length n from 0 to min(len(s),
// maxN), a shape whose histogram holds for each bucket the most code points
// of that bucket in any window of s of length n; it bounds the LCS of a
// needle of length n with any window partial_ratio compares it to (the
// shorter prefix and suffix windows lie inside full ones). Nil when s is
// too long for a shape.
func windowShapes(s []rune, maxN int) []shape {
	if len(s) >= shapeMax {
		return nil
	}
	top := min(len(s), maxN)
	out := make([]shape, top+1)
	b := make([]uint8, len(s))
	for i, c := range s {
		b[i] = uint8(bucket(c))
	}
	var cnt, most [64]int
	for n := 1; n <= top; n++ {
		clear(cnt[:])
		clear(most[:])
		for i, x := range b {
			cnt[x]++
			if i >= n {
				cnt[b[i-n]]--
			}
			most[x] = max(most[x], cnt[x])
		}
		sh := &out[n]
		extra := 0
		for x, k := range most {
			for t := range min(k, 4) {
				sh.m[t] |= 1 << uint(x)
			}
			extra += max(k-4, 0)
		}
		sh.extra = uint16(extra)
		sh.r, sh.s, sh.set = uint16(n), uint16(n), uint16(n)
	}
	return out
}

// needs caches, for one query, scorer and bar, the least LCS bound
// (interBound) with which a choice of given form lengths can reach the bar:
// textBound is monotone in it, so a choice whose interBound is below its
// need cannot reach the bar (if it shares no token with the query). Choices
// of the same lengths share the entry, so the scan of every choice costs a
// table look-up and a popcount instead of textBound's divisions.
type needs struct {
	v     float64 // the bar the entries are for
	ver   uint32  // entries of another version are stale
	slots [1024]needSlot
}

type needSlot struct {
	key  uint64 // the lengths (r, s, set) packed, plus 1
	ver  uint32
	need int32
}

// noNeed is the need of lengths that cannot reach the bar at all.
const noNeed = math.MaxInt32

// setBar makes the entries hold for the bar v.
func (nd *needs) setBar(v float64) {
	if v != nd.v || nd.ver == 0 {
		nd.v = v
		nd.ver++
	}
}

// lenKey packs the lengths of sh and whether it shares a token with the
// query into a non-zero key.
func (sh *shape) lenKey(shared bool) uint64 {
	k := uint64(sh.r) | uint64(sh.s)<<16 | uint64(sh.set)<<32 | 1<<48
	if shared {
		k |= 1 << 49
	}
	return k
}

// need returns the least interBound with which a choice of shape cs may
// score at least the bar under sc against q (0 if cs is unbounded, noNeed
// if no interBound suffices), and caches it.
func (nd *needs) need(q *shape, sc Scorer, cs *shape, shared bool) int {
	key := cs.lenKey(shared)
	sl := &nd.slots[(key*0x9E3779B97F4A7C15)>>54]
	if sl.key == key && sl.ver == nd.ver {
		return int(sl.need)
	}
	v := nd.v
	lens := shape{r: cs.r, s: cs.s, set: cs.set}
	hi := max(int(q.r), int(cs.r))
	need := noNeed
	if textBound(sc, q, &lens, sameInters(hi), shared) >= v {
		lo := 0
		for lo < hi {
			mid := (lo + hi) / 2
			if textBound(sc, q, &lens, sameInters(mid), shared) >= v {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		need = lo
	}
	*sl = needSlot{key: key, ver: nd.ver, need: int32(need)}
	return need
}

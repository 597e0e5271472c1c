package fuzzy

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Match is one result of an extraction.
type Match struct {
	// Index is the position of the choice in the texts given to NewChoices.
	Index int `json:"index"`
	// Score is the scorer's value, in [0, 100].
	Score float64 `json:"score"`
}

// GroupMatch is one result of Choices.ExtractGroups.
type GroupMatch struct {
	// Group is the group value given to NewGroupedChoices.
	Group int `json:"group"`
	// Index is the text of the group that scored best; among equal scores,
	// the one with the lowest index.
	Index int `json:"index"`
	// Score is the best score over the group's texts.
	Score float64 `json:"score"`
}

// Choices is a list of texts processed once for repeated extraction: the
// processed code points, the sorted and de-duplicated token forms, the token
// ids and an inverted token index. Only the query is processed per call.
//
// A Choices is immutable and safe for concurrent use. To change the texts,
// build a new one.
//
// Texts may be grouped: each group is one owner (a concept, say) with several
// texts (its label and aliases), and ExtractGroups scores a group by the best
// of its texts. Ungrouped choices behave as groups of one text each, whose
// group value is the text index.
type Choices struct {
	proc  Processor
	items []prepared
	// shapes[i] is the shape of items[i], apart so that a scan of them
	// reads 40 bytes a text.
	shapes []shape
	dict   *dictionary
	maxLen int // the longest processed text, in code points

	// gstart[g] is the first text of group ordinal g; gstart[G] = len(items).
	gstart []int32
	// gval[g] is the caller's value of group ordinal g; nil when ungrouped.
	gval []int

	// Postings of token id t: the group ordinals whose texts contain t,
	// ascending and distinct: post[postOff[t]:postOff[t+1]].
	postOff []int32
	post    []int32

	workers int  // 0 means runtime.GOMAXPROCS(0)
	noPrune bool // for tests: score every choice exactly
}

// NewChoices processes texts with processor (nil for none) and returns them
// ready for extraction. Match.Index refers to positions in texts. Large
// lists are processed by several goroutines: processor must be safe for
// concurrent use (DefaultProcess is).
func NewChoices(texts []string, processor Processor) *Choices {
	gstart := make([]int32, len(texts)+1)
	for i := range gstart {
		gstart[i] = int32(i)
	}
	return build(texts, processor, gstart, nil)
}

// NewGroupedChoices is NewChoices with texts grouped by owner: groups[i] is
// the group of texts[i]. Groups must be non-decreasing, so that the texts of
// one group are adjacent; the order of the group values is the tie-break
// order of ExtractGroups (lower first). Number the owners in the order you
// want ties broken.
func NewGroupedChoices(texts []string, groups []int, processor Processor) (*Choices, error) {
	if len(groups) != len(texts) {
		return nil, fmt.Errorf("%d groups for %d texts: %w", len(groups), len(texts), ErrInvalidArgument)
	}
	gstart := []int32{}
	var gval []int
	for i, g := range groups {
		if i > 0 && g < groups[i-1] {
			return nil, fmt.Errorf("groups decrease at index %d (%d after %d): %w", i, g, groups[i-1], ErrInvalidArgument)
		}
		if i == 0 || g != groups[i-1] {
			gstart = append(gstart, int32(i))
			gval = append(gval, g)
		}
	}
	gstart = append(gstart, int32(len(texts)))
	return build(texts, processor, gstart, gval), nil
}

func build(texts []string, processor Processor, gstart []int32, gval []int) *Choices {
	if len(texts) > math.MaxInt32-1 {
		panic("fuzzy: too many choices")
	}
	c := &Choices{proc: processor, gstart: gstart, gval: gval}
	c.items = make([]prepared, len(texts))
	c.shapes = make([]shape, len(texts))

	// The texts are prepared in parts, side by side, each with its own
	// token dictionary; the first part's becomes the Choices' and the
	// others' tokens are added to it in their id order, so the ids do not
	// depend on the scheduling.
	parts := min(runtime.GOMAXPROCS(0), max(1, len(texts)/buildPart))
	dicts := make([]*dictionary, parts)
	maxLens := make([]int, parts)
	bound := func(w int) int { return len(texts) * w / parts }
	var wg sync.WaitGroup
	for w := range parts {
		wg.Go(func() { dicts[w], maxLens[w] = c.prepareRange(texts, bound(w), bound(w+1)) })
	}
	wg.Wait()
	c.dict, c.maxLen = dicts[0], slices.Max(maxLens)
	for w := 1; w < parts; w++ {
		d := dicts[w]
		keys := make([]string, len(d.lens))
		for k, id := range d.ids {
			keys[id] = k
		}
		remap := make([]int32, len(keys))
		for id, k := range keys {
			remap[id] = c.dict.internKey(k, d.lens[id])
		}
		for i := bound(w); i < bound(w+1); i++ {
			for j, id := range c.items[i].toks {
				c.items[i].toks[j] = remap[id]
			}
		}
	}

	// Inverted index from token id to group ordinals.
	nt := len(c.dict.lens)
	counts := make([]int32, nt+1)
	last := make([]int32, nt)
	for i := range last {
		last[i] = -1
	}
	c.forTokens(func(g int32, id int32) {
		if last[id] != g {
			last[id] = g
			counts[id+1]++
		}
	})
	for t := 1; t <= nt; t++ {
		counts[t] += counts[t-1]
	}
	c.postOff = counts
	c.post = make([]int32, counts[nt])
	fill := slices.Clone(counts[:nt])
	for i := range last {
		last[i] = -1
	}
	c.forTokens(func(g int32, id int32) {
		if last[id] != g {
			last[id] = g
			c.post[fill[id]] = g
			fill[id]++
		}
	})
	return c
}

// buildPart is the least number of texts worth a goroutine of their own
// when Choices are built.
const buildPart = 1 << 14

// prepareRange prepares texts[lo:hi] into c.items and c.shapes with a
// token dictionary of their own, which it returns with their greatest
// length.
func (c *Choices) prepareRange(texts []string, lo, hi int) (*dictionary, int) {
	d := newDictionary()
	runes := arena[rune]{chunk: 1 << 16}
	ids := arena[int32]{chunk: 1 << 14}
	var toks [][]rune // prepare's scratch
	maxLen := 0
	for i := lo; i < hi; i++ {
		p := c.proc.apply(texts[i])
		r := runes.take(utf8.RuneCountInString(p))[:0]
		for _, x := range p {
			r = append(r, x)
		}
		prepare(&c.items[i], r, &runes, &ids, d.intern, &toks)
		c.shapes[i] = makeShape(&c.items[i])
		maxLen = max(maxLen, len(r))
	}
	return d, maxLen
}

// forTokens calls f for every (group ordinal, token id) of every text, in
// group order.
func (c *Choices) forTokens(f func(g, id int32)) {
	for g := 0; g+1 < len(c.gstart); g++ {
		for t := c.gstart[g]; t < c.gstart[g+1]; t++ {
			for _, id := range c.items[t].toks {
				f(int32(g), id)
			}
		}
	}
}

// Len returns the number of texts.
func (c *Choices) Len() int { return len(c.items) }

// Groups returns the number of groups (Len for ungrouped choices).
func (c *Choices) Groups() int { return len(c.gstart) - 1 }

// WithWorkers returns a Choices sharing c's data that extracts with n
// goroutines; n <= 0 means runtime.GOMAXPROCS(0), the default. Results do not
// depend on the number of workers.
func (c *Choices) WithWorkers(n int) *Choices {
	d := *c
	d.workers = max(n, 0)
	return &d
}

// Extract returns the choices that score at least cutoff against query,
// best first (score descending, then index ascending), at most limit of them
// (limit < 0: all; limit == 0: none). It is rapidfuzz's
// process.extract(query, choices, scorer=scorer, processor=processor,
// limit=limit, score_cutoff=cutoff) on the compiled path: the query goes
// through the Choices' processor, choices scoring 0 are kept when cutoff is
// 0, and cutoff is rounded to float32 as the C++ extractor stores it.
// cutoff must lie in [0, 100].
//
// The work is split across goroutines and pruned with the current k-th best
// score; the result is identical to scoring every choice.
func (c *Choices) Extract(ctx context.Context, query string, scorer Scorer, limit int, cutoff float64) ([]Match, error) {
	if !c.ungrouped() {
		return nil, fmt.Errorf("extract from grouped choices (use ExtractGroups): %w", ErrInvalidArgument)
	}
	hits, err := c.run(ctx, query, scorer, limit, cutoff)
	if err != nil {
		return nil, err
	}
	out := make([]Match, len(hits))
	for i, h := range hits {
		out[i] = Match{Index: int(h.idx), Score: h.score}
	}
	return out, nil
}

// ExtractOne returns the best choice, as rapidfuzz's process.extractOne:
// the highest score at least cutoff, the first one among equal scores. The
// boolean is false when no choice reaches cutoff or there are no choices.
func (c *Choices) ExtractOne(ctx context.Context, query string, scorer Scorer, cutoff float64) (Match, bool, error) {
	m, err := c.Extract(ctx, query, scorer, 1, cutoff)
	if err != nil || len(m) == 0 {
		return Match{}, false, err
	}
	return m[0], true, nil
}

// ExtractGroups is Extract over groups: a group's score is the best score of
// its texts, and Index names the text that reached it (the lowest index among
// equal scores). Groups are ordered by score descending, then by group value
// ascending. On ungrouped choices the group value is the text index.
func (c *Choices) ExtractGroups(ctx context.Context, query string, scorer Scorer, limit int, cutoff float64) ([]GroupMatch, error) {
	hits, err := c.run(ctx, query, scorer, limit, cutoff)
	if err != nil {
		return nil, err
	}
	out := make([]GroupMatch, len(hits))
	for i, h := range hits {
		g := int(h.g)
		if c.gval != nil {
			g = c.gval[g]
		}
		out[i] = GroupMatch{Group: g, Index: int(h.idx), Score: h.score}
	}
	return out, nil
}

func (c *Choices) ungrouped() bool { return c.gval == nil }

// hit is a scored group: its ordinal, its best text and score.
type hit struct {
	score float64
	g     int32
	idx   int32
}

// better orders hits: score descending, then group ordinal ascending.
func better(a, b hit) bool {
	return a.score > b.score || a.score == b.score && a.g < b.g
}

// topK keeps the k best hits in a heap whose root is the worst.
type topK struct {
	k int
	h []hit
}

func (t *topK) full() bool { return len(t.h) >= t.k }

// bar returns the limit a score of group g must pass to enter a full heap.
func (t *topK) bar(g int32) limit {
	w := t.h[0]
	return limit{v: w.score, strict: g > w.g}
}

// push adds x, which must beat the worst hit if the heap is full.
func (t *topK) push(x hit) {
	if len(t.h) < t.k {
		t.h = append(t.h, x)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !better(t.h[p], t.h[i]) {
				break
			}
			t.h[p], t.h[i] = t.h[i], t.h[p]
			i = p
		}
		return
	}
	t.h[0] = x
	for i := 0; ; {
		l, r, w := 2*i+1, 2*i+2, i
		if l < len(t.h) && better(t.h[w], t.h[l]) {
			w = l
		}
		if r < len(t.h) && better(t.h[w], t.h[r]) {
			w = r
		}
		if w == i {
			return
		}
		t.h[i], t.h[w] = t.h[w], t.h[i]
		i = w
	}
}

// blockSize is the number of groups a worker takes at a time.
const blockSize = 1024

// run is the extraction engine behind Extract and ExtractGroups.
func (c *Choices) run(ctx context.Context, query string, scorer Scorer, lim int, cutoff float64) ([]hit, error) {
	if !scorer.Valid() {
		return nil, fmt.Errorf("scorer %d: %w", uint8(scorer), ErrInvalidArgument)
	}
	if math.IsNaN(cutoff) || cutoff < 0 || cutoff > 100 {
		return nil, fmt.Errorf("score cutoff %v outside [0, 100]: %w", cutoff, ErrInvalidArgument)
	}
	cut := float64(float32(cutoff))
	ng := len(c.gstart) - 1
	k := lim
	if k < 0 || k > ng {
		k = ng
	}
	if k == 0 {
		return nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := newQuery([]rune(c.proc.apply(query)), c.dict.lookup)
	q.lens = c.dict.lens
	q.buildAll()

	// Groups are first bounded by their shapes alone (bound.go); shared
	// marks those sharing a token with the query, for the scorers where
	// that matters.
	on := !c.noPrune && !q.shp.unbounded()
	var shared []uint64
	if on {
		q.buildWindows(c.maxLen)
		if tokenSensitive(scorer) {
			shared = c.sharedGroups(q)
		}
	}

	// Phase 1: the groups that share a rare token with the query are likely
	// to score high; scoring them first fills the heap with a high bar.
	var seeds []int32
	seed := &topK{k: k}
	if !c.noPrune && 8*k <= ng {
		seeds = c.seedGroups(q, k)
		var s scratch
		f := filterOff
		if on {
			f = filterShared
		}
		for i, g := range seeds {
			if i%256 == 255 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			c.scoreGroup(&s, q, scorer, g, cut, seed, nil, f)
		}
	}

	// Phase 2: every other group, in blocks shared by the workers.
	workers := c.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nblocks := (ng + blockSize - 1) / blockSize
	workers = max(1, min(workers, nblocks))
	var next atomic.Int64
	tops := make([]*topK, workers)
	errs := make([]error, workers)
	work := func(w int) {
		var s scratch
		top := &topK{k: k}
		tops[w] = top
		for {
			b := int(next.Add(1) - 1)
			lo := b * blockSize
			if lo >= ng {
				return
			}
			if err := ctx.Err(); err != nil {
				errs[w] = err
				return
			}
			c.scanBlock(&s, q, scorer, lo, min(lo+blockSize, ng), seeds, shared, on, cut, top, seed)
		}
	}
	if workers == 1 {
		work(0)
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { work(w) })
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}

	all := seed.h
	for _, t := range tops {
		all = append(all, t.h...)
	}
	slices.SortFunc(all, func(a, b hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	if len(all) > k {
		all = all[:k]
	}
	return all, nil
}

// filter says what scoreGroup knows of a group to skip texts by their
// shapes (bound.go) before any scoring.
type filter uint8

const (
	filterOff    filter = iota // score every text
	filterApart                // the group shares no token with the query
	filterShared               // the group may share a token with the query
)

// scoreGroup scores the texts of group g and offers the best to top. A text
// must score at least cut, beat the worst hit of a full top and of a full
// seed heap, and beat the group's earlier texts; unless f is filterOff, a
// text whose textBound cannot do so is skipped without scoring.
func (c *Choices) scoreGroup(s *scratch, q *query, scorer Scorer, g int32, cut float64, top, seed *topK, f filter) {
	bar := limit{v: cut}
	if seed != nil && seed.full() {
		bar = bar.tighter(seed.bar(g))
	}
	if top.full() {
		bar = bar.tighter(top.bar(g))
	}
	shared := f == filterShared
	var pc pair
	best := hit{g: g, idx: -1}
	for t := c.gstart[g]; t < c.gstart[g+1]; t++ {
		l := bar
		if best.idx >= 0 {
			l = l.tighter(limit{v: best.score, strict: true})
		}
		cs := &c.shapes[t]
		inter := -1
		if f != filterOff {
			inter = interBound(&q.shp, cs)
			if l.cannot(textBound(scorer, &q.shp, cs, sameInters(inter), shared)) ||
				l.cannot(textBound(scorer, &q.shp, cs, windowInters(q, cs, inter), shared)) {
				continue
			}
		}
		pc.reset(q, &c.items[t], cs)
		pc.inter = int32(inter)
		pr := noPrune
		if !c.noPrune {
			pr.lim = l
		}
		if sc := s.score(scorer, &pc, cut, pr); sc >= cut && !l.cannot(sc) {
			best.score, best.idx = sc, t
		}
	}
	if best.idx >= 0 {
		top.push(best)
	}
}

// scanBlock scores the groups lo to hi-1 but the seeds into top. Unless
// on is false, each group is first tested against the bar with needs (a
// table look-up and a popcount a text), which is all most groups cost;
// shared marks the groups that share a token with the query (nil: no
// scorer of tokens, none counts as sharing).
func (c *Choices) scanBlock(s *scratch, q *query, scorer Scorer, lo, hi int, seeds []int32, shared []uint64, on bool, cut float64, top, seed *topK) {
	si := sort.Search(len(seeds), func(i int) bool { return int(seeds[i]) >= lo })
	if s.needs == nil {
		s.needs = new(needs)
	}
	nd := s.needs
	nd.setBar(floorOf(cut, top, seed))
	f := filterOff
	for g := lo; g < hi; g++ {
		if si < len(seeds) && int(seeds[si]) == g {
			si++
			continue
		}
		if on {
			f = filterApart
			if shared != nil && shared[uint(g)/64]&(1<<(uint(g)%64)) != 0 {
				f = filterShared
			}
			if t := c.gstart[g]; c.gstart[g+1] == t+1 {
				// One text, the common case: mayPass inline.
				cs := &c.shapes[t]
				key := cs.lenKey(f == filterShared)
				sl := &nd.slots[(key*0x9E3779B97F4A7C15)>>54]
				need := int(sl.need)
				if sl.key != key || sl.ver != nd.ver {
					need = nd.need(&q.shp, scorer, cs, f == filterShared)
				}
				if need == noNeed || need > 0 && interCount(&q.shp, cs) < need {
					continue
				}
			} else if !c.mayPass(nd, q, scorer, g, f == filterShared) {
				continue
			}
		}
		c.scoreGroup(s, q, scorer, int32(g), cut, top, seed, f)
		nd.setBar(floorOf(cut, top, seed))
	}
}

// mayPass reports whether a text of group g may reach the bar of nd.
func (c *Choices) mayPass(nd *needs, q *query, scorer Scorer, g int, shared bool) bool {
	for t := c.gstart[g]; t < c.gstart[g+1]; t++ {
		cs := &c.shapes[t]
		key := cs.lenKey(shared)
		sl := &nd.slots[(key*0x9E3779B97F4A7C15)>>54]
		need := int(sl.need)
		if sl.key != key || sl.ver != nd.ver {
			need = nd.need(&q.shp, scorer, cs, shared)
		}
		if need != noNeed && (need == 0 || interCount(&q.shp, cs) >= need) {
			return true
		}
	}
	return false
}

// floorOf returns the least score a group may need to enter top: the
// largest of cut and the worst scores of the full heaps (ties aside).
func floorOf(cut float64, top, seed *topK) float64 {
	v := cut
	if seed != nil && seed.full() {
		v = max(v, seed.h[0].score)
	}
	if top.full() {
		v = max(v, top.h[0].score)
	}
	return v
}

// sharedGroups returns the set of groups (a bit per group ordinal) with a
// text that holds one of the query's tokens.
func (c *Choices) sharedGroups(q *query) []uint64 {
	set := make([]uint64, (len(c.gstart)+63)/64)
	for _, id := range q.toks {
		if id >= 0 {
			for _, g := range c.post[c.postOff[id]:c.postOff[id+1]] {
				set[g/64] |= 1 << (g % 64)
			}
		}
	}
	return set
}

// seedGroups returns, ascending, the groups that contain one of the query's
// rarest tokens, at most a few times k of them.
func (c *Choices) seedGroups(q *query, k int) []int32 {
	ng := len(c.gstart) - 1
	budget := min(max(4*k, 256, ng/128), ng/4)
	var lists [][]int32
	for _, id := range q.toks {
		if id >= 0 {
			lists = append(lists, c.post[c.postOff[id]:c.postOff[id+1]])
		}
	}
	slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
	var seeds []int32
	for _, l := range lists {
		if len(seeds)+len(l) > budget {
			break
		}
		seeds = append(seeds, l...)
	}
	slices.Sort(seeds)
	return slices.Compact(seeds)
}

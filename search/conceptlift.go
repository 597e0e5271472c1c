package search

import (
	"cmp"
	"context"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// Concept lifting: a query that names a concept of the registry (its label
// or an alias, as the words of the query or one typo away) lifts, in hybrid
// mode, the notes that link the concept and its page, and adds those full
// text did not find. The registry is the user's own map of what notes are
// about: "k8s" names Kubernetes even where no note spells it that way.

// Limits of concept lifting.
const (
	// maxSpanWords is the longest run of query words matched against
	// concept names.
	maxSpanWords = 4
	// maxLiftConcepts caps the concepts one query lifts.
	maxLiftConcepts = 4
	// minFuzzyRunes is the shortest name matched one typo away: shorter
	// names are too often another word.
	minFuzzyRunes = 5
	// fuzzyQuality is a typo match's strength against an exact one's 1.
	fuzzyQuality = 0.75
)

// conceptMatch is a concept the query names and how surely.
type conceptMatch struct {
	id      string
	quality float64
}

// conceptNames is the registry's keys, loaded once per registry version,
// with a deletion index for one-typo matching: every key of
// minFuzzyRunes or more runes under itself and each of its one-rune
// deletions (two strings one edit or one adjacent swap apart share an
// entry).
//
// It is compact (issue 21: a map of every deletion string held 2.5 KB a
// key, 2.5 GB at a million concepts): the keys and ids live in two string
// arenas, the exact index is the sorted 64-bit hashes of the keys, and the
// deletion index the sorted 32-bit hashes of the deletions, each packed
// with its key's index — about 8 bytes a deletion. A hash only nominates;
// the key itself is compared (exact) or checked with oneEdit (one typo),
// so answers are those of the maps the index replaces.
type conceptNames struct {
	mu sync.Mutex
	// building is set while a call builds the names (a server's warm-up,
	// at a million concepts seconds): a search does not wait for it.
	building atomic.Bool
	version  string
	loaded   bool
	seed     maphash.Seed
	keys     arena // registry order
	ids      arena // ids.at(i) owns keys.at(i)
	// exact is hash(key)<<32 | index for every key, sorted.
	exact []keyHash
	// deleted is uint32(hash(d))<<32 | index for every key of
	// minFuzzyRunes runes or more and every d among its deletions,
	// sorted.
	deleted []uint64
}

// keyHash is a key's 64-bit hash and its index in the registry order.
type keyHash struct {
	h uint64
	i int32
}

// arena holds many strings in one: string i is s[off[i]:off[i+1]]. It is
// filled with add, then frozen with freeze before at is used.
type arena struct {
	b   []byte
	s   string
	off []uint32
}

func (a *arena) add(s string) {
	if a.off == nil {
		a.off = []uint32{0}
	}
	a.b = append(a.b, s...)
	a.off = append(a.off, uint32(len(a.b)))
}

// freeze makes the strings readable and drops spare capacity.
func (a *arena) freeze() {
	a.s, a.b, a.off = string(a.b), nil, slices.Clip(a.off)
}

func (a *arena) at(i int) string { return a.s[a.off[i]:a.off[i+1]] }

func (a *arena) len() int { return max(0, len(a.off)-1) }

// namesFor returns the registry's names at the current version (tv's,
// when the search's ranking read it; tv may be nil). With wait false it
// returns nil instead of waiting while another call builds them.
func (s *Service) namesFor(ctx context.Context, wait bool, tv *textVersion) (*conceptNames, error) {
	var version string
	if tv != nil && tv.conceptsRead {
		version = tv.concepts
	} else {
		var err error
		if version, err = s.DB.SearchConceptsVersion(ctx); err != nil {
			return nil, err
		}
	}
	c := &s.names
	if !wait && c.building.Load() {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded && c.version == version {
		return c, nil
	}
	c.building.Store(true)
	defer c.building.Store(false)
	// Drop the old index before building the new one: only one is held.
	c.loaded, c.keys, c.ids, c.exact, c.deleted = false, arena{}, arena{}, nil, nil
	if err := c.build(func(fn func(key, id string)) error { return s.DB.SearchConceptKeys(ctx, fn) }); err != nil {
		return nil, err
	}
	c.version, c.loaded = version, true
	return c, nil
}

// build fills c with the keys (and their concepts' ids) load gives, in
// registry order.
func (c *conceptNames) build(load func(fn func(key, id string)) error) error {
	c.seed = maphash.MakeSeed()
	var keys, ids arena
	var exact []keyHash
	var deleted []uint64
	err := load(func(key, id string) {
		i := keys.len()
		if i >= math.MaxInt32 || len(keys.b)+len(key) > math.MaxUint32 {
			return
		}
		keys.add(key)
		ids.add(id)
		exact = append(exact, keyHash{maphash.String(c.seed, key), int32(i)})
		if utf8.RuneCountInString(key) < minFuzzyRunes {
			return
		}
		eachDeletion(c.seed, key, func(h uint64) {
			deleted = append(deleted, h>>32<<32|uint64(uint32(i)))
		})
	})
	if err != nil {
		return err
	}
	slices.SortFunc(exact, func(a, b keyHash) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	slices.Sort(deleted)
	keys.freeze()
	ids.freeze()
	c.keys, c.ids = keys, ids
	c.exact, c.deleted = slices.Clip(exact), slices.Clip(slices.Compact(deleted))
	return nil
}

// eachDeletion calls fn with the hash of s and of every string s gives
// with one rune deleted, without building those strings.
func eachDeletion(seed maphash.Seed, s string, fn func(h uint64)) {
	fn(maphash.String(seed, s))
	var h maphash.Hash
	h.SetSeed(seed)
	for i, r := range s {
		h.Reset()
		h.WriteString(s[:i])
		h.WriteString(s[i+utf8.RuneLen(r):])
		fn(h.Sum64())
	}
}

// match returns the concepts words name: runs of up to maxSpanWords
// words, longest first, each word in at most one match; a run of stop
// words alone names nothing. An exact key scores 1, a key one edit or one
// adjacent swap away (both at least minFuzzyRunes runes) fuzzyQuality, and
// only when typo(run) says the run is misspelt (a run of real words,
// "basic" for "basil", names nothing). When spelt(run) already knows that
// it is not (every word in some note, by counts at hand), the keys one typo
// away are not looked up.
func (c *conceptNames) match(words []string, typo, spelt func([]string) bool) ([]conceptMatch, float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	used := make([]bool, len(words))
	best := map[string]float64{}
	var order []string
	add := func(id string, q float64) {
		if _, ok := best[id]; !ok {
			order = append(order, id)
		}
		best[id] = max(best[id], q)
	}
	for n := min(maxSpanWords, len(words)); n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			if anyUsed(used[i:i+n]) || allStop(words[i:i+n]) {
				continue
			}
			key := vault.Key(strings.Join(words[i:i+n], " "))
			if key == "" {
				continue
			}
			id, q := c.lookup(key, !spelt(words[i:i+n]))
			if id == "" || q < 1 && !typo(words[i:i+n]) {
				continue
			}
			add(id, q)
			for k := i; k < i+n; k++ {
				used[k] = true
			}
		}
	}
	out := make([]conceptMatch, 0, len(order))
	for _, id := range order {
		out = append(out, conceptMatch{id: id, quality: best[id]})
	}
	if len(out) > maxLiftConcepts {
		out = out[:maxLiftConcepts]
	}
	return out, coverage(words, used)
}

// coverage is the share of the query's content words (stop words left
// out) that used marks as part of a concept name: 1 when the query is
// nothing but names, 0 when it names none.
func coverage(words []string, used []bool) float64 {
	content, named := 0, 0
	for i, w := range words {
		if stopWords[strings.ToLower(w)] {
			continue
		}
		content++
		if used[i] {
			named++
		}
	}
	if content == 0 {
		return 0
	}
	return float64(named) / float64(content)
}

// lookup returns the concept key names exactly (quality 1) or, with
// fuzzy, one typo away (fuzzyQuality, the first such key in registry
// order); "" for none.
func (c *conceptNames) lookup(key string, fuzzy bool) (string, float64) {
	h := maphash.String(c.seed, key)
	found := -1
	for j, _ := slices.BinarySearchFunc(c.exact, h, func(e keyHash, h uint64) int { return cmp.Compare(e.h, h) }); j < len(c.exact) && c.exact[j].h == h; j++ {
		if i := int(c.exact[j].i); c.keys.at(i) == key {
			found = i // the last of equal keys, as a map filled in order keeps
		}
	}
	if found >= 0 {
		return c.ids.at(found), 1
	}
	if !fuzzy || utf8.RuneCountInString(key) < minFuzzyRunes {
		return "", 0
	}
	eachDeletion(c.seed, key, func(h uint64) {
		hi := h >> 32 << 32
		j, _ := slices.BinarySearch(c.deleted, hi)
		for ; j < len(c.deleted) && c.deleted[j]>>32<<32 == hi; j++ {
			i := int(uint32(c.deleted[j]))
			if found >= 0 && i >= found {
				break // sorted by index within a hash
			}
			if oneEdit(key, c.keys.at(i)) {
				found = i
			}
		}
	})
	if found < 0 {
		return "", 0
	}
	return c.ids.at(found), fuzzyQuality
}

// oneEdit reports whether a and b differ by one inserted, deleted or
// replaced rune, or by two adjacent runes swapped.
func oneEdit(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
	switch len(ra) - len(rb) {
	case 0:
		var diff []int
		for i := range ra {
			if ra[i] != rb[i] {
				diff = append(diff, i)
				if len(diff) > 2 {
					return false
				}
			}
		}
		switch len(diff) {
		case 1:
			return true
		case 2:
			i, j := diff[0], diff[1]
			return j == i+1 && ra[i] == rb[j] && ra[j] == rb[i]
		}
		return false
	case 1:
		i := 0
		for i < len(rb) && ra[i] == rb[i] {
			i++
		}
		return string(ra[i+1:]) == string(rb[i:])
	}
	return false
}

func anyUsed(b []bool) bool {
	for _, x := range b {
		if x {
			return true
		}
	}
	return false
}

func allStop(words []string) bool {
	for _, w := range words {
		if !stopWords[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// queryWords returns the words of raw (and its CJK runs) in order, for
// concept matching.
func queryWords(raw string) []string {
	var out []string
	for _, t := range tokenize(raw) {
		if !operators[t.text] {
			out = append(out, t.text)
		}
		if len(out) == MaxTerms {
			break
		}
	}
	return out
}

// ConceptsLoading is the warning of a hybrid search answered while the
// concept names its words are matched against are being loaded (a server
// that started moments ago): notes linking a concept the query names are
// not lifted.
const ConceptsLoading = "the concept names are still being loaded (the server started moments ago), so notes linking a concept the query names are not lifted in this answer; ask again in a few seconds"

// liftConcepts adds the concept signal to the hybrid candidates: each
// note linking a concept the query names (or its page) gets the match's
// quality (c.concept), and those not found yet are added. cover is the
// share of the query's content words the names matched (coverage): above
// 0 exactly when the query names a concept.
//
// While a server's warm-up builds the names (at a million concepts, seconds
// after it starts) it does not wait: it lifts nothing and returns the
// ConceptsLoading warning.
func (s *Service) liftConcepts(ctx context.Context, tv *textVersion, raw string, f noema.SearchFilter, get func(int64) *candidate) (cover float64, warn string, err error) {
	if s.Tuning.ConceptWeight <= 0 {
		return 0, "", nil
	}
	words := queryWords(raw)
	if len(words) == 0 {
		return 0, "", nil
	}
	names, err := s.namesFor(ctx, false, tv)
	if err != nil {
		return 0, "", err
	}
	if names == nil {
		return 0, ConceptsLoading, nil
	}
	var typoErr error
	matches, cover := names.match(words, func(run []string) bool {
		// Misspelt: some word of the run is in no note.
		docs, _, err := s.termDocs(ctx, tv, termExprs(run))
		if err != nil {
			typoErr = err
			return false
		}
		return slices.Contains(docs, 0)
	}, func(run []string) bool {
		// Every word in some note by the counts cached at the version
		// the search read: no typo, and no statement to tell.
		docs, ok := s.cachedDocs(tv, termExprs(run))
		return ok && !slices.Contains(docs, 0)
	})
	if typoErr != nil {
		return 0, "", typoErr
	}
	for _, m := range matches {
		notes, err := s.DB.SearchConceptNotes(ctx, m.id, f)
		if err != nil {
			return 0, "", err
		}
		for _, n := range notes {
			c := get(n.ID)
			if c.note.Path == "" {
				c.note = n
			}
			c.concept = max(c.concept, m.quality)
		}
	}
	return cover, "", nil
}

// termExprs are the full-text expressions of words, as the typo check
// counts them.
func termExprs(words []string) []string {
	exprs := make([]string, len(words))
	for i, w := range words {
		exprs[i] = term{text: w}.expr()
	}
	return exprs
}

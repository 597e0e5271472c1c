package search

import (
	"context"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

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
type conceptNames struct {
	mu      sync.Mutex
	version string
	loaded  bool
	exact   map[string]string // key -> concept id
	keys    []string
	ids     []string
	deleted map[string][]int32 // key or deletion -> indexes in keys
}

// namesFor returns the registry's names at the current version.
func (s *Service) namesFor(ctx context.Context) (*conceptNames, error) {
	version, err := s.DB.SearchConceptsVersion(ctx)
	if err != nil {
		return nil, err
	}
	c := &s.names
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded && c.version == version {
		return c, nil
	}
	exact := map[string]string{}
	var keys, ids []string
	deleted := map[string][]int32{}
	err = s.DB.SearchConceptKeys(ctx, func(key, id string) {
		exact[key] = id
		if utf8.RuneCountInString(key) < minFuzzyRunes {
			return
		}
		i := int32(len(keys))
		keys, ids = append(keys, key), append(ids, id)
		for _, d := range deletions(key) {
			deleted[d] = append(deleted[d], i)
		}
	})
	if err != nil {
		return nil, err
	}
	c.version, c.loaded, c.exact, c.keys, c.ids, c.deleted = version, true, exact, keys, ids, deleted
	return c, nil
}

// deletions returns s and every string s gives with one rune deleted.
func deletions(s string) []string {
	out := []string{s}
	for i, r := range s {
		out = append(out, s[:i]+s[i+utf8.RuneLen(r):])
	}
	return out
}

// match returns the concepts words name: runs of up to maxSpanWords
// words, longest first, each word in at most one match; a run of stop
// words alone names nothing. An exact key scores 1, a key one edit or one
// adjacent swap away (both at least minFuzzyRunes runes) fuzzyQuality, and
// only when typo(run) says the run is misspelt (a run of real words,
// "basic" for "basil", names nothing).
func (c *conceptNames) match(words []string, typo func([]string) bool) []conceptMatch {
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
			id, q := c.lookup(key)
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
	return out
}

// lookup returns the concept key names exactly (quality 1) or one typo
// away (fuzzyQuality, the first such key in registry order); "" for none.
func (c *conceptNames) lookup(key string) (string, float64) {
	if id, ok := c.exact[key]; ok {
		return id, 1
	}
	if utf8.RuneCountInString(key) < minFuzzyRunes {
		return "", 0
	}
	found := -1
	for _, d := range deletions(key) {
		for _, i := range c.deleted[d] {
			if (found < 0 || i < int32(found)) && oneEdit(key, c.keys[i]) {
				found = int(i)
			}
		}
	}
	if found < 0 {
		return "", 0
	}
	return c.ids[found], fuzzyQuality
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

// liftConcepts adds the concept signal to the hybrid candidates: each
// note linking a concept the query names (or its page) gets the match's
// quality (c.concept), and those not found yet are added.
func (s *Service) liftConcepts(ctx context.Context, raw string, f Filter, get func(int64) *candidate) (bool, error) {
	if s.Tuning.ConceptWeight <= 0 {
		return false, nil
	}
	words := queryWords(raw)
	if len(words) == 0 {
		return false, nil
	}
	names, err := s.namesFor(ctx)
	if err != nil {
		return false, err
	}
	var typoErr error
	matches := names.match(words, func(run []string) bool {
		// Misspelt: some word of the run is in no note.
		exprs := make([]string, len(run))
		for i, w := range run {
			exprs[i] = term{text: w}.expr()
		}
		docs, _, err := s.termDocs(ctx, exprs)
		if err != nil {
			typoErr = err
			return false
		}
		return slices.Contains(docs, 0)
	})
	if typoErr != nil {
		return false, typoErr
	}
	for _, m := range matches {
		notes, err := s.DB.SearchConceptNotes(ctx, m.id, f)
		if err != nil {
			return false, err
		}
		for _, n := range notes {
			c := get(n.ID)
			if c.note.Path == "" {
				c.note = n
			}
			c.concept = max(c.concept, m.quality)
		}
	}
	return len(matches) > 0, nil
}

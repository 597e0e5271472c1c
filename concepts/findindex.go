package concepts

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// findIndex is find_concepts' second channel over one matcher's names:
// for every name, the 64-bit hashes of its folded key and its head-word
// keys (the keys analyze_duplicates' index files under folded and core),
// sorted, each beside the concept (matcher order) whose name has it. It
// holds 12 bytes per key, about 40 per concept, where the maps of the
// full duplicate index hold kilobytes; analyze_duplicates builds that one
// on its first call, find_concepts never does. A hash only nominates: a
// concept is a hit once one of its names, analysed again, has the key.
type findIndex struct {
	keys []uint64 // sorted; ties by concept
	cons []int32  // cons[i] has a name whose key hashes to keys[i]
}

// findState is a matcher's find index, built on first use; done is
// closed once it is.
type findState struct {
	once  sync.Once
	start sync.Once
	x     *findIndex
	done  chan struct{}
}

// The key spaces of the find index: a name's folded keys (its folded
// form and the folded form before a qualifier), its content words joined,
// and its core words joined when it has generic head words.
const (
	keyFolded  = "f\x00"
	keyContent = "c\x00"
	keyCore    = "h\x00"
	// keyAcronym: the key of a short form of the acronym lexicon the
	// name is written as ("ML": ml; acronyms.go).
	keyAcronym = "a\x00"
)

// findKeys calls fn with each find index key of n (none when n has no
// folded form), the way buildDupIndex files n under folded and core.
func findKeys(n *nameInfo, fn func(key string)) {
	if n.folded == "" {
		return
	}
	fn(keyFolded + n.folded)
	if n.qualBase != "" {
		fn(keyFolded + n.qualBase)
	}
	fn(keyContent + strings.Join(n.content, " "))
	if len(n.core) < len(n.content) {
		fn(keyCore + strings.Join(n.core, " "))
	}
	for _, k := range n.acroLex {
		fn(keyAcronym + k)
	}
}

// findIndex returns the matcher's find index, built on first use.
func (m *matcher) findIndex() *findIndex {
	m.find.once.Do(func() {
		m.find.x = buildFindIndex(m)
		close(m.findDone())
	})
	return m.find.x
}

// findDone returns the channel closed once the find index is built.
func (m *matcher) findDone() chan struct{} {
	m.find.start.Do(func() { m.find.done = make(chan struct{}) })
	return m.find.done
}

// findIndexWithin returns the matcher's find index, building it in the
// background if nobody is, when it is ready within wait; nil past that
// (the caller answers without it).
func (m *matcher) findIndexWithin(ctx context.Context, wait time.Duration) *findIndex {
	done := m.findDone()
	select {
	case <-done:
		return m.find.x
	default:
	}
	go m.findIndex()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
		return m.find.x
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

// names returns concept g's names, label first.
func (m *matcher) names(g int) []string {
	return append([]string{m.labels[g]}, m.aliases[g]...)
}

// fnv64 is the 64-bit FNV-1a hash of key: fixed across processes, so
// that the find index can be kept in the names snapshot, and with no
// pointer to keep, so that the WordNet sets hold none (wordnet.go). A
// find key's hash only nominates (a nominated concept's names are
// analysed again), so collisions cost time, never a wrong answer.
func fnv64(key string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return h
}

// findIndexPart is the least number of concepts worth a goroutine of
// their own when the find index is built.
const findIndexPart = 1 << 14

func buildFindIndex(m *matcher) *findIndex {
	type entry struct {
		h uint64
		c int32
	}
	x := &findIndex{}
	// The names are analysed in parts side by side (at a million concepts
	// a part is seconds of CPU, and the first find_concepts of a server
	// waits for the index up to FindIndexWait); the sort makes the result
	// independent of the parts.
	parts := min(runtime.GOMAXPROCS(0), max(1, len(m.ids)/findIndexPart))
	found := make([][]entry, parts)
	var wg sync.WaitGroup
	for w := range parts {
		wg.Go(func() {
			var out []entry
			for g := len(m.ids) * w / parts; g < len(m.ids)*(w+1)/parts; g++ {
				for _, t := range m.names(g) {
					n := analyseName(t)
					findKeys(&n, func(k string) { out = append(out, entry{fnv64(k), int32(g)}) })
				}
			}
			found[w] = out
		})
	}
	wg.Wait()
	all := slices.Concat(found...)
	found = nil
	slices.SortFunc(all, func(a, b entry) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.c, b.c)
	})
	all = slices.Compact(all)
	x.keys, x.cons = make([]uint64, len(all)), make([]int32, len(all))
	for i, e := range all {
		x.keys[i], x.cons[i] = e.h, e.c
	}
	return x
}

// lookup returns the concepts (ascending) with a name whose find key is
// key.
func (x *findIndex) lookup(m *matcher, key string, has func(g int32, key string) bool) []int32 {
	h := fnv64(key)
	i, _ := slices.BinarySearch(x.keys, h)
	var out []int32
	for ; i < len(x.keys) && x.keys[i] == h; i++ {
		if has(x.cons[i], key) {
			out = append(out, x.cons[i])
		}
	}
	return out
}

// channelHits finds the concepts whose names have the query's folded key
// (stemmed words without function words, symbol forms kept), that are
// the query but for generic head words, either way round, or that are a
// meaning of the query's acronym or an acronym of it (the acronym
// lexicon: "ML" and "machine learning").
func (x *findIndex) channelHits(m *matcher, query string) []channelHit {
	q := analyseName(query)
	if q.folded == "" {
		return nil
	}
	// keysOf are the find keys of the concepts the hashes nominated.
	keysOf := map[int32]map[string]bool{}
	has := func(g int32, key string) bool {
		ks, ok := keysOf[g]
		if !ok {
			ks = map[string]bool{}
			for _, t := range m.names(int(g)) {
				n := analyseName(t)
				findKeys(&n, func(k string) { ks[k] = true })
			}
			keysOf[g] = ks
		}
		return ks[key]
	}
	var out []channelHit
	seen := map[int32]bool{}
	add := func(l []int32, channel string) {
		for _, c := range l {
			if !seen[c] {
				seen[c] = true
				out = append(out, channelHit{int(c), channel})
			}
		}
	}
	add(x.lookup(m, keyFolded+q.folded, has), "folded")
	if len(q.core) < len(q.content) {
		add(x.lookup(m, keyContent+strings.Join(q.core, " "), has), "head_word")
	}
	add(x.lookup(m, keyCore+strings.Join(q.content, " "), has), "head_word")
	lx := acronymLexicon()
	for _, k := range q.acroLex {
		for _, meaning := range lx.entries[k].meanings {
			for _, key := range meaning {
				add(x.lookup(m, keyFolded+key, has), "acronym")
			}
		}
	}
	for _, k := range lx.byLong[q.folded] {
		add(x.lookup(m, keyAcronym+k, has), "acronym")
	}
	return out
}

package concepts

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema/internal/benchdata"
)

// labelMatcher is a matcher of n benchdata labels, every third with an
// alias (another label's words reordered), every fifth with an alias that
// is another label with a qualifier ("Label (word)").
func labelMatcher(n int) *matcher {
	labels := benchdata.Labels(n)
	m := &matcher{}
	for i, l := range labels {
		m.ids = append(m.ids, fmt.Sprintf("c%07d", i))
		m.labels = append(m.labels, l)
		var aliases []string
		if i%3 == 0 {
			w := strings.Fields(labels[(i*7+1)%n])
			slices.Reverse(w)
			aliases = append(aliases, strings.Join(w, " ")+" system")
		}
		if i%5 == 1 {
			aliases = append(aliases, labels[(i*11+3)%n]+" ("+strings.Fields(labels[(i+1)%n])[0]+")")
		}
		m.aliases = append(m.aliases, aliases)
	}
	return m
}

// dupChannelHits is the second channel as it was read from the duplicate
// index's folded and core maps, the reference of the find index.
func dupChannelHits(x *dupIndex, query string) []channelHit {
	q := analyseName(query)
	if q.folded == "" {
		return nil
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
	add(x.folded[q.folded], "folded")
	if len(q.core) < len(q.content) {
		add(x.core[strings.Join(q.core, " ")], "head_word")
	}
	add(x.core["\x00"+strings.Join(q.content, " ")], "head_word")
	lx := acronymLexicon()
	for _, k := range q.acroLex {
		for _, meaning := range lx.entries[k].meanings {
			for _, key := range meaning {
				add(x.folded[key], "acronym")
			}
		}
	}
	for _, k := range lx.byLong[q.folded] {
		add(x.acroLex[k], "acronym")
	}
	return out
}

// channelQueries are queries for the second channel drawn from m's names:
// the names, their words reordered and pluralised, with a generic head
// word added or taken off, and names of no concept.
func channelQueries(m *matcher) []string {
	var qs []string
	for g := 0; g < len(m.ids); g += 37 {
		l := m.labels[g]
		w := strings.Fields(l)
		r := slices.Clone(w)
		slices.Reverse(r)
		qs = append(qs, l, strings.ToUpper(l), strings.Join(r, " ")+"s", l+" server", l+" system", "the "+l, w[0], w[len(w)-1]+" framework")
		for _, a := range m.aliases[g] {
			qs = append(qs, a, strings.TrimSuffix(a, " system"))
		}
	}
	for g := 1; g < len(m.ids); g += 35 { // the labels qualified aliases qualify
		qs = append(qs, m.labels[(g*11+3)%len(m.ids)])
	}
	return append(qs, "", "!!", "the of", "zzqx unknown words")
}

// TestFindIndexMatchesDuplicateIndex: find_concepts' compact second
// channel finds what the duplicate index's maps found, in the same order.
func TestFindIndexMatchesDuplicateIndex(t *testing.T) {
	m := labelMatcher(20_000)
	dx, fx := buildDupIndex(m), buildFindIndex(m)
	hits := 0
	for _, q := range channelQueries(m) {
		want, got := dupChannelHits(dx, q), fx.channelHits(m, q)
		if !slices.Equal(got, want) {
			t.Fatalf("query %q: find index %v, duplicate index %v", q, got, want)
		}
		hits += len(got)
	}
	if hits < 1000 {
		t.Fatalf("only %d hits over the queries: the comparison says little", hits)
	}
}

// TestFindIndexRejectsHashCollisions: a concept whose key only hashes like
// the query's is not a hit; every entry is given the query's hash.
func TestFindIndexRejectsHashCollisions(t *testing.T) {
	m := labelMatcher(3_000)
	dx := buildDupIndex(m)
	for _, q := range []string{m.labels[10], m.labels[200] + " server", "zzqx unknown words"} {
		fx := buildFindIndex(m)
		h := fnv64(keyFolded + analyseName(q).folded)
		for i := range fx.keys {
			fx.keys[i] = h
		}
		slices.Sort(fx.cons)
		want, got := dupChannelHits(dx, q), fx.channelHits(m, q)
		if !slices.Equal(got, want) {
			t.Fatalf("query %q with colliding hashes: %v, want %v", q, got, want)
		}
	}
}

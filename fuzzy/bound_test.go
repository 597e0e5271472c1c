package fuzzy

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema/internal/benchdata"
)

// checkBound checks, for the pair (a, b) as a query and a choice (no
// processor: pass processed strings for the processed case), that every
// whole-text bound of every scorer is at least the exact score: the
// histogram bound, the windowed one, and the need of the filter's cache
// for a bar equal to the score. The bound of a pair sharing a token is
// the shared one; a pair sharing none must also be below the shared one.
func checkBound(t *testing.T, a, b string) {
	t.Helper()
	q, c := preparePair(a, b)
	q.buildWindows(len(c.r))
	cs := makeShape(c)
	shared := false
	for _, id := range c.toks {
		shared = shared || slices.Contains(q.toks, id)
	}
	inter := interBound(&q.shp, &cs)
	for _, sc := range Scorers() {
		v := sc.Score(a, b, 0)
		ub := textBound(sc, &q.shp, &cs, sameInters(inter), shared)
		wub := textBound(sc, &q.shp, &cs, windowInters(q, &cs, inter), shared)
		if !(ub >= v) || !(wub >= v) || wub > ub {
			t.Fatalf("%v(%q, %q) = %v (shared token %v): bound %v, windowed bound %v", sc, a, b, v, shared, ub, wub)
		}
		if sub := textBound(sc, &q.shp, &cs, sameInters(inter), true); sub < ub {
			t.Fatalf("%v(%q, %q): bound with a shared token %v < without %v", sc, a, b, sub, ub)
		}
		var nd needs
		nd.setBar(v)
		if need := nd.need(&q.shp, sc, &cs, shared); need == noNeed || need > 0 && interCount(&q.shp, &cs) < need {
			t.Fatalf("%v(%q, %q) = %v: need %d, interBound %d", sc, a, b, v, need, inter)
		}
	}
}

// TestTextBoundAboveScore checks checkBound on random texts (tokens, case,
// separators, wide and astral code points, long needles), on the reference
// vectors and on benchmark labels with typos, raw and processed.
func TestTextBoundAboveScore(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	n := 2000
	if testing.Short() || raceShort {
		n = 500
	}
	var pairs [][2]string
	for i := range n {
		a, b := randomText(r), randomText(r)
		switch i % 4 {
		case 1:
			b = randomText(r) + a + randomText(r)
		case 2:
			b = strings.Repeat(b+" ", 1+r.IntN(3))
		}
		pairs = append(pairs, [2]string{a, b})
	}
	for _, row := range readTSV(t, "testdata/vectors.tsv") {
		pairs = append(pairs, [2]string{unescape(t, row[2]), unescape(t, row[3])})
	}
	labels := benchData().Labels[:1000]
	if testing.Short() || raceShort {
		labels = labels[:300]
	}
	for i, l := range labels {
		// The query: a label with one letter dropped from every word, so
		// that it shares no token with it.
		words := strings.Fields(labels[(i*7919)%len(labels)])
		for j, w := range words {
			p := len(w) / 2
			words[j] = w[:p] + w[p+1:]
		}
		pairs = append(pairs, [2]string{strings.Join(words, " "), l})
	}
	for _, p := range pairs {
		for _, x := range [][2]string{p, {p[1], p[0]}, {DefaultProcess(p[0]), DefaultProcess(p[1])}} {
			checkBound(t, x[0], x[1])
		}
	}
}

// typoQueries returns queries made from labels with one letter dropped
// from every word (sharing no token with them, unless by chance), and
// labels with one word replaced, for every scorer's filter.
func typoQueries(labels []string, n int) []string {
	var qs []string
	for i := range n {
		words := strings.Fields(labels[(i*7919)%len(labels)])
		for j, w := range words {
			if i%2 == 0 || j == 0 {
				p := len(w) / 2
				words[j] = w[:p] + w[p+1:]
			}
		}
		qs = append(qs, strings.Join(words, " "))
	}
	return qs
}

// TestPrunedEqualsExhaustiveTypos compares pruned extraction with scoring
// every choice on 6,000 benchmark labels (ungrouped and grouped as a
// concept's label and aliases), with queries that share no token with
// most labels, for every scorer and several limits and cutoffs.
func TestPrunedEqualsExhaustiveTypos(t *testing.T) {
	labels := benchdata.Labels(6000)
	nq := 5
	if testing.Short() || raceShort {
		labels, nq = labels[:3000], 2
	}
	// A token in a quarter of the labels: more groups share it than phase
	// 1 scores, so the shared bound is used in the scan.
	labels = slices.Clone(labels)
	for i := 0; i < len(labels); i += 4 {
		labels[i] += " common"
	}
	queries := append(typoQueries(labels, nq), benchData().Queries[:nq]...)
	queries = append(queries, queries[0]+" common", "common")
	groups := make([]int, len(labels))
	for i := range groups {
		groups[i] = i / 3 // three names a concept
	}
	ctx := context.Background()
	c := NewChoices(labels, DefaultProcess)
	gc, err := NewGroupedChoices(labels, groups, DefaultProcess)
	if err != nil {
		t.Fatal(err)
	}
	for _, query := range queries {
		for _, scorer := range Scorers() {
			for _, tc := range []struct {
				limit  int
				cutoff float64
			}{{20, 0}, {1, 0}, {200, 50}} {
				want, err := c.unpruned().Extract(ctx, query, scorer, tc.limit, tc.cutoff)
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.WithWorkers(2).Extract(ctx, query, scorer, tc.limit, tc.cutoff)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%v %q limit %d cutoff %v:\n got  %v\n want %v", scorer, query, tc.limit, tc.cutoff, head(got), head(want))
				}
				gwant, err := gc.unpruned().ExtractGroups(ctx, query, scorer, tc.limit, tc.cutoff)
				if err != nil {
					t.Fatal(err)
				}
				ggot, err := gc.WithWorkers(2).ExtractGroups(ctx, query, scorer, tc.limit, tc.cutoff)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(ggot, gwant) {
					t.Fatalf("groups: %v %q limit %d cutoff %v:\n got  %v\n want %v", scorer, query, tc.limit, tc.cutoff, ggot, gwant)
				}
			}
		}
	}
}

// TestShapeBoundsLongTexts checks that a text too long for a shape's
// counts bounds nothing instead of a wrong bound.
func TestShapeBoundsLongTexts(t *testing.T) {
	long := strings.Repeat("ab ", shapeMax/3+1)
	var runes arena[rune]
	var ids arena[int32]
	p := new(prepared)
	prepare(p, []rune(long), &runes, &ids, newDictionary().intern, nil)
	sh := makeShape(p)
	if !sh.unbounded() {
		t.Fatalf("shape of %d code points is bounded", len(p.r))
	}
	q := newQuery([]rune("ab"), newDictionary().lookup)
	if b := textBound(ScorerWRatio, &q.shp, &sh, sameInters(interBound(&q.shp, &sh)), false); b != 100 {
		t.Fatalf("bound of an unbounded shape = %v, want 100", b)
	}
	if interBound(&q.shp, &sh) != math.MaxInt32 {
		t.Fatal("interBound of an unbounded shape is finite")
	}
}

// TestBuildInPartsSameIDs checks that Choices built in parts side by side
// give every token the id one pass over the texts gives it (the order of
// first occurrence), whatever the scheduling.
func TestBuildInPartsSameIDs(t *testing.T) {
	labels := benchdata.Labels(4 * buildPart)
	c := NewChoices(labels, DefaultProcess)
	one := &Choices{proc: DefaultProcess, items: make([]prepared, len(labels)), shapes: make([]shape, len(labels))}
	d, _ := one.prepareRange(labels, 0, len(labels))
	if len(d.lens) != len(c.dict.lens) {
		t.Fatalf("%d tokens built in parts, %d in one pass", len(c.dict.lens), len(d.lens))
	}
	for i := range labels {
		if !slices.Equal(c.items[i].toks, one.items[i].toks) || c.shapes[i] != one.shapes[i] {
			t.Fatalf("text %d %q: ids %v, one pass %v", i, labels[i], c.items[i].toks, one.items[i].toks)
		}
	}
}

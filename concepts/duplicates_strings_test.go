package concepts_test

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/benchdata"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/vault"
)

// The string-level set of issue 19 (testdata/duplicates/clusters_a.tsv to
// clusters_k.tsv): hand-written clusters of one concept's names (extra
// words and qualifiers, abbreviations and acronyms, plurals, punctuation
// and case, spelling variants), hard negatives, and distractors. Split A
// tuned the rules of rounds 1-2, splits A-C those of round 3, A-D those
// of round 4, A-E those of round 5, A-F those of round 6; split G, held
// out in round 6, was read after it; split H, held out in round 7, after
// that. Split K is held out (written in one pass before round 8 changed
// any rule, committed with its first result; only reported). Splits I
// (plurals, letters, acronyms) and J (spelling) tune rounds 7 and 8, L
// (clipped compounds, coined names and their category words) round 11,
// M (extra words and abbreviations) round 12; N, written with M, is held
// out in round 12 (run once, at its end). None of E-N is a distractor of
// another split.
var (
	dupDistractors = flag.Int("dup-distractors", 1000, "distractor concepts added to each split by TestStringDuplicates (the documented figures use 5000)")
	dupContext     = flag.Bool("dup-context", false, "TestStringDuplicates writes each name into notes beside other concepts of its topic (openContextEval) instead of a note of its own")
	dupContextRand = flag.Bool("dup-context-random", false, "with -dup-context: each labelled name is linked beside random distractors instead of its topic (a vault whose notes say nothing about the names they link)")
	dupDefine      = flag.Bool("dup-define", false, "with -dup-context: for half the acronyms of the abbreviation clusters, one note of a longer name writes the acronym after it in parentheses (\"[[Transport Layer Security]] (TLS)\"), and as often a note of a hard negative that expands the same acronym otherwise")
	dupSource      = flag.String("dup-distractor-source", "generated", "where TestStringDuplicates' distractors come from: generated (random 1-3 word names from the sets' vocabulary) or vault (real names: FOLDOC's headwords and the other splits' names)")
)

// heldOut is the split no rule was set on (round 8's K; E, F, G and H,
// held out in rounds 4-7, were tuned on after; round 12's N, round 14's
// O, round 15's P and round 16's Q, R and S are held out too). None of
// them is a distractor of another split, so the real-name distractors of
// A-D stay what they were.
const heldOut = "clusters_k.tsv"

// notDistractor reports whether split's names are kept out of the other
// splits' real-name distractors: the held-out K, N, O, P, Q, R and S, E-H,
// and I, J, L and M.
func notDistractor(split string) bool {
	switch split {
	case heldOut, "clusters_e.tsv", "clusters_f.tsv", "clusters_g.tsv", "clusters_h.tsv", "clusters_i.tsv", "clusters_j.tsv", "clusters_l.tsv", "clusters_m.tsv", "clusters_n.tsv", "clusters_o.tsv", "clusters_p.tsv", "clusters_q.tsv", "clusters_r.tsv", "clusters_s.tsv":
		return true
	}
	return false
}

// stringSplits are the splits of the string-level set, in order.
var stringSplits = []string{"clusters_a.tsv", "clusters_b.tsv", "clusters_c.tsv", "clusters_d.tsv", "clusters_e.tsv", "clusters_f.tsv", "clusters_g.tsv", "clusters_h.tsv", "clusters_i.tsv", "clusters_j.tsv", "clusters_k.tsv", "clusters_l.tsv", "clusters_m.tsv", "clusters_n.tsv", "clusters_o.tsv", "clusters_p.tsv", "clusters_q.tsv", "clusters_r.tsv", "clusters_s.tsv"}

// stringSet reads one split into an evalSet: cluster members share a
// cluster; each side of a negative pair is a cluster of its own. It
// returns the set, the negative pairs and the kind of each cluster.
func stringSet(t testing.TB, file string) (*evalSet, [][2]string) {
	t.Helper()
	e := &evalSet{cluster: map[string]int{}, kind: map[string]string{}}
	var negs [][2]string
	next := 0
	for _, row := range readLines(t, file) {
		if row[0] == "neg" {
			negs = append(negs, [2]string{row[1], row[2]})
			for _, n := range row[1:3] {
				if e.add(n, next, "") {
					next++
				}
			}
			continue
		}
		for i, n := range row[1:] {
			kind := row[0]
			if i == 0 {
				kind = ""
			}
			if !e.add(n, next, kind) {
				t.Fatalf("%s: %q is in two clusters", file, n)
			}
		}
		next++
	}
	return e, negs
}

// plainWords is a rough word set for keeping distractors clear of the
// labelled names: lower case, letters and digits, a final s dropped.
func plainWords(s string) []string {
	ws := strings.FieldsFunc(strings.ToLower(stripMarks(s)), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	ws = slices.DeleteFunc(ws, concepts.IsFillerWord)
	for i, w := range ws {
		if len(w) > 3 {
			ws[i] = strings.TrimSuffix(w, "s")
		}
	}
	slices.Sort(ws)
	return slices.Compact(ws)
}

// orderedWords is name's words in order: lower case, accents stripped,
// split at anything but letters and digits, a final s of a longer word
// dropped.
func orderedWords(name string) []string {
	ws := strings.FieldsFunc(strings.ToLower(stripMarks(name)), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range ws {
		if len(w) > 3 {
			ws[i] = strings.TrimSuffix(w, "s")
		}
	}
	return ws
}

// initialsOf is the first letters of ws.
func initialsOf(ws []string) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w[:1])
	}
	return b.String()
}

// isAcronymLike reports whether name is one word of 2-6 letters and
// digits with two upper-case letters or more (CRM, IaC, PoC).
func isAcronymLike(name string) bool {
	if len(name) < 2 || len(name) > 6 {
		return false
	}
	upper := 0
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
		if unicode.IsUpper(r) {
			upper++
		}
	}
	return upper >= 2
}

func subset(a, b []string) bool {
	for _, w := range a {
		if !slices.Contains(b, w) {
			return false
		}
	}
	return true
}

// distractorsFrom returns n names of one to three words drawn from the
// canonicals' and the split's vocabulary (and the canonicals themselves),
// except the abbreviation clusters' words (a random "var pattern" beside
// "variable pattern" would be one concept labelled as two),
// none of whose word sets is a subset or superset of a labelled name's,
// nor spelled like one without its spaces: they are other concepts for
// certain, and crowd the blocking keys of the labelled ones.
// That is source "generated"; source "vault" (real names in a
// seeded order: the headwords of foldoc_names.txt, a dictionary of
// computing, and the names of the other splits but D — the first of each
// cluster none of whose names is excluded, and both sides of each
// negative pair, so that no two are one concept — under the same
// exclusions). split is the evaluated split.
func distractorsFrom(t testing.TB, e *evalSet, n int, source, split string) []string {
	var labelled [][]string
	compact := map[string]bool{}
	abbrCluster := map[int]bool{}
	for k, kind := range e.kind {
		if kind == "abbr" {
			abbrCluster[e.cluster[k]] = true
		}
	}
	for _, name := range e.names {
		ws := plainWords(name)
		labelled = append(labelled, ws)
		compact[strings.Join(ws, "")] = true
	}
	clear := func(name string) bool {
		ws := plainWords(name)
		if len(ws) == 0 || compact[strings.Join(ws, "")] {
			return false
		}
		for _, l := range labelled {
			if len(l) > 0 && (subset(ws, l) || subset(l, ws)) { // "library" is all filler words
				return false
			}
		}
		return true
	}
	// Real names can be a labelled name written otherwise (FOLDOC's
	// "On-Line Analytical Processing" beside "online analytical
	// processing", its "CRM" beside "customer relationship management"):
	// no one labelled those, so they are left out — the same words joined
	// in order, an acronym that is the initials of a labelled name, or
	// initials that are a labelled acronym.
	joined, initials, acronyms := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, name := range e.names {
		ws := orderedWords(name)
		joined[strings.Join(ws, "")] = true
		if len(ws) > 1 {
			initials[initialsOf(ws)] = true
		}
		if isAcronymLike(name) {
			acronyms[strings.ToLower(name)] = true
		}
	}
	sameAsLabelled := func(name string) bool {
		ws := orderedWords(name)
		if joined[strings.Join(ws, "")] {
			return true
		}
		if isAcronymLike(name) && initials[strings.ToLower(name)] {
			return true
		}
		return len(ws) > 1 && acronyms[initialsOf(ws)]
	}
	var out []string
	take := func(name string) {
		if clear(name) && (source != "vault" || !sameAsLabelled(name)) && e.add(name, -1-len(out), "") {
			out = append(out, name)
			ws := plainWords(name)
			labelled = append(labelled, ws)
			compact[strings.Join(ws, "")] = true
		}
	}
	if source == "vault" {
		e.unlabelled = map[string]bool{}
		defer func() {
			for _, n := range out {
				e.unlabelled[vault.Key(n)] = true
			}
		}()
		var pool []string
		for _, row := range readLines(t, "foldoc_names.txt") {
			// An entry any of whose headwords is a labelled name
			// ("internationalisation", "internationalization") gives none.
			if !slices.ContainsFunc(row[1:], func(n string) bool { return !clear(n) || sameAsLabelled(n) }) {
				pool = append(pool, row[0])
			}
		}
		for _, other := range stringSplits {
			if other == split || notDistractor(other) {
				continue
			}
			for _, row := range readLines(t, other) {
				if row[0] == "neg" {
					pool = append(pool, row[1], row[2])
					continue
				}
				// A cluster any of whose names is a labelled one's
				// ("St. Louis" of "Saint Louis") gives none.
				if !slices.ContainsFunc(row[1:], func(n string) bool { return !clear(n) || sameAsLabelled(n) }) {
					pool = append(pool, row[1])
				}
			}
		}
		r := benchdata.NewSplitMix64(11)
		for i := len(pool) - 1; i > 0; i-- {
			j := int(r.Below(uint64(i + 1)))
			pool[i], pool[j] = pool[j], pool[i]
		}
		for _, name := range pool {
			if len(out) >= n {
				break
			}
			take(name)
		}
		if len(out) < n {
			t.Fatalf("only %d vault distractors clear of the labelled names; want %d", len(out), n)
		}
		return out
	}
	var vocab []string
	words := func(name string) []string {
		var out []string
		for _, w := range strings.Fields(name) {
			w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			if w != "" && !concepts.IsFillerWord(strings.ToLower(w)) {
				out = append(out, w)
			}
		}
		return out
	}
	for _, row := range readLines(t, "canonical.txt") {
		vocab = append(vocab, words(row[0])...)
		if len(out) < n/10 {
			take(row[0])
		}
	}
	for _, name := range e.names {
		if e.kind[vault.Key(name)] != "abbr" && !abbrCluster[e.cluster[vault.Key(name)]] {
			vocab = append(vocab, words(name)...)
		}
	}
	slices.Sort(vocab)
	vocab = slices.Compact(vocab)
	r := benchdata.NewSplitMix64(11)
	for tries := 0; len(out) < n && tries < 100*n; tries++ {
		ws := make([]string, 1+int(r.Below(3)))
		for i := range ws {
			ws[i] = vocab[r.Below(uint64(len(vocab)))]
		}
		take(strings.Join(ws, " "))
	}
	return out
}

// TestStringDuplicates measures analyze_duplicates on each split of the
// string-level set: precision and recall of the pairs inside proposed
// groups (merge and review), recall by kind, and the hard negatives
// grouped. With generated distractors (1,000, the default, or 5,000), with
// or without context, it fails below the floors
// it sets (a regression check, under the target).
//
//	go test ./concepts -run TestStringDuplicates -v -dup-distractors 5000
//	go test ./concepts -run TestStringDuplicates -v -dup-distractors 5000 -dup-context -dup-distractor-source vault
func TestStringDuplicates(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes two vaults")
	}
	for _, split := range stringSplits {
		t.Run(strings.TrimSuffix(split, ".tsv"), func(t *testing.T) {
			e, negs := stringSet(t, split)
			labelled := len(e.names)
			extra := distractorsFrom(t, e, *dupDistractors, *dupSource, split)
			var a *app.App
			if *dupContext {
				a = openContextEval(t, e, labelled, negs, extra)
			} else {
				a = openEval(t, e.names[:labelled], extra...)
			}
			res, err := a.Concepts.Duplicates(context.Background(), concepts.DuplicatesInput{Limit: concepts.MaxDuplicateLimit}, a.Semantic)
			if err != nil {
				t.Fatal(err)
			}
			if res.HasMore {
				t.Fatalf("more than %d groups", concepts.MaxDuplicateLimit)
			}
			all, missed, wrong := score(e, res.Groups, concepts.VerdictMerge, concepts.VerdictReview)
			skipped := e.skipped
			strict, _, _ := score(e, res.Groups, concepts.VerdictMerge)
			total := map[string]int{}
			e.eachPair(func(a, b string) { total[e.kind[a]+e.kind[b]]++ })
			grouped := map[[2]string]bool{}
			for _, g := range res.Groups {
				for i := range g.Members {
					for j := range g.Members {
						grouped[[2]string{vault.Key(g.Members[i].Label), vault.Key(g.Members[j].Label)}] = true
					}
				}
			}
			var negGrouped []string
			for _, n := range negs {
				if grouped[[2]string{vault.Key(n[0]), vault.Key(n[1])}] {
					negGrouped = append(negGrouped, n[0]+" ~ "+n[1])
				}
			}
			t.Logf("%d labelled names, %d distractors, %d negative pairs; %d groups", labelled, len(extra), len(negs), res.Total)
			t.Logf("merge + review: precision %.3f recall %.3f (tp %d fp %d fn %d; %d pairs of two unlabelled real names not scored); merge only: precision %.3f recall %.3f",
				all.precision(), all.recall(), all.tp, all.fp, all.fn, skipped, strict.precision(), strict.recall())
			for _, k := range []string{"extra", "abbr", "plural", "punct", "spell"} {
				t.Logf("  %-6s found %d of %d", k, total[k]-missed[k], total[k])
			}
			t.Logf("hard negatives grouped (%d): %v", len(negGrouped), negGrouped)
			t.Logf("false pairs: %v", wrong)
			for _, g := range res.Groups {
				for _, p := range g.Pairs {
					if ka, kb := vault.Key(p.A.Label), vault.Key(p.B.Label); e.cluster[ka] != e.cluster[kb] && !(e.unlabelled[ka] && e.unlabelled[kb]) {
						t.Logf("  false pair %q ~ %q (%s): %v", p.A.Label, p.B.Label, p.Verdict, p.Evidence)
					}
				}
			}
			var miss []string
			e.eachPair(func(a, b string) {
				if !grouped[[2]string{a, b}] {
					miss = append(miss, a+" ~ "+b)
				}
			})
			slices.Sort(miss)
			t.Logf("missed pairs: %q", miss)
			// Floors at 1,000 (the default) and 5,000 distractors, for
			// each context model, at what the rules reach
			// (docs/duplicates.md; round 15's end, K's and N's at their
			// first runs; L and M, rounds 11 and 12's own splits, N, held
			// out in round 12, O, held out in round 14, and P, held out in
			// round 15, with the names only and the topic context, have
			// none with random context):
			// the target (precision 0.97, recall 0.90) is not
			// reached on every split, nor near it on E-H or the held-out
			// K.
			// Real-name distractors have no floors (their unlabelled
			// pairs make the figures a report, not a check).
			floors := map[string]map[int]map[string][2]float64{
				"none": {
					1000: {"clusters_a": {0.99, 0.96}, "clusters_b": {0.99, 0.91}, "clusters_c": {0.98, 0.94}, "clusters_d": {0.97, 0.92}, "clusters_e": {0.91, 0.78}, "clusters_f": {0.93, 0.76}, "clusters_g": {0.95, 0.77}, "clusters_h": {0.95, 0.78}, "clusters_i": {1.00, 0.93}, "clusters_j": {0.96, 0.83}, "clusters_k": {0.86, 0.66}, "clusters_l": {0.93, 0.54}, "clusters_m": {0.95, 0.54}, "clusters_n": {0.95, 0.54}, "clusters_o": {0.93, 0.69}, "clusters_p": {0.94, 0.74}, "clusters_q": {0.96, 0.73}, "clusters_r": {0.97, 0.68}, "clusters_s": {0.95, 0.75}},
					5000: {"clusters_a": {0.99, 0.96}, "clusters_b": {0.99, 0.91}, "clusters_c": {0.97, 0.92}, "clusters_d": {0.98, 0.91}, "clusters_e": {0.91, 0.78}, "clusters_f": {0.92, 0.76}, "clusters_g": {0.95, 0.77}, "clusters_h": {0.94, 0.77}, "clusters_i": {0.98, 0.92}, "clusters_j": {0.95, 0.83}, "clusters_k": {0.86, 0.64}, "clusters_l": {0.93, 0.54}, "clusters_m": {0.95, 0.53}, "clusters_n": {0.94, 0.53}, "clusters_o": {0.92, 0.69}, "clusters_p": {0.93, 0.74}, "clusters_q": {0.96, 0.70}, "clusters_r": {0.96, 0.67}, "clusters_s": {0.95, 0.73}},
				},
				"topic": {
					1000: {"clusters_a": {0.98, 0.97}, "clusters_b": {0.99, 0.94}, "clusters_c": {0.97, 0.97}, "clusters_d": {0.98, 0.94}, "clusters_e": {0.90, 0.82}, "clusters_f": {0.93, 0.87}, "clusters_g": {0.94, 0.87}, "clusters_h": {0.94, 0.84}, "clusters_i": {1.00, 0.94}, "clusters_j": {0.95, 0.83}, "clusters_k": {0.88, 0.77}, "clusters_l": {0.92, 0.66}, "clusters_m": {0.95, 0.63}, "clusters_n": {0.98, 0.59}, "clusters_o": {0.94, 0.78}, "clusters_p": {0.94, 0.80}, "clusters_q": {0.95, 0.77}, "clusters_r": {0.93, 0.71}, "clusters_s": {0.95, 0.79}},
					5000: {"clusters_a": {0.98, 0.97}, "clusters_b": {0.99, 0.94}, "clusters_c": {0.97, 0.97}, "clusters_d": {0.97, 0.94}, "clusters_e": {0.90, 0.83}, "clusters_f": {0.93, 0.88}, "clusters_g": {0.94, 0.87}, "clusters_h": {0.94, 0.83}, "clusters_i": {0.98, 0.94}, "clusters_j": {0.93, 0.83}, "clusters_k": {0.88, 0.76}, "clusters_l": {0.92, 0.66}, "clusters_m": {0.93, 0.61}, "clusters_n": {0.97, 0.59}, "clusters_o": {0.95, 0.78}, "clusters_p": {0.94, 0.80}, "clusters_q": {0.96, 0.77}, "clusters_r": {0.94, 0.71}, "clusters_s": {0.95, 0.79}},
				},
				"random": {
					1000: {"clusters_a": {0.99, 0.96}, "clusters_b": {0.99, 0.91}, "clusters_c": {0.98, 0.94}, "clusters_d": {0.97, 0.92}, "clusters_e": {0.91, 0.78}, "clusters_f": {0.93, 0.76}, "clusters_g": {0.95, 0.77}, "clusters_h": {0.94, 0.78}, "clusters_i": {1.00, 0.93}, "clusters_j": {0.96, 0.83}, "clusters_k": {0.86, 0.61}, "clusters_q": {0.96, 0.73}, "clusters_r": {0.97, 0.68}, "clusters_s": {0.95, 0.75}},
					5000: {"clusters_a": {0.99, 0.96}, "clusters_b": {0.99, 0.91}, "clusters_c": {0.97, 0.92}, "clusters_d": {0.98, 0.91}, "clusters_e": {0.91, 0.78}, "clusters_f": {0.92, 0.76}, "clusters_g": {0.95, 0.77}, "clusters_h": {0.94, 0.77}, "clusters_i": {0.98, 0.92}, "clusters_j": {0.95, 0.83}, "clusters_k": {0.86, 0.58}, "clusters_q": {0.96, 0.70}, "clusters_r": {0.96, 0.67}, "clusters_s": {0.95, 0.73}},
				},
			}
			mode := "none"
			switch {
			case *dupContext && *dupContextRand:
				mode = "random"
			case *dupContext:
				mode = "topic"
			}
			floor, ok := floors[mode][*dupDistractors][strings.TrimSuffix(split, ".tsv")]
			if *dupSource != "generated" || *dupDefine {
				ok = false // definitions: a report, beside the topic model's floors
			}
			if ok && (all.precision() < floor[0] || all.recall() < floor[1]) {
				t.Errorf("precision %.3f recall %.3f; want >= %.2f and >= %.2f", all.precision(), all.recall(), floor[0], floor[1])
			}
		})
	}
}

// definitionsModel returns the names whose first note starts with an
// acronym written beside what it stands for, and that text
// (-dup-define): of each abbreviation cluster with an acronym and a name
// of two words or more, one such pair drawn, kept with probability 1/2;
// of each hard negative of an acronym and a name of two words or more (an
// acronym of another expansion), with the same probability. So a vault
// defines some of its acronyms, not all, and some in the other sense too.
// The text is one of three forms, drawn: "[[Transport Layer Security]]
// (TLS)" or "[[Transport Layer Security|TLS]]" in a note of the long name,
// "[[TLS]] (Transport Layer Security)" in a note of the acronym.
func definitionsModel(e *evalSet, labelled int, negs [][2]string) map[string]string {
	r := benchdata.NewSplitMix64(17)
	byCluster := map[int][]string{}
	var order []int
	for _, n := range e.names[:labelled] {
		c := e.cluster[vault.Key(n)]
		if _, ok := byCluster[c]; !ok {
			order = append(order, c)
		}
		byCluster[c] = append(byCluster[c], n)
	}
	out := map[string]string{}
	define := func(acr, long string) {
		switch r.Below(3) {
		case 0:
			out[long] = "[[" + long + "]] (" + acr + ")"
		case 1:
			out[long] = "[[" + long + "|" + acr + "]]"
		default:
			out[acr] = "[[" + acr + "]] (" + long + ")"
		}
	}
	for _, c := range order {
		ns := byCluster[c]
		var acr, long []string
		for _, n := range ns {
			switch {
			case isAcronymLike(n):
				acr = append(acr, n)
			case len(strings.Fields(n)) >= 2:
				long = append(long, n)
			}
		}
		if len(acr) == 0 || len(long) == 0 || len(ns) < 2 {
			continue
		}
		if r.Below(2) == 0 {
			define(acr[r.Below(uint64(len(acr)))], long[r.Below(uint64(len(long)))])
		}
	}
	for _, ng := range negs {
		a, l := ng[0], ng[1]
		if !isAcronymLike(a) {
			a, l = l, a
		}
		if !isAcronymLike(a) || len(strings.Fields(l)) < 2 {
			continue
		}
		if _, ok := out[l]; !ok && r.Below(2) == 0 {
			if _, ok := out[a]; !ok {
				define(a, l)
			}
		}
	}
	return out
}

// openContextEval writes a vault in which names are linked beside other
// concepts, as notes are written, rather than each alone in a note of its
// own (openEval). The model, seeded, the same for every split:
//
//   - a topic is 6 distractors drawn at random; each cluster of labelled
//     names has one. Each labelled name is linked from 2 notes, each also
//     linking 3 concepts of its cluster's topic and 1 distractor drawn
//     from the whole vault (the names of one concept are written about the
//     same things, not in the same notes);
//   - the two sides of a hard negative are look-alikes of related things:
//     when one side is a cluster of its own (a name listed only as a
//     negative), its topic keeps 3 of the other side's and draws 3 more;
//   - distractors are linked 4 to a note, at random: every concept has
//     some context, and distractors in a topic also have the labelled
//     names'.
//
// So context tells the names of one concept from a look-alike elsewhere
// in the vault (a random expansion of an acronym, a word one letter away),
// and only partly from a hard negative.
func openContextEval(t testing.TB, e *evalSet, labelled int, negs [][2]string, extra []string) *app.App {
	t.Helper()
	if len(extra) < 8 {
		t.Fatalf("context needs distractors; have %d", len(extra))
	}
	r := benchdata.NewSplitMix64(5)
	draw := func() string { return extra[r.Below(uint64(len(extra)))] }
	topic := map[int][]string{}
	topicOf := func(c int) []string {
		if tp, ok := topic[c]; ok {
			return tp
		}
		tp := make([]string, 6)
		for i := range tp {
			tp[i] = draw()
		}
		topic[c] = tp
		return tp
	}
	members := map[int]int{}
	for _, n := range e.names[:labelled] {
		members[e.cluster[vault.Key(n)]]++
	}
	for _, ng := range negs {
		ca, cb := e.cluster[vault.Key(ng[0])], e.cluster[vault.Key(ng[1])]
		if members[cb] > 1 && members[ca] == 1 {
			ca, cb = cb, ca
		}
		if members[cb] == 1 {
			if _, ok := topic[cb]; !ok {
				tp := append(slices.Clone(topicOf(ca)[:3]), draw(), draw(), draw())
				topic[cb] = tp
			}
		}
	}
	defines := map[string]string{}
	if *dupDefine {
		defines = definitionsModel(e, labelled, negs)
	}
	dir := filepath.Join(t.TempDir(), "vault")
	for i, n := range e.names[:labelled] {
		tp := topicOf(e.cluster[vault.Key(n)])
		for k := range 2 {
			var b strings.Builder
			first := strings.Repeat("[["+n+"]] ", 1+i%3)
			if d, ok := defines[n]; ok && k == 0 {
				first = d + " " + first
			}
			b.WriteString(first + "\n")
			for range 3 {
				if *dupContextRand {
					b.WriteString("- [[" + draw() + "]]\n")
					continue
				}
				b.WriteString("- [[" + tp[r.Below(uint64(len(tp)))] + "]]\n")
			}
			b.WriteString("- [[" + draw() + "]]\n")
			treetest.Write(t, dir, fmt.Sprintf("n/n%04d-%d.md", i, k), b.String())
		}
	}
	order := slices.Clone(extra)
	for i := len(order) - 1; i > 0; i-- {
		j := int(r.Below(uint64(i + 1)))
		order[i], order[j] = order[j], order[i]
	}
	for i := 0; i < len(order); i += 4 {
		var b strings.Builder
		for _, n := range order[i:min(i+4, len(order))] {
			b.WriteString("- [[" + n + "]]\n")
		}
		treetest.Write(t, dir, fmt.Sprintf("n/x%04d.md", i), b.String())
	}
	return noematest.OpenSynced(t, dir, app.Options{})
}

package concepts

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestParseAcronyms: spellings of one meaning are one meaning, two lines
// of one short form add up, dotted and plain short forms share a key,
// and short forms not written as acronyms must be matched as written.
func TestParseAcronyms(t *testing.T) {
	lx := parseAcronyms(`# comment
ML = machine learning; millilitre; milliliter
U.S. = United States
ML = markup language
k8s = Kubernetes
TL;DR = too long; didn't read
broken line
 = nothing
`)
	ml := lx.entries["ml"]
	if ml == nil || len(ml.meanings) != 3 {
		t.Fatalf("ML: %+v, want 3 meanings", ml)
	}
	if !slices.Equal(ml.meanings[1], []string{"millilitre", "milliliter"}) {
		t.Errorf("ML's second meaning: %v, want both spellings", ml.meanings[1])
	}
	if lx.entries["us"] == nil || lx.entries["k8s"] == nil || lx.entries["tl;dr"] == nil {
		t.Errorf("keys: %v", slices.Sorted(maps.Keys(lx.entries)))
	}
	if len(lx.entries) != 4 {
		t.Errorf("%d entries, want 4: %v", len(lx.entries), slices.Sorted(maps.Keys(lx.entries)))
	}
	if !lx.written["k8s"] || !lx.written["TL;DR"] || lx.written["ML"] {
		t.Errorf("written: %v", lx.written)
	}
	if got := lx.byLong["learning machine"]; !slices.Equal(got, []string{"ml"}) {
		t.Errorf("byLong[machine learning]: %v", got)
	}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"ML", []string{"ml"}},
		{"MLs", []string{"ml"}},
		{"U.S.", []string{"us"}},
		{"US", []string{"us"}},
		{"k8s", []string{"k8s"}},
		{"K8S", []string{"k8s"}},
		{"TL;DR", []string{"tl;dr"}},
		{"tl;dr", nil}, // not as written
		{"ml", nil},    // a word in lower case, not an acronym
		{"Ml", nil},
		{"machine learning", nil},
	} {
		n := analyseName(tc.name)
		if got := lx.lexAcronyms(&n); !slices.Equal(got, tc.want) {
			t.Errorf("lexAcronyms(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestAcronymLexiconShapes: the shipped lexicon knows common acronyms that
// spell no initials or whose initials other names spell too; it picks
// the one meaning the vault names, and leaves an acronym whose two
// meanings the vault names to the context.
func TestAcronymLexiconShapes(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"AI", "artificial intelligence"},
		{"TV", "television"},
		{"ML", "machine learning"},
		{"PM", "prime minister"},
		{"PM", "project manager"},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		for _, ab := range [][2]*nameInfo{{&a, &b}, {&b, &a}} {
			j := compareNames(ab[0], ab[1], nil)
			if j.verdict == "" || j.weak || !slices.Contains(j.evidence, evAcronymLexicon) {
				t.Errorf("%s / %s: verdict %q weak %v evidence %v veto %q; want a review by the acronym lexicon", ab[0].text, ab[1].text, j.verdict, j.weak, j.evidence, j.veto)
			}
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"tv", "television"},         // lower case: a word
		{"AI", "Adaptive Inference"}, // initials, no meaning of the lexicon
		{"PM", "particle mesh"},
	} {
		a, b := analyseName(tc.a), analyseName(tc.b)
		if j := compareNames(&a, &b, nil); slices.Contains(j.evidence, evAcronymLexicon) {
			t.Errorf("%s / %s: evidence %v, want no acronym_lexicon", tc.a, tc.b, j.evidence)
		}
	}

	labels := []string{
		"AI", "artificial intelligence", "Adaptive Inference", "Artificial Illumination",
		"TV", "television",
		"PM", "project manager", "prime minister",
		"tv set", "total variation",
	}
	x, got := labelGroups(labels)
	for _, want := range []string{"AI | artificial intelligence", "TV | television"} {
		if !slices.Contains(got, want) {
			t.Errorf("no group %s; groups %v", want, got)
		}
	}
	for _, g := range got {
		if strings.Contains(g, "PM") || strings.Contains(g, "Adaptive") || strings.Contains(g, "Illumination") || strings.Contains(g, "variation") {
			t.Errorf("group %s: PM names two meanings in the vault, the random names are none", g)
		}
	}

	// A name the initials spell beside the lexicon's meaning is marked,
	// for the whole vault and for either concept alone.
	all := &candidates{pairs: map[uint64]uint32{}, only: -1}
	x.gather(all)
	for _, only := range []int32{-1, 4, 10} {
		cs := &candidates{pairs: map[uint64]uint32{}, only: only}
		x.gather(cs)
		if ch := cs.pairs[pairKey(4, 10)]; ch&chAcronymLexiconOther == 0 || ch != all.pairs[pairKey(4, 10)] {
			t.Errorf("only %d: TV / total variation: %v, want acronym_lexicon_other as the whole vault's %v", only, channelEvidence(ch), channelEvidence(all.pairs[pairKey(4, 10)]))
		}
	}

	// One concept alone finds the same pairs (the only channel).
	cs := &candidates{pairs: map[uint64]uint32{}, only: 1}
	x.gather(cs)
	if cs.pairs[pairKey(0, 1)]&chAcronymLexicon == 0 {
		t.Errorf("artificial intelligence alone: AI not a candidate of the acronym lexicon")
	}
	if ch := cs.pairs[pairKey(0, 2)]; ch&chAcronymLexicon != 0 {
		t.Errorf("Adaptive Inference found by the acronym lexicon: %v", channelEvidence(ch))
	}
	cs = &candidates{pairs: map[uint64]uint32{}, only: 6}
	x.gather(cs)
	for _, b := range []int32{7, 8} {
		if ch := cs.pairs[pairKey(6, b)]; ch&chAcronymLexiconSeveral == 0 {
			t.Errorf("PM / %s: %v, want acronym_lexicon_of_several", labels[b], channelEvidence(ch))
		}
	}
}

// labelGroups analyses a vault of concepts named labels (no aliases, no
// notes, no vectors, the vault's words as vocabulary) and returns its
// index and its groups, each as its members' labels sorted and joined by
// " | ", sorted.
func labelGroups(labels []string) (*dupIndex, []string) {
	m := &matcher{ids: make([]string, len(labels)), labels: labels, aliases: make([][]string, len(labels))}
	for i := range labels {
		m.ids[i] = string(rune('A' + i))
	}
	x := buildDupIndex(m)
	cons := make([]dupConcept, len(labels))
	for i := range labels {
		cons[i] = dupConcept{id: m.ids[i], label: labels[i], names: x.names[i], vocab: x.token}
	}
	groups, _ := analyseVault(x, cons, 0, nil)
	var got []string
	for _, g := range groups {
		var names []string
		for _, mb := range g.Members {
			names = append(names, mb.Label)
		}
		slices.Sort(names)
		got = append(got, strings.Join(names, " | "))
	}
	slices.Sort(got)
	return x, got
}

// BenchmarkParseAcronyms is the one-time cost of reading the shipped
// acronym lexicon (the first analyze_duplicates of a process pays it).
func BenchmarkParseAcronyms(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if lx := parseAcronyms(acronymsText); len(lx.entries) < 3000 {
			b.Fatalf("%d short forms", len(lx.entries))
		}
	}
}

// FuzzCompareNames: any two names (the user's text) are analysed and
// judged without a panic, with a score in [0, 1] and a verdict only when
// there is no veto; the acronym lexicon knows a pair either way round.
func FuzzCompareNames(f *testing.F) {
	for _, p := range [][2]string{
		{"AI", "artificial intelligence"}, {"TV", "television"}, {"k8s", "Kubernetes"}, {"TL;DR", "too long, didn't read"},
		{"U.S.", "United States"}, {"PM", "prime minister"}, {"Freud", "Sigmund Freud"}, {"Kew", "Kew, Victoria"},
		{"Trivy", "Trivy scanner"}, {"R&D", "research and development"}, {"", "!!"}, {"mL", "ML"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, x, y string) {
		a, b := analyseName(x), analyseName(y)
		vocab := map[string][]int32{}
		j := compareNames(&a, &b, vocab)
		k := compareNames(&b, &a, vocab)
		if j.score < 0 || j.score > 1 {
			t.Fatalf("%q / %q: score %v", x, y, j.score)
		}
		if j.verdict != "" && j.veto != "" {
			t.Fatalf("%q / %q: verdict %q and veto %q", x, y, j.verdict, j.veto)
		}
		if slices.Contains(j.evidence, evAcronymLexicon) != slices.Contains(k.evidence, evAcronymLexicon) {
			t.Fatalf("%q / %q: the acronym lexicon judges one order only: %v, %v", x, y, j.evidence, k.evidence)
		}
		_ = acronymLexMatch(&a, &b)
	})
}

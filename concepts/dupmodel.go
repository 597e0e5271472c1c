package concepts

import (
	"math"
	"slices"
	"strings"
)

// The pair classifier (round 9 of docs/duplicates.md): a logistic
// regression over what the rules already compute of a candidate pair —
// which rule fired or was dropped for want of context, which veto, the
// channels that found it, the fuzzy and embedding scores, the context in
// common and the shapes of the two names. Its weights are trained on the
// tuning splits of the string-level set (TestTrainPairModel, behind
// -dup-train) and written to testdata/duplicates/pairmodel.tsv. It did
// not beat the rules on the held-out split K at either operating point
// chosen on the tuning splits, so the product does not use it:
// trainedPairModel is nil, and only the string-level test sets it
// (-dup-model) to measure it.

// dupFeature names the features of a candidate pair, in the order of the
// vector pairFeatures fills and of the weights.
var dupFeature = [...]string{
	"bias",
	// What the rules said.
	"rule_merge", "rule_review", "rule_weak", "rule_dropped", "rule_score", "rule_none",
	"ev_folded_key", "ev_spacing", "ev_typo", "ev_spelling_variant", "ev_number_spelling",
	"ev_qualifier", "ev_place_region", "ev_acronym", "ev_qualifier_word", "ev_generic_head_word",
	"ev_abbreviation", "ev_standard_abbreviation", "ev_numeronym", "ev_person_name",
	"ev_category_noun", "ev_place_before", "ev_defined_in_notes",
	"veto_soft", "veto_derived_word", "veto_abbreviation_not_word", "veto_acronym_and_word",
	"veto_city_and_place", "veto_compound_and_head_word", "veto_country_and_place",
	"veto_different_qualifiers", "veto_different_words", "veto_more_specific",
	"veto_qualified_other_place", "veto_qualified_other_thing", "veto_siblings", "veto_opposites",
	// Scores.
	"fuzzy", "fuzzy_sq", "cosine", "cosine_high",
	// Context.
	"ctx_known", "ctx_none", "ctx_shared", "ctx_shared_2",
	// Channels.
	"ch_folded_key", "ch_compact", "ch_edit", "ch_token", "ch_head_word", "ch_acronym",
	"ch_embedding", "ch_version", "ch_abbreviation", "ch_acronym_of_several",
	"ch_spelling", "ch_several_qualified", "ch_defined_in_notes", "ch_count",
	// Shapes of the two names (short: the one of fewer content words).
	"short_words", "long_words", "word_gap_0", "word_gap_1", "word_gap_2", "word_gap_3",
	"only_short", "only_long", "subset", "prefix", "suffix",
	"short_acro", "long_acro", "acronym_initials", "acronym_inner", "acronym_among_words",
	"compact_prefix", "same_first", "short_upper", "long_upper", "case_differs", "short_capitals",
	"qualified", "qualified_base_equal", "lexicon", "lexicon_weak",
	"extra_english", "extra_capitalised", "extra_rare", "extra_common",
	"edit_similarity", "length_ratio", "support_low",
	// Context against what the rules said (the topic's evidence weighs
	// differently on each).
	"x_shared_review", "x_shared_dropped", "x_shared_none", "x_shared_veto",
	"x_none_dropped", "x_none_none", "x_none_veto",
	"x_shared_acronym", "x_shared_subset", "x_shared_several", "x_fuzzy_cosine",
}

// interactions are the products of two features each feature x_… is.
var interactions = [][3]string{
	{"x_shared_review", "ctx_shared", "rule_review"}, {"x_shared_dropped", "ctx_shared", "rule_dropped"},
	{"x_shared_none", "ctx_shared", "rule_none"}, {"x_shared_veto", "ctx_shared", "veto_soft"},
	{"x_none_dropped", "ctx_none", "rule_dropped"}, {"x_none_none", "ctx_none", "rule_none"},
	{"x_none_veto", "ctx_none", "veto_soft"}, {"x_shared_acronym", "ctx_shared", "acronym_initials"},
	{"x_shared_subset", "ctx_shared", "subset"}, {"x_shared_several", "ctx_shared", "ch_acronym_of_several"},
	{"x_fuzzy_cosine", "fuzzy", "cosine"},
}

// nDupFeatures is the length of a pair's feature vector.
const nDupFeatures = len(dupFeature)

// evidenceFeature and vetoFeature give the feature of an evidence word
// and of a veto's reason (the word before its colon).
var (
	evidenceFeature = featureIndex("ev_")
	vetoFeature     = featureIndex("veto_")
	featureAt       = featureIndex("")
)

func featureIndex(prefix string) map[string]int {
	m := map[string]int{}
	for i, f := range dupFeature {
		if strings.HasPrefix(f, prefix) {
			m[strings.TrimPrefix(f, prefix)] = i
		}
	}
	return m
}

func feature(name string) int {
	i, ok := featureAt[name]
	if !ok {
		panic("concepts: no pair feature " + name) // a typo in this file; TestPairFeatureNames sets each
	}
	return i
}

// hardVeto reports whether a veto's reason is one the classifier never
// overrides: a file name or a code identifier is exact, and different
// numbers or letters number different things.
func hardVeto(reason string) bool {
	for _, p := range []string{"file_name", "code_identifier", "version_number", "version_letter"} {
		if strings.HasPrefix(reason, p) {
			return true
		}
	}
	return false
}

// pairEvidence is what judgeSim knows of a pair before its verdict.
type pairEvidence struct {
	nj      nameJudgements
	best    judgement // nj.best after the notes' definitions
	shared  int       // neighbours in common
	defined int       // notes writing one as the other's short form
}

// pairFeatures fills f with the features of the pair a, b met on the
// channels ch, whose evidence is ev; informative is whether contexts say
// anything in this vault (contextInformative). Notes linking both
// concepts are left out: in the labelled vaults it is trained on, names of
// one concept never share a note and random names do, which says nothing
// of a vault written by a person.
//
// pairFeatures fills f with the features of the pair a, b met on the
// channels ch, whose evidence is ev; informative is whether contexts say
// anything in this vault (contextInformative).
func pairFeatures(f *[nDupFeatures]float64, a, b *dupConcept, ch uint16, sim *float64, ev *pairEvidence, informative bool) {
	*f = [nDupFeatures]float64{}
	set := func(name string, v float64) { f[feature(name)] = v }
	flag := func(name string, on bool) {
		if on {
			f[feature(name)] = 1
		}
	}
	f[0] = 1
	nj, best := &ev.nj, &ev.best
	j := best
	if best.verdict == "" && nj.dropped.verdict != "" {
		j = &nj.dropped
	}
	flag("rule_merge", best.verdict == VerdictMerge)
	flag("rule_review", best.verdict == VerdictReview)
	flag("rule_weak", j.verdict != "" && j.weak)
	flag("rule_dropped", best.verdict == "" && nj.dropped.verdict != "")
	flag("rule_none", j.verdict == "" && nj.veto.veto == "")
	if j.verdict != "" {
		set("rule_score", j.score)
	}
	for _, e := range j.evidence {
		if i, ok := evidenceFeature[e]; ok {
			f[i] = 1
		}
	}
	flag("ev_defined_in_notes", ev.defined > 0)
	if v := nj.veto.veto; v != "" && j.verdict == "" {
		f[feature("veto_soft")] = 1
		if i, ok := vetoFeature[v[:max(strings.IndexByte(v, ':'), 0)]]; ok {
			f[i] = 1
		}
	}
	set("fuzzy", nj.fuzzy/100)
	set("fuzzy_sq", (nj.fuzzy/100)*(nj.fuzzy/100))
	if sim != nil {
		set("cosine", *sim)
		flag("cosine_high", *sim >= 0.85)
	}
	if nj.ctxKnown && informative {
		set("ctx_known", 1)
		flag("ctx_none", nj.ctxShared == 0)
	}
	set("ctx_shared", float64(min(nj.ctxShared, 4))/4)
	flag("ctx_shared_2", nj.ctxShared >= contextSupport)
	n := 0
	for i := range channelNames {
		if ch&(1<<i) != 0 && uint16(1<<i) != chNeighbors {
			f[feature("ch_"+channelNames[i])] = 1
			n++
		}
	}
	set("ch_count", float64(min(n, 4))/4)
	nameFeatures(f, &a.names[nj.at[0]], &b.names[nj.at[1]], a.vocab)
	set("support_low", boolf(min(a.support, b.support) <= 1))
	for _, x := range interactions {
		f[feature(x[0])] = f[feature(x[1])] * f[feature(x[2])]
	}
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// nameFeatures fills the shape features of two names.
func nameFeatures(f *[nDupFeatures]float64, a, b *nameInfo, vocab map[string][]int32) {
	set := func(name string, v float64) { f[feature(name)] = v }
	short, long := a, b
	if len(short.content) > len(long.content) || len(short.content) == len(long.content) && len(short.compact) > len(long.compact) {
		short, long = long, short
	}
	set("short_words", float64(min(len(short.content), 4))/4)
	set("long_words", float64(min(len(long.content), 4))/4)
	set("word_gap_"+string(rune('0'+min(len(long.content)-len(short.content), 3))), 1)
	da, db := wordDiff(short.content, long.content)
	set("only_short", float64(min(len(da), 3))/3)
	set("only_long", float64(min(len(db), 3))/3)
	set("subset", boolf(len(da) == 0 && len(short.content) > 0))
	set("prefix", boolf(len(short.content) > 0 && hasPrefix(long.content, short.content)))
	set("suffix", boolf(len(short.content) > 0 && hasSuffix(long.content, short.content)))
	set("short_acro", boolf(short.acro))
	set("long_acro", boolf(long.acro))
	if ok, inner := acronymOf(short, long); ok {
		set("acronym_initials", boolf(!inner))
		set("acronym_inner", boolf(inner))
	}
	set("acronym_among_words", boolf(len(short.acroAt) > 0 || len(long.acroAt) > 0))
	set("compact_prefix", boolf(short.compact != "" && strings.HasPrefix(long.compact, short.compact)))
	set("same_first", boolf(short.compact != "" && long.compact != "" && short.compact[0] == long.compact[0]))
	set("short_upper", boolf(initialUpper(short.text)))
	set("long_upper", boolf(initialUpper(long.text)))
	set("case_differs", boolf(initialUpper(short.text) != initialUpper(long.text)))
	set("short_capitals", boolf(allCapitals(short.text)))
	set("qualified", boolf(short.qualBase != "" || long.qualBase != ""))
	set("qualified_base_equal", boolf(short.qualBase != "" && short.qualBase == long.folded || long.qualBase != "" && long.qualBase == short.folded))
	if ok, weak := lexiconMatch(a, b); ok {
		set("lexicon", 1)
		set("lexicon_weak", boolf(weak))
	}
	if len(db) > 0 {
		english, capitalised, rare, common := 0, 0, 0, 0
		for _, w := range db {
			if englishWords().has(w) {
				english++
			}
			if lowerIn(long.text, w) {
				capitalised++ // lowerIn: written in lower case
			}
			switch c := len(vocab[w]); {
			case c <= 1:
				rare++
			case c >= 8:
				common++
			}
		}
		k := float64(len(db))
		set("extra_english", float64(english)/k)
		set("extra_capitalised", 1-float64(capitalised)/k)
		set("extra_rare", float64(rare)/k)
		set("extra_common", float64(common)/k)
	}
	ra, rb := []rune(short.compact), []rune(long.compact)
	if n := max(len(ra), len(rb)); n > 0 {
		d := osa(ra, rb, n)
		set("edit_similarity", 1-float64(min(d, n))/float64(n))
		set("length_ratio", float64(min(len(ra), len(rb)))/float64(n))
	}
}

// dupModel is a logistic regression over pairFeatures.
type dupModel struct {
	weights [nDupFeatures]float64
	// add is the probability from which a pair the rules leave open or
	// veto softly is a review; keep, the one from which a review of the
	// rules stands.
	add, keep float64
}

// accepts reports whether the model makes a review of a pair with
// probability q that the rules made a review (review) or not.
func (m *dupModel) accepts(q float64, review bool) bool {
	return q >= m.add || review && q >= m.keep
}

// prob is the model's probability that the pair of features f is one
// concept.
func (m *dupModel) prob(f *[nDupFeatures]float64) float64 {
	z := 0.0
	for i, w := range m.weights {
		z += w * f[i]
	}
	return 1 / (1 + math.Exp(-z))
}

// modelContextBand is the probability from which a pair the classifier
// turns away without the concepts' contexts is judged again with them.
const modelContextBand = 0.15

// modelDecides reports whether the classifier decides the pair of ev:
// not a merge verdict of the rules (nor a review the neighbours make
// one), whose acceptance merge_concepts shares; not a hard veto; not an
// abbreviation the notes define.
func modelDecides(ev *pairEvidence) bool {
	b := &ev.best
	switch {
	case ev.defined > 0, b.verdict == VerdictMerge:
		return false
	case b.verdict == VerdictReview && ev.shared >= 2 && b.score >= 0.75:
		return false
	case b.verdict == "" && ev.nj.veto.veto != "" && hardVeto(ev.nj.veto.veto):
		return false
	}
	return true
}

// plainPair reports whether nothing makes the pair of ev alike: no rule
// nor veto, spelling and vectors far apart, no neighbour or context in
// common. The rules leave it alone, and so does the classifier, unasked.
func plainPair(ev *pairEvidence, sim *float64) bool {
	nj := &ev.nj
	return ev.best.verdict == "" && nj.dropped.verdict == "" && nj.veto.veto == "" && nj.fuzzy < 70 &&
		(sim == nil || *sim < 0.8) && ev.shared == 0 && nj.ctxShared == 0
}

// modelReview is the review the classifier makes of a pair it accepts
// with probability q: the rules' own when they made one, else a review
// scoring under the neighbours' promotion to merge (0.75), with the
// evidence of the rule dropped for want of context when there was one.
func modelReview(ev *pairEvidence, q float64, a, b *dupConcept) judgement {
	if ev.best.verdict == VerdictReview {
		j := ev.best
		j.evidence = append(slices.Clone(j.evidence), "classifier")
		return j
	}
	j := judgement{verdict: VerdictReview, score: math.Min(math.Round(q*100)/100, 0.74)}
	j.names = [2]string{a.names[ev.nj.at[0]].text, b.names[ev.nj.at[1]].text}
	if d := ev.nj.dropped; d.verdict != "" {
		j.evidence = append(slices.Clone(d.evidence), "classifier")
		j.names = d.names
	} else {
		j.evidence = []string{"classifier"}
	}
	j.fuzzy, j.weak = ev.nj.fuzzy, false
	return j
}

// trainedPairModel is the classifier analyze_duplicates and
// merge_concepts judge with; nil, the rules alone. Only tests set it
// (export_test.go): round 9 did not adopt it.
var trainedPairModel *dupModel

// pairModel returns the classifier to judge with, nil for the rules
// alone.
func pairModel() *dupModel { return trainedPairModel }

package concepts

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
)

// acronymsText is the shipped lexicon of common acronyms and initialisms
// (acronyms.txt): one short form a line with every expansion a reader
// commonly means by it, in any field ("PM = project manager; prime
// minister; post meridiem; …"). It is general knowledge written for noema
// in three parts (computing; science and medicine; organisations,
// business and everyday life), not taken from any labelled set.
//
//go:embed acronyms.txt
var acronymsText string

// acroLexEntry is one short form's meanings: the folded keys (sorted
// singular content words, as nameInfo.folded) of each expansion, the
// spellings of one meaning ("millilitre", "milliliter") in one slice.
type acroLexEntry struct {
	meanings [][]string
}

// acroLex is the acronym lexicon by acronymLexKey of each short form, and
// the short forms not written as acronyms ("k8s", "TL;DR", "R&D") that a
// name must match as written to be that short form.
type acroLex struct {
	entries map[string]*acroLexEntry
	written map[string]bool
	// byLong are the short forms' keys by the folded key of each
	// expansion: a name spelled out meets its acronyms.
	byLong map[string][]string
}

// acronymLexicon is acronyms.txt, read once.
var acronymLexicon = sync.OnceValue(func() *acroLex { return parseAcronyms(acronymsText) })

// parseAcronyms reads lines "SHORT = long; long…"; "#" starts a comment.
// Two lines of one short form add up.
func parseAcronyms(text string) *acroLex {
	lx := &acroLex{entries: map[string]*acroLexEntry{}, written: map[string]bool{}, byLong: map[string][]string{}}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		short, longs, ok := strings.Cut(line, "=")
		short = strings.TrimSpace(short)
		if !ok || short == "" {
			continue
		}
		k := acronymLexKey(short)
		if k == "" {
			continue
		}
		if !acronymText(short) && !digitAcronym(short) {
			lx.written[strings.ReplaceAll(short, ".", "")] = true
		}
		e := lx.entries[k]
		if e == nil {
			e = &acroLexEntry{}
			lx.entries[k] = e
		}
		for _, l := range strings.Split(longs, ";") {
			key := analyseBase(l) // the key nameInfo.folded is
			if key == "" || slices.ContainsFunc(e.meanings, func(m []string) bool { return slices.Contains(m, key) }) {
				continue
			}
			// A spelling of a meaning already listed joins it.
			am := americanWords(strings.Fields(key))
			if i := slices.IndexFunc(e.meanings, func(m []string) bool { return americanWords(strings.Fields(m[0])) == am }); i >= 0 {
				e.meanings[i] = append(e.meanings[i], key)
			} else {
				e.meanings = append(e.meanings, []string{key})
			}
			if !slices.Contains(lx.byLong[key], k) {
				lx.byLong[key] = append(lx.byLong[key], k)
			}
		}
	}
	return lx
}

// acronymLexKey is a short form's key: lower case, dotted initials and
// "R&D", "I/O" joined, other dots dropped ("U.S." and "US": "us").
func acronymLexKey(short string) string {
	t := joinInitials(strings.TrimSpace(short))
	t = strings.ReplaceAll(t, ".", "")
	if strings.ContainsAny(t, " \t") {
		return ""
	}
	return strings.ToLower(t)
}

// lexAcronyms are the keys of the lexicon's short forms name n is written
// as: an acronym ("AI", "APIs", "U.S.") or, when it is not written as
// one, exactly one of the lexicon's other short forms ("k8s", "TL;DR").
// A name in lower case is a word, not an acronym ("spa", "who").
func (lx *acroLex) lexAcronyms(n *nameInfo) []string {
	t := strings.TrimSpace(n.text)
	var out []string
	add := func(k string) {
		if lx.entries[k] != nil && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	switch {
	case n.acro || digitAcronym(t):
		add(acronymLexKey(t))
		if n.acroWord != "" {
			add(n.acroWord) // "APIs": api
		}
	case lx.written[strings.ReplaceAll(t, ".", "")]:
		add(acronymLexKey(t))
	}
	return out
}

// meaningOf is the index of the meaning of short form k that name n
// spells out, -1 for none.
func (lx *acroLex) meaningOf(k string, n *nameInfo) int {
	e := lx.entries[k]
	if e == nil {
		return -1
	}
	return slices.IndexFunc(e.meanings, func(m []string) bool { return slices.Contains(m, n.folded) })
}

// acronymLexMatch reports whether one of the names is a short form of the
// lexicon and the other spells out one of its meanings ("TV" /
// "television", "ML" / "machine learning").
func acronymLexMatch(a, b *nameInfo) bool {
	lx := acronymLexicon()
	for _, x := range [2][2]*nameInfo{{a, b}, {b, a}} {
		for _, k := range x[0].acroLex {
			if lx.meaningOf(k, x[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

// byAcronymLexicon makes j a review when the lexicon knows one name as
// the other's acronym, over any veto of spelling; a verdict of another
// rule stands, with the lexicon's evidence added.
func (j *judgement) byAcronymLexicon(a, b *nameInfo) {
	if !acronymLexMatch(a, b) {
		if j.verdict != "" && slices.Contains(j.evidence, "acronym") && (len(a.acroLex) > 0 || len(b.acroLex) > 0) {
			// The lexicon knows the acronym and lists no meaning this
			// is ("LCD" / "Lazy Concurrency Deadlock"): its initials
			// alone are a likeness the context must back.
			j.weak = true
		}
		return
	}
	if j.verdict != "" {
		j.evidence = append(j.evidence, evAcronymLexicon)
		j.weak = false
		return
	}
	j.veto = ""
	j.score, j.verdict = 0.85, VerdictReview
	j.evidence = append(j.evidence, "acronym", evAcronymLexicon)
}

// evAcronymLexicon is the evidence of a pair the acronym lexicon knows.
const evAcronymLexicon = "acronym_lexicon"

// gatherAcronymLexicon pairs each name written as a short form of the
// acronym lexicon with the concepts named by its meanings. When the vault
// names two of its meanings ("PM": project manager and prime minister),
// the pairs are acronyms of several: the context picks.
//
// Every other candidate pair of a short form whose meaning the vault
// names is marked chAcronymLexiconOther: the lexicon picked its meaning.
func (x *dupIndex) gatherAcronymLexicon(cs *candidates) {
	lx := acronymLexicon()
	named := map[int32][]int32{} // short form's concept -> its meanings' concepts
	pairsOf := func(k string, acros []int32) {
		e := lx.entries[k]
		var byMeaning [][]int32
		for _, m := range e.meanings {
			var l []int32
			for _, key := range m {
				for _, c := range x.folded[key] {
					if !slices.Contains(l, c) && !slices.Contains(acros, c) {
						l = append(l, c)
					}
				}
			}
			if len(l) > 0 {
				byMeaning = append(byMeaning, l)
			}
		}
		ch := chAcronymLexicon
		if len(byMeaning) > 1 {
			ch |= chAcronymLexiconSeveral
		}
		for _, l := range byMeaning {
			if len(l) > bucketCap {
				continue
			}
			for _, a := range acros {
				for _, b := range l {
					cs.add(a, b, ch)
					named[a] = append(named[a], b)
				}
			}
		}
	}
	defer func() {
		for key, ch := range cs.pairs {
			a, b := int32(key>>32), int32(uint32(key))
			if ch&chAcronymLexicon == 0 && (len(named[a]) > 0 && !slices.Contains(named[a], b) || len(named[b]) > 0 && !slices.Contains(named[b], a)) {
				cs.pairs[key] = ch | chAcronymLexiconOther
			}
		}
	}()
	if cs.only < 0 {
		for k, acros := range x.acroLex {
			pairsOf(k, acros)
		}
		return
	}
	// One concept's pairs: its own short forms and meanings, and the
	// short forms of the concepts other channels paired it with, so that
	// its pairs are marked as the whole vault's are.
	var keys []string
	for i := range x.names[cs.only] {
		n := &x.names[cs.only][i]
		keys = append(keys, n.acroLex...)
		keys = append(keys, lx.byLong[n.folded]...)
	}
	for key := range cs.pairs {
		for _, c := range [2]int32{int32(key >> 32), int32(uint32(key))} {
			if c != cs.only {
				for i := range x.names[c] {
					keys = append(keys, x.names[c][i].acroLex...)
				}
			}
		}
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		if acros := x.acroLex[k]; len(acros) > 0 {
			pairsOf(k, acros)
		}
	}
}

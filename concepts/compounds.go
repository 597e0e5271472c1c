package concepts

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clipped compounds (round 11, docs/duplicates.md): one word made of the
// starts of another name's words, joined — "FinTech" of financial
// technology, "websec" of web security, "NetOps" of network operations,
// "Texaco" of Texas Company, "OTel" of OpenTelemetry.

// compoundShort reports whether n may be a clipped compound: one word of
// 4-16 letters a-z (accents folded), that says it is coined — written in camel case
// ("FinTech", "OpSec"), or no English word, short form of the lexicon,
// country or city (a word of the language is a word before it is a
// compound: "Internet" is not inter- and net-). Coined by the shipped word
// list, that is: a vendor's name of the word list ("Docker") is a word.
func compoundShort(n *nameInfo) bool {
	if len(n.content) != 1 || n.file || n.ident {
		return false
	}
	w := n.content[0]
	if l := len(w); l < 4 || l > 16 || !isLetters(w) || strings.IndexFunc(w, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0 {
		// Letters of the Latin alphabet only: the cuts are counted in
		// bytes.
		return false
	}
	if camelPieces(n) != nil {
		return true
	}
	return !englishWords().has(w) && lexicon()[w] == nil && !countries[w] && !isCity(n)
}

// camelPieces is a one-word name's word cut where its case changes, when
// it is written in camel case with two to four parts ("FinTech": fin,
// tech; "OTel": o, tel; "NetOps": net, op — the word is singular, as the
// other name's are), nil otherwise. A name in capitals with a small letter
// or two ("IoT") has no such pieces.
func camelPieces(n *nameInfo) []string {
	t := strings.TrimSpace(n.text)
	if len(n.parts) < 2 || len(n.parts) > 4 || strings.IndexFunc(t, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
		return nil
	}
	lower := 0
	for _, r := range t {
		if unicode.IsLower(r) {
			lower++
		}
	}
	w := n.content[0]
	if lower*2 < len([]rune(t)) || strings.Join(n.parts, "") != strings.ToLower(stripAccents(t)) {
		return nil
	}
	out := make([]string, 0, len(n.parts))
	at := 0
	for _, p := range n.parts[:len(n.parts)-1] {
		if !strings.HasPrefix(w[at:], p) {
			return nil
		}
		out = append(out, p)
		at += len(p)
	}
	if at >= len(w) {
		return nil
	}
	return append(out, w[at:])
}

// compoundSources are the word lists of long whose starts a clipped
// compound may join: its content words, and its parts without function
// words ("OpenTelemetry"), each of 2-4 words.
func compoundSources(long *nameInfo) [][]string {
	var out [][]string
	add := func(ws []string) {
		if len(ws) >= 2 && len(ws) <= 4 && !slices.ContainsFunc(out, func(o []string) bool { return slices.Equal(o, ws) }) {
			out = append(out, ws)
		}
	}
	add(long.content)
	add(slices.DeleteFunc(slices.Clone(long.parts), func(w string) bool { return functionWords[w] }))
	return out
}

// clippedCompound reports whether short is long's words clipped and
// joined: every word of long, in order, gives its first letters and
// nothing else is left ("infosec": info-, sec-), or short's camel-case
// pieces each start the word at their place ("NetOps": net-, op-). At
// least one word is clipped (else the names are one spelling), long is
// not a person's name ("Adi Dassler" is no Adidas), and short is a coined
// word (compoundShort). It is weak (the context decides) when a clip has
// fewer than three letters outside camel case ("edtech", "regex"), or one
// in camel case ("OTel"): two letters start too many words; and when
// short is a proper name not written in camel case ("Texaco", "Adidas",
// "Univision": a name coined from words is often another thing than
// them) or in capitals ("PEMEX", "LATAM": an acronym's letters).
func clippedCompound(short, long *nameInfo) (ok, weak bool) {
	if !compoundShort(short) || len(long.content) == 0 || personLike(long) {
		return false, false
	}
	w := short.content[0]
	pieces := camelPieces(short)
	proper := pieces == nil && (initialUpper(short.text) || short.acro)
	for _, ws := range compoundSources(long) {
		if strings.Join(ws, "") == w {
			continue
		}
		if pieces != nil {
			if len(pieces) == len(ws) && startsAll(pieces, ws) {
				return true, slices.ContainsFunc(pieces, func(p string) bool { return len(p) < 2 })
			}
			continue
		}
		if m := clipsOf(w, ws); m > 0 {
			return true, proper || m < 3
		}
	}
	return false, false
}

// startsAll reports whether each of pieces starts the word of ws at its
// place, one of them shorter than its word.
func startsAll(pieces, ws []string) bool {
	clipped := false
	for i, p := range pieces {
		if !strings.HasPrefix(ws[i], p) {
			return false
		}
		clipped = clipped || len(p) < len(ws[i])
	}
	return clipped
}

// wholeWord is clipsOf's length of a piece that is a whole word: no clip.
const wholeWord = 1 << 10

// clipsOf is, over the ways to write w as the starts of ws joined (each
// two letters or more, or the whole word), the most letters of the
// shortest clipped piece (wholeWord when none is clipped); 0 when there
// is no way.
func clipsOf(w string, ws []string) int {
	if len(ws) == 0 {
		if w == "" {
			return wholeWord
		}
		return 0
	}
	first, best := ws[0], 0
	for k := min(len(first), len(w)); k >= 2 || k == len(first) && k >= 1; k-- {
		if w[:k] != first[:k] {
			continue
		}
		m := clipsOf(w[k:], ws[1:])
		if k < len(first) {
			m = min(m, k)
		}
		best = max(best, m)
	}
	return best
}

// personLike reports whether n is written as a person's name: two words
// or more, capitalised, the first a given name ("Adi Dassler").
func personLike(n *nameInfo) bool {
	return len(n.all) >= 2 && givenNames()[n.all[0]] && capitalisedName(n.text)
}

// gatherCompounds pairs a coined one-word name with the names of 2-4
// words whose starts it joins, found by their initials: the pieces of
// each way of cutting the word into two to four. A word with one such
// expansion is found as a clipped compound; one with several
// (spelled otherwise) as an acronym of several, judged only when the
// context picks one ("medtech": medical or media technology).
func (x *dupIndex) gatherCompounds(cs *candidates) {
	var found []int32
	for i, names := range x.names {
		for k := range names {
			n := &names[k]
			if !compoundShort(n) {
				continue
			}
			found = found[:0]
			for _, key := range compoundInitials(n) {
				for _, b := range x.initials[key] {
					if b != int32(i) && !slices.Contains(found, b) && x.hasCompoundOf(n, b) {
						found = append(found, b)
					}
				}
			}
			ch := uint32(chCompound)
			if len(found) > 1 && !x.spelledAsOne(found) {
				ch = chAcronymOfSeveral
			}
			if len(found) > bucketCap {
				continue
			}
			for _, b := range found {
				cs.add(int32(i), b, ch)
			}
		}
	}
}

// hasCompoundOf reports whether some name of concept b is n's clipped
// compound's long form.
func (x *dupIndex) hasCompoundOf(n *nameInfo, b int32) bool {
	for k := range x.names[b] {
		if ok, _ := clippedCompound(n, &x.names[b][k]); ok {
			return true
		}
	}
	return false
}

// compoundInitials are the initials of the ways to cut n's word into two
// to four pieces of two letters or more, and of its camel-case parts.
func compoundInitials(n *nameInfo) []string {
	w := n.content[0]
	var out []string
	add := func(k string) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	if p := camelPieces(n); p != nil {
		var b strings.Builder
		for _, s := range p {
			b.WriteByte(s[0])
		}
		add(b.String())
	}
	var cut func(rest string, key string, pieces int)
	cut = func(rest string, key string, pieces int) {
		if pieces >= 2 && len(rest) == 0 {
			add(key)
			return
		}
		if pieces == 4 || len(rest) < 2 {
			return
		}
		for k := 2; k <= len(rest); k++ {
			cut(rest[k:], key+rest[:1], pieces+1)
		}
	}
	cut(w, "", 0)
	return out
}

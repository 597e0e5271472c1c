package concepts

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
)

// abbreviationsText is the shipped lexicon of standard English short
// forms (abbreviations.txt): titles and ranks, US states, Canadian
// provinces and Australian states, months and days, units, Latin
// abbreviations and common clipped words, each with its long forms.
// It is general knowledge of English, written for noema, not taken from
// any labelled set.
//
//go:embed abbreviations.txt
var abbreviationsText string

// lexEntry is one short form's long forms, each as content words. word
// marks a short form that is also a word or another common abbreviation
// ("sun", "mass", "PA"; any of one or two letters), several one with
// long forms of several things ("bio": biology, biography): alone, either
// is its long form only with context — but a short form written with its
// dot ("Col.", "Pa.") is no word.
type lexEntry struct {
	long          [][]string
	word, several bool
}

// lexicon is the shipped short forms by their content words joined by a
// space ("fl oz", "sgt"), read once.
var lexicon = sync.OnceValue(func() map[string]*lexEntry {
	m := map[string]*lexEntry{}
	for _, line := range strings.Split(abbreviationsText, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		ambiguous := strings.HasPrefix(line, "~")
		short, longs, ok := strings.Cut(strings.TrimPrefix(line, "~"), "=")
		if !ok {
			continue
		}
		sw := contentWords(short)
		if len(sw) == 0 || len(sw) > 2 {
			continue
		}
		k := strings.Join(sw, " ")
		e := m[k]
		if e == nil {
			e = &lexEntry{}
			m[k] = e
		}
		// A short form of one or two letters alone is as often an
		// acronym of something else ("PA", "MS", "kg" aside).
		e.word = e.word || ambiguous || len(sw) == 1 && len([]rune(sw[0])) <= 2
		for _, l := range strings.Split(longs, ";") {
			if lw := contentWords(l); len(lw) > 0 && !slices.ContainsFunc(e.long, func(x []string) bool { return slices.Equal(x, lw) }) {
				e.long = append(e.long, lw)
			}
		}
	}
	for _, e := range m {
		// A short form of several things ("bio": biology, biography;
		// "doc": document, documentation) is the one the context picks;
		// two spellings of one ("millimetre", "millimeter") are one.
		first := americanWords(e.long[0])
		e.several = slices.ContainsFunc(e.long[1:], func(l []string) bool { return americanWords(l) != first })
	}
	return m
})

// americanWords is ws in American spelling, joined by a space.
func americanWords(ws []string) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = americanWord(w, true)
	}
	return strings.Join(out, " ")
}

// contentWords are text's words as analyseName folds them (lower case,
// accents stripped, singular), function words left out.
func contentWords(text string) []string {
	var out []string
	for _, w := range words(text) {
		if w = singular(w); !functionWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// lexKey is a name's folded key with one of its short forms written out
// ("sergeant" of "Sgt.", "fluid ounce" of "fl oz"); weak when the short
// form is the whole name and ambiguous (lexEntry).
type lexKey struct {
	key  string
	weak bool
}

// lexiconKeys are the folded keys of content (the words of text) with one
// short form of the lexicon (a word, or two words in order) replaced by
// each of its long forms.
func lexiconKeys(text string, content []string) []lexKey {
	dotted := strings.HasSuffix(strings.TrimSpace(text), ".")
	lex := lexicon()
	var out []lexKey
	for i := range content {
		for l := 1; l <= 2 && i+l <= len(content); l++ {
			e := lex[strings.Join(content[i:i+l], " ")]
			if e == nil {
				continue
			}
			for _, long := range e.long {
				ws := make([]string, 0, len(content)-l+len(long))
				ws = append(append(append(ws, content[:i]...), long...), content[i+l:]...)
				slices.Sort(ws)
				weak := l == len(content) && (e.several || e.word && !dotted)
				out = append(out, lexKey{strings.Join(slices.Compact(ws), " "), weak})
			}
		}
	}
	return append(out, allWrittenOut(content, lex)...)
}

// allWrittenOut are the folded keys of content with every one of its
// short forms of one word written out at once ("major general" of "Maj.
// Gen."), when it has two or more; at most 8, one for each choice of
// their long forms.
func allWrittenOut(content []string, lex map[string]*lexEntry) []lexKey {
	n := 0
	for _, w := range content {
		if lex[w] != nil {
			n++
		}
	}
	if n < 2 {
		return nil
	}
	keys := [][]string{nil}
	for _, w := range content {
		e := lex[w]
		if e == nil {
			for i := range keys {
				keys[i] = append(keys[i], w)
			}
			continue
		}
		var next [][]string
		for _, k := range keys {
			for _, long := range e.long {
				if len(next) < 8 {
					next = append(next, append(slices.Clone(k), long...))
				}
			}
		}
		keys = next
	}
	out := make([]lexKey, 0, len(keys))
	for _, ws := range keys {
		slices.Sort(ws)
		out = append(out, lexKey{key: strings.Join(slices.Compact(ws), " ")})
	}
	return out
}

// lexiconMatch reports whether one name is the other with a short form of
// the lexicon written out ("Sgt." / "sergeant", "Pt. Reyes" / "Point
// Reyes", "fl oz" / "fluid ounce"), and whether that needs context: an
// ambiguous short form alone, or a one-word name capitalised against one
// that is not, unless written in capitals ("Crocs" / "crocodile": a
// brand, as a clip keeps its case; "BBQ" / "barbecue" is one;
// "Sgt." / "sergeant" is written so), or a short clip without a dot that
// is also a word or names several things ("doc" / "document", as the
// clip rule has it; "avo" / "avocado" is one).
func lexiconMatch(a, b *nameInfo) (ok, weak bool) {
	weak = true
	for _, x := range [2][2]*nameInfo{{a, b}, {b, a}} {
		for _, k := range x[0].lex {
			if k.key == x[1].folded {
				// A short form in capitals is written so whatever the long
				// form's case ("BBQ" / "barbecue").
				w := k.weak || len(x[0].content) == 1 && !strings.HasSuffix(x[0].text, ".") &&
					(initialUpper(x[0].text) != initialUpper(x[1].text) && !x[0].acro || shortClip(x[0].content[0], x[1].content) && lexAmbiguous(x[0].content[0]))
				ok, weak = true, weak && w
			}
		}
	}
	return ok, ok && weak
}

// lexAmbiguous reports whether the short form w of the lexicon is also a
// word or names several things: a short clip of it ("doc", "temp") is
// that long form only with context, an unambiguous one ("avo", "resp")
// is it.
func lexAmbiguous(w string) bool {
	e := lexicon()[w]
	return e == nil || e.word || e.several
}

// shortClip reports whether the one word w, written without a dot, is
// the start of long's one word and short enough to be a word of its own
// (under 4 letters, of a word under 9, or over half of it: "doc",
// "func", "env"), as the clip rule has it (shortens).
func shortClip(w string, long []string) bool {
	if len(long) != 1 || !strings.HasPrefix(long[0], w) {
		return false
	}
	rx, ry := len([]rune(w)), len([]rune(long[0]))
	return rx < 4 || ry < 9 || 2*rx > ry
}

// lexiconOther reports whether the word short is a short form of the
// lexicon whose long forms do not include the word long: "chem" is
// chemistry, not a clip of chemtrail.
func lexiconOther(short, long string) bool {
	e := lexicon()[short]
	if e == nil {
		return false
	}
	return !slices.ContainsFunc(e.long, func(l []string) bool { return len(l) == 1 && l[0] == long })
}

package concepts

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema"
)

// Abbreviations the notes define. People write an abbreviation beside
// what it stands for the first time they use it: "Transport Layer
// Security (TLS)", "[[TLS]] (Transport Layer Security)", "the Secret
// Intelligence Service (MI6)". When the two are concepts of the vault,
// that is the writer saying they are one: evidence no spelling rule has
// for acronyms no initials spell (MI6, CERN), and evidence that picks one
// expansion of an acronym of several.

const (
	// defineNotes is the most notes read for each phrase looked up.
	defineNotes = 64
	// defineScore is the review score of a pair a note defines.
	defineScore = 0.9
	// defineWords is the most words of a long form before a parenthesis.
	defineWords = 10
	// defineInner is the most runes inside the parenthesis.
	defineInner = 100
)

// shortForm reports whether a name can be an abbreviation a note spells
// out: one word of 2-8 letters and digits (an ampersand inside: "P&L")
// with two upper-case letters or more, or one and a digit ("MI6", "S3"),
// or an acronym as names.go reads them ("IoT", "U.S.").
func shortForm(text string) bool {
	text = strings.TrimSpace(text)
	if acronymText(text) {
		return true
	}
	n := utf8.RuneCountInString(text)
	if n < 2 || n > 8 {
		return false
	}
	upper, digits, letters := 0, 0, 0
	for i, r := range text {
		switch {
		case unicode.IsUpper(r):
			upper++
			letters++
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		case r == '&' && i > 0 && i < len(text)-1:
		default:
			return false
		}
	}
	return letters > 0 && (upper >= 2 || upper >= 1 && digits >= 1)
}

// definition is an abbreviation written beside what it stands for in a
// note: short, and the candidates for the long form, longest first (the
// words before a parenthesis, each suffix of them).
type definition struct {
	short string
	long  []string
}

// definitionsIn returns the definitions written in a note's body: a long
// form followed by the short form in parentheses, or a short form followed
// by the long form in parentheses, either side a link or plain text, and
// a link to the long form shown as the short form.
func definitionsIn(body string) []definition {
	out := displayedShortForms(body)
	for i := 0; i < len(body); i++ {
		if body[i] != '(' {
			continue
		}
		end := strings.IndexAny(body[i+1:], "()\n")
		if end < 0 || body[i+1+end] != ')' {
			continue
		}
		inner := plainText(body[i+1 : i+1+end])
		if utf8.RuneCountInString(inner) > defineInner {
			continue
		}
		line := body[:i]
		if nl := strings.LastIndexByte(line, '\n'); nl >= 0 {
			line = line[nl+1:]
		}
		before := plainText(lastClause(line))
		ws := strings.Fields(before)
		switch {
		case len(ws) == 0:
		case shortForm(inner):
			// "Transport Layer Security (TLS)"
			if link := lastLink(line); link != "" {
				out = append(out, definition{short: inner, long: []string{link}})
				continue
			}
			ws = ws[max(0, len(ws)-defineWords):]
			d := definition{short: inner}
			for k := range ws {
				d.long = append(d.long, strings.Join(ws[k:], " "))
			}
			out = append(out, d)
		case shortForm(strings.Trim(ws[len(ws)-1], "\"'*_")):
			// "TLS (Transport Layer Security)"
			long := inner
			if k := strings.IndexAny(long, ",;"); k >= 0 {
				long = long[:k]
			}
			if long = strings.TrimSpace(long); long != "" {
				out = append(out, definition{short: strings.Trim(ws[len(ws)-1], "\"'*_"), long: []string{long}})
			}
		}
	}
	return out
}

// displayedShortForms are the links written with a short form as their
// text ("[[Transport Layer Security|TLS]]"): the writer shows the
// abbreviation and links what it stands for.
func displayedShortForms(body string) []definition {
	var out []definition
	for rest := body; ; {
		k := strings.Index(rest, "[[")
		if k < 0 {
			return out
		}
		rest = rest[k+2:]
		e := strings.Index(rest, "]]")
		if e < 0 {
			return out
		}
		t := rest[:e]
		if bar := strings.IndexByte(t, '|'); bar >= 0 && !strings.Contains(t, "\n") {
			target, text := strings.TrimSpace(t[:bar]), strings.TrimSpace(t[bar+1:])
			if hash := strings.IndexByte(target, '#'); hash >= 0 {
				target = strings.TrimSpace(target[:hash])
			}
			if target != "" && shortForm(text) && !shortForm(target) {
				out = append(out, definition{short: text, long: []string{target}})
			}
		}
		rest = rest[e+2:]
	}
}

// lastClause is the text of a line after its last stop (a sentence end,
// a semicolon, a colon, a comma, a dash). A dot that ends an initialism
// ("U.S. Army") or a short capitalised abbreviation ("Mt. Fuji", "Dr.") is
// not a stop.
func lastClause(line string) string {
	line = strings.TrimRight(line, " \t")
	for k := len(line) - 1; k >= 0; k-- {
		switch line[k] {
		case ';', ':', '!', '?', ',':
			return line[k+1:]
		case '.':
			start := strings.LastIndexByte(line[:k], ' ') + 1
			if !abbreviationDot(line[start : k+1]) {
				return line[k+1:]
			}
		}
		if strings.HasPrefix(line[k:], "—") || strings.HasPrefix(line[k:], "–") {
			return line[k+len("—"):]
		}
	}
	return line
}

// abbreviationDot reports whether a word ending in a dot is an initialism
// or a short capitalised abbreviation rather than a sentence's end.
func abbreviationDot(w string) bool {
	w = strings.TrimLeft(w, "([*_\"'")
	if strings.Count(w, ".") >= 2 {
		return true // "U.S.", "e.g."
	}
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) && utf8.RuneCountInString(w) <= 4
}

// lastLink is the target of a link that ends the text ("the [[European
// Central Bank]]" → "European Central Bank"), "" when it does not end in
// one.
func lastLink(text string) string {
	text = strings.TrimRight(text, " \t")
	if !strings.HasSuffix(text, "]]") {
		return ""
	}
	k := strings.LastIndex(text, "[[")
	if k < 0 {
		return ""
	}
	t := text[k+2 : len(text)-2]
	if bar := strings.IndexByte(t, '|'); bar >= 0 {
		t = t[:bar]
	}
	if hash := strings.IndexByte(t, '#'); hash >= 0 {
		t = t[:hash]
	}
	return strings.TrimSpace(t)
}

// plainText is text with its links written as their targets ("[[A|b]]"
// is "A"), emphasis marks dropped, spaces trimmed.
func plainText(text string) string {
	var b strings.Builder
	for {
		k := strings.Index(text, "[[")
		if k < 0 {
			break
		}
		e := strings.Index(text[k:], "]]")
		if e < 0 {
			break
		}
		b.WriteString(text[:k])
		t := text[k+2 : k+e]
		if bar := strings.IndexByte(t, '|'); bar >= 0 {
			t = t[:bar]
		}
		b.WriteString(t)
		text = text[k+e+2:]
	}
	b.WriteString(text)
	return strings.TrimSpace(strings.NewReplacer("**", "", "__", "", "`", "").Replace(b.String()))
}

// definedPairs reads the notes that write each of phrases and returns, for
// each concept written as a short form there, the concepts its long forms
// name and in how many notes. Both sides are matched to concepts by name:
// the short form by its key, the long form by its folded key (the longest
// run of words before the parenthesis that names a concept).
func definedPairs(ctx context.Context, nt noema.NoteTextIndex, x *dupIndex, phrases []string) (map[int32]map[int32]int, error) {
	byKey := func(s string) []int32 {
		n := analyseName(s)
		var out []int32
		for _, c := range x.folded[n.folded] {
			for _, m := range x.names[c] {
				if m.key == n.key {
					out = append(out, c)
					break
				}
			}
		}
		return out
	}
	seen := map[[3]int64]bool{}
	out := map[int32]map[int32]int{}
	err := nt.NotesWriting(ctx, phrases, defineNotes, func(id int64, body string) {
		for _, d := range definitionsIn(body) {
			shorts := byKey(d.short)
			if len(shorts) != 1 {
				continue
			}
			s := shorts[0]
			for _, l := range d.long {
				n := analyseName(l)
				if n.folded == "" || shortForm(l) || len(n.all) < 2 && utf8.RuneCountInString(l) < utf8.RuneCountInString(d.short)+3 || containsShort(n, d.short) {
					continue
				}
				longs := x.folded[n.folded]
				if len(longs) == 0 {
					continue
				}
				for _, c := range longs {
					if c == s || seen[[3]int64{id, int64(s), int64(c)}] {
						continue
					}
					seen[[3]int64{id, int64(s), int64(c)}] = true
					if out[s] == nil {
						out[s] = map[int32]int{}
					}
					out[s][c]++
				}
				break // the longest run that names a concept
			}
		}
	})
	return out, err
}

// containsShort reports whether a long form has the short form among its
// words (its letters, digits left out): "NFL Draft (NFL)", "HTML 4.01
// (HTML5)" name something more specific, not what the short form stands
// for.
func containsShort(long nameInfo, short string) bool {
	letters := strings.ToLower(strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) {
			return r
		}
		return -1
	}, short))
	if utf8.RuneCountInString(letters) < 2 {
		return false
	}
	return slices.ContainsFunc(long.all, func(w string) bool { return strings.Trim(w, "0123456789") == letters })
}

// shortFormPhrases are the names of the concepts among cons (all for nil)
// written as short forms.
func shortFormPhrases(x *dupIndex, cons []int32) []string {
	var out []string
	add := func(c int32) {
		for _, n := range x.names[c] {
			if shortForm(n.text) {
				out = append(out, n.text)
			}
		}
	}
	if cons == nil {
		for c := range x.names {
			add(int32(c))
		}
		return out
	}
	for _, c := range cons {
		add(c)
	}
	return out
}

// definitionsAmong is definedPairs of all the vault's short forms (of
// nil), or of those that concern the concepts of: their own short forms
// and those the notes write beside their names. A short form's
// definitions are always read in full, so that one concept's analysis,
// a merge and the whole vault's pick the same expansion.
func definitionsAmong(ctx context.Context, nt noema.NoteTextIndex, x *dupIndex, of []int32) (map[int32]map[int32]int, error) {
	if of == nil {
		return definedPairs(ctx, nt, x, shortFormPhrases(x, nil))
	}
	shorts := map[int32]bool{}
	var longNames []string
	for _, c := range of {
		for _, n := range x.names[c] {
			if shortForm(n.text) {
				shorts[c] = true
			} else {
				longNames = append(longNames, n.text)
			}
		}
	}
	if len(longNames) > 0 {
		found, err := definedPairs(ctx, nt, x, longNames)
		if err != nil {
			return nil, err
		}
		for s, longs := range found {
			for _, c := range of {
				if longs[c] > 0 {
					shorts[s] = true
				}
			}
		}
	}
	if len(shorts) == 0 {
		return nil, nil
	}
	list := make([]int32, 0, len(shorts))
	for s := range shorts {
		list = append(list, s)
	}
	slices.Sort(list)
	defs, err := definedPairs(ctx, nt, x, shortFormPhrases(x, list))
	if err != nil {
		return nil, err
	}
	for s := range defs {
		if !shorts[s] {
			delete(defs, s) // a short form met in its notes, not asked about
		}
	}
	return defs, nil
}

// setDefinitions gives each short-form concept of defs the expansion the
// notes define it as, when one concept is defined in more notes than any
// other ("TLS" written beside Transport Layer Security in 3 notes and
// thread-local storage in 1 is Transport Layer Security; on a tie it is
// neither), and returns the pairs.
func setDefinitions(defs map[int32]map[int32]int, con func(int32) *dupConcept) [][2]int32 {
	var pairs [][2]int32
	for s, longs := range defs {
		best, n, tie := int32(-1), 0, false
		for c, k := range longs {
			switch {
			case k > n:
				best, n, tie = c, k, false
			case k == n:
				tie = true
			}
		}
		if best < 0 || tie {
			continue
		}
		a, b := con(s), con(best)
		if a == nil || b == nil {
			continue
		}
		a.expansion = b.id
		if a.defined == nil {
			a.defined = map[string]int{}
		}
		if b.defined == nil {
			b.defined = map[string]int{}
		}
		a.defined[b.id], b.defined[a.id] = n, n
		pairs = append(pairs, [2]int32{s, best})
	}
	return pairs
}

// definedAs reports in how many notes a and b are written as a short form
// and what it stands for (0: none).
func definedAs(a, b *dupConcept) int { return a.defined[b.id] }

// otherExpansion reports whether one of a and b is a short form the notes
// define as a third concept: an acronym judged by its initials alone then
// names something else.
func otherExpansion(a, b *dupConcept) bool {
	return a.expansion != "" && a.expansion != b.id || b.expansion != "" && b.expansion != a.id
}

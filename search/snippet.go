package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/bits"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/cjk"
	"github.com/noema-mem/noema/vault"
)

// Ellipsis marks text cut from a snippet.
const Ellipsis = "…"

// snippets fills each candidate's snippet: for a hit found by words, the
// window of the body holding the most distinct query terms, every
// occurrence marked; for `[[X]]` hits, the text around the first link to
// X; for semantic hits, the start of the best chunk (terms marked when
// they occur); else the start of the body, else the title. Never empty.
func (s *Service) snippets(ctx context.Context, page []*candidate, p *parsed) error {
	ids := make([]int64, 0, len(page))
	for _, c := range page {
		if !c.hasBody {
			ids = append(ids, c.id)
		}
	}
	bodies := map[int64]string{}
	if len(ids) > 0 {
		var err error
		if bodies, err = s.DB.SearchBodies(ctx, ids); err != nil {
			return err
		}
	}
	for _, c := range page {
		body := bodies[c.id]
		if c.hasBody {
			body = c.body
		}
		// markTerms folds white space as clean does: only the link's
		// window is cleaned, the others capped.
		snip, folded := "", false
		switch {
		case c.linkKeys != nil:
			snip = linkSnippet(body, c.linkKeys)
		case c.textHit:
			occ := c.occ
			if !c.hasOcc {
				occ = occurrences(body, p)
			}
			snip, folded = termSnippet(body, occ, p), true
		}
		// A chunk cut before the note was edited (its chunks not cut
		// again yet) may start past the body: the body's start then.
		if strings.TrimSpace(snip) == "" && c.chunk != nil && c.chunk.Start < len(body) {
			snip, folded = markTerms(window(body, c.chunk.Start), p), true
		}
		if strings.TrimSpace(snip) == "" {
			snip, folded = markTerms(window(body, 0), p), true
		}
		if folded {
			snip = capRunes(snip)
		} else {
			snip = clean(snip)
		}
		if snip == "" {
			snip = clean(c.note.Title)
		}
		if snip == "" {
			snip = noema.NoteURI(c.note.Path)
		}
		c.snippet = snip
	}
	return nil
}

// clean folds runs of white space into one space and caps the length:
// strings.Join(strings.Fields(s), " "), capped by capRunes.
func clean(s string) string {
	var f folder
	f.b.Grow(len(s))
	f.text(s)
	return capRunes(f.b.String())
}

// capRunes cuts s to 3 × SnippetChars runes and an ellipsis.
func capRunes(s string) string {
	const hardMax = 3 * SnippetChars
	if len(s) > hardMax && utf8.RuneCountInString(s) > hardMax { // no more runes than bytes
		rs := []rune(s)
		s = string(rs[:hardMax]) + Ellipsis
	}
	return s
}

// asciiSpace reports whether c is white space as strings.Fields sees an
// ASCII byte.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// window returns about SnippetChars characters of body starting near byte
// offset at (moved back to a word start), with ellipses where text was cut.
func window(body string, at int) string {
	at = max(0, min(at, len(body)))
	for at > 0 && at < len(body) && !utf8.RuneStart(body[at]) {
		at--
	}
	start := at
	if start > 0 {
		// Back up to the start of the word.
		for start > 0 && !isSpaceBefore(body, start) {
			start--
		}
	}
	end := start
	n := 0
	for end < len(body) && n < SnippetChars {
		if body[end] < utf8.RuneSelf {
			end++
		} else {
			_, size := utf8.DecodeRuneInString(body[end:])
			end += size
		}
		n++
	}
	if end < len(body) {
		// Finish the word, within reason.
		for k := 0; end < len(body) && k < 20 && !unicode.IsSpace(rune(body[end])); k++ {
			_, size := utf8.DecodeRuneInString(body[end:])
			end += size
		}
	}
	out := body[start:end]
	if start > 0 {
		out = Ellipsis + out
	}
	if end < len(body) {
		out += Ellipsis
	}
	return out
}

func isSpaceBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsSpace(r)
}

// stem is the part of a query word a body word must start with to count
// as the same word: a light suffix stripper in the spirit of the index's
// porter stemmer ("compression" and "compresses" both start with
// "compress"; "running" gives "run"), used only to place and mark
// snippets. Words of four letters or fewer are kept whole.
func stem(w string) string {
	if utf8.RuneCountInString(w) <= 4 {
		return w
	}
	for _, suf := range []string{"ations", "ation", "ings", "ing", "ions", "ion", "ies", "ied", "ers", "er", "ed", "es", "ly", "s", "y", "e"} {
		if strings.HasSuffix(w, suf) && utf8.RuneCountInString(w)-utf8.RuneCountInString(suf) >= 3 {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && w[n-1] < utf8.RuneSelf && !strings.ContainsRune("aeiouslz", rune(w[n-1])) {
		w = w[:n-1] // runn(ing) -> run
	}
	return w
}

// occurrence is a query term found in a text: bytes [a, b), term index.
type occurrence struct{ a, b, term int }

// occurrences finds the query's terms in text: a word term at the start of
// a word that begins with its stem (the whole word is the occurrence), a
// CJK run anywhere. Matching ignores ASCII case (indexFold: the passage
// lift runs it on every body it reads, and lowering a copy of each was a
// third of its time). At most 1,000 are found.
func occurrences(text string, p *parsed) []occurrence {
	if p == nil || p.empty() || text == "" {
		return nil
	}
	var out []occurrence
	for ti, t := range p.terms {
		needle, anchor := p.needle(ti)
		if len(needle) == 0 {
			continue
		}
		for from := 0; from < len(text) && len(out) < 1000; {
			i := indexFold(text[from:], needle, anchor)
			if i < 0 {
				break
			}
			a := from + i
			b := a + len(needle)
			if t.cjk {
				out = append(out, occurrence{a, b, ti})
				from = b
				continue
			}
			if a > 0 && isWordRuneBefore(text, a) {
				from = b
				continue
			}
			for b < len(text) {
				r, size := utf8.DecodeRuneInString(text[b:])
				if !isWordRune(r) || cjk.Is(r) {
					break
				}
				b += size
			}
			out = append(out, occurrence{a, b, ti})
			from = b
		}
	}
	if !strictlyByStart(out) { // one term's are: found left to right
		sort.Slice(out, func(i, j int) bool { return out[i].a < out[j].a })
	}
	return out
}

// indexFold is bytes.Index(lowered text, needle), text's ASCII capitals
// lowered (asciiLower), needle holding none: the first place of needle in
// text ignoring ASCII case, -1 for none. It reads text as it is, finding
// the candidates by needle's byte at anchor, its rarest (rarestByte), in
// either case — where bytes.Index stops at every occurrence of the first
// byte, a common letter every few bytes of the bodies the passage lift
// scans.
func indexFold(text string, needle []byte, anchor int) int {
	n := len(needle)
	if n == 0 || anchor < 0 || anchor >= n {
		return bytes.Index(lowerInto(nil, text), needle)
	}
	lo, up := needle[anchor], needle[anchor]
	if 'a' <= lo && lo <= 'z' {
		up = lo - ('a' - 'A')
	}
	last := len(text) - n + anchor // the anchor's last possible place
	nextLo, nextUp := -1, -1       // the next place of each case at or after i; -2: none
	if up == lo {
		nextUp = -2
	}
	for i := anchor; i <= last; i++ {
		if nextLo != -2 && nextLo < i {
			if nextLo = strings.IndexByte(text[i:last+1], lo); nextLo >= 0 {
				nextLo += i
			} else {
				nextLo = -2
			}
		}
		if nextUp != -2 && nextUp < i {
			if nextUp = strings.IndexByte(text[i:last+1], up); nextUp >= 0 {
				nextUp += i
			} else {
				nextUp = -2
			}
		}
		switch {
		case nextLo == -2 && nextUp == -2:
			return -1
		case nextUp == -2 || (nextLo != -2 && nextLo < nextUp):
			i = nextLo
		default:
			i = nextUp
		}
		if equalFold(text[i-anchor:i-anchor+n], needle) {
			return i - anchor
		}
	}
	return -1
}

// equalFold reports whether s with its ASCII capitals lowered is needle.
func equalFold(s string, needle []byte) bool {
	for k := range len(needle) {
		c := s[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != needle[k] {
			return false
		}
	}
	return true
}

// rarestByte returns the position in needle of its rarest byte in
// English text (letters by their frequency; digits, other bytes and
// those of multi-byte runes rarer than any letter), the first of equals.
func rarestByte(needle []byte) int {
	const byFrequency = "etaoinshrdlcumwfgypbvkjxqz" // most frequent first
	rank := func(c byte) int {
		if i := strings.IndexByte(byFrequency, c); i >= 0 {
			return len(byFrequency) - i
		}
		if c == ' ' {
			return len(byFrequency) + 1 // more frequent than any letter
		}
		return 0
	}
	best := 0
	for i := 1; i < len(needle); i++ {
		if rank(needle[i]) < rank(needle[best]) {
			best = i
		}
	}
	return best
}

// strictlyByStart reports whether occ is sorted by start, no two equal
// (any sort by start then leaves it as it is).
func strictlyByStart(occ []occurrence) bool {
	for i := 1; i < len(occ); i++ {
		if occ[i].a <= occ[i-1].a {
			return false
		}
	}
	return true
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	return string(lowerInto(nil, s))
}

// lowerInto is s with its ASCII capitals lower-cased, in dst's storage
// (grown when it is too small). It works eight bytes at a time (the
// snippets and the passage lift lower every body they read: a byte loop
// was most of their cost).
func lowerInto(dst []byte, s string) []byte {
	b := append(dst[:0], s...)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], lower8(binary.LittleEndian.Uint64(b[i:])))
	}
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return b
}

// lower8 lower-cases the ASCII capitals among the eight bytes of x,
// leaving every other byte (those of multi-byte runes included) as it is.
func lower8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	low7 := x &^ highs                 // each byte's low seven bits
	geA := low7 + (0x80-'A')*ones      // high bit: low7 >= 'A'
	gtZ := low7 + (0x80-'Z'-1)*ones    // high bit: low7 > 'Z'
	capital := geA &^ gtZ &^ x & highs // and the byte itself < 0x80
	return x | capital>>2              // 0x80 >> 2 = 'a' - 'A'
}

// termSnippet returns the window of body that holds the most distinct
// query terms (the earliest such), every occurrence marked; "" when no
// term occurs in body. occ are the terms' occurrences in body.
func termSnippet(body string, occ []occurrence, p *parsed) string {
	if len(occ) == 0 {
		return ""
	}
	best, bestN := 0, 0
	for i := range occ {
		var seen uint64 // terms are fewer than 64 (MaxTerms)
		for j := i; j < len(occ) && occ[j].b-occ[i].a <= SnippetChars; j++ {
			seen |= 1 << occ[j].term
		}
		if n := bits.OnesCount64(seen); n > bestN {
			best, bestN = i, n
		}
	}
	// Some context before the first match: a third of the window.
	at := occ[best].a
	back := 0
	for at > 0 && back < SnippetChars/4 {
		_, size := utf8.DecodeLastRuneInString(body[:at])
		at -= size
		back++
	}
	return markTerms(window(body, at), p)
}

func isWordRuneBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWordRune(r) && !cjk.Is(r)
}

// markTerms marks every occurrence of the query's terms in w, its white
// space folded as clean folds it (the snippets only cap what it returns:
// cleaning each again was a sixth of their time).
func markTerms(w string, p *parsed) string {
	occ := occurrences(w, p)
	var f folder
	f.b.Grow(len(w) + len(occ)*(len(MarkOpen)+len(MarkClose)))
	last := 0
	for _, o := range occ {
		if o.a < last {
			continue // overlaps the previous mark
		}
		// An occurrence is word runes: no white space to fold.
		f.text(w[last:o.a])
		f.word(MarkOpen)
		f.word(w[o.a:o.b])
		f.word(MarkClose)
		last = o.b
	}
	f.text(w[last:])
	return f.b.String()
}

// folder writes text with its white space folded as clean folds it: none
// before the first word or after the last, one space between words.
type folder struct {
	b     strings.Builder
	space bool // white space was skipped after a word: a space is due
}

// text writes s, folding its white space: each stretch of ASCII that
// needs no folding (words apart by one space) in one write.
func (f *folder) text(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if ' ' < c && c < utf8.RuneSelf { // most bytes: ASCII, not a space
			j := i + 1
			for j < len(s) {
				if d := s[j]; ' ' < d && d < utf8.RuneSelf {
					j++
				} else if d == ' ' && j+1 < len(s) && ' ' < s[j+1] && s[j+1] < utf8.RuneSelf {
					j += 2
				} else {
					break
				}
			}
			f.word(s[i:j])
			i = j
			continue
		}
		size, space := 1, asciiSpace(c)
		if c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
		}
		if space {
			f.space = f.b.Len() > 0
		} else {
			f.word(s[i : i+size])
		}
		i += size
	}
}

// word writes s, which starts and ends with other runes than white space
// (and holds none but single spaces), after the space due.
func (f *folder) word(s string) {
	if f.space {
		f.b.WriteByte(' ')
		f.space = false
	}
	f.b.WriteString(s)
}

// linkSnippet returns the window around the first [[link]] in body whose
// target has one of keys, the link marked; "" when there is none.
func linkSnippet(body string, keys map[string]bool) string {
	for from := 0; from < len(body); {
		i := strings.Index(body[from:], "[[")
		if i < 0 {
			return ""
		}
		i += from
		j := strings.Index(body[i+2:], "]]")
		if j < 0 {
			return ""
		}
		j += i + 2
		inner := body[i+2 : j]
		target := inner
		if k := strings.IndexAny(target, "|#"); k >= 0 {
			target = target[:k]
		}
		if !strings.Contains(inner, "\n") && keys[vault.Key(target)] {
			w := window(body, max(0, i-SnippetChars/3))
			link := body[i : j+2]
			if k := strings.Index(w, link); k >= 0 {
				w = w[:k] + MarkOpen + link + MarkClose + w[k+len(link):]
			}
			return w
		}
		from = j + 2
	}
	return ""
}

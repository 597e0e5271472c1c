package search

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// oldClean is clean as it was before markTerms folded white space
// (b7588a7): fold runs of white space in one pass, then cap.
func oldClean(s string) string {
	var b strings.Builder
	word := -1
	for i := 0; i <= len(s); {
		space, size := true, 1
		if i < len(s) {
			if c := s[i]; c < utf8.RuneSelf {
				space = asciiSpace(c)
			} else {
				var r rune
				r, size = utf8.DecodeRuneInString(s[i:])
				space = unicode.IsSpace(r)
			}
		}
		switch {
		case !space && word < 0:
			word = i
		case space && word >= 0:
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s[word:i])
			word = -1
		}
		i += size
	}
	return capRunes(b.String())
}

// oldMarkTerms is markTerms as it was before it folded white space
// (b7588a7): the marks only, the white space left to clean.
func oldMarkTerms(w string, p *parsed) string {
	var b strings.Builder
	last := 0
	for _, o := range occurrences(w, p) {
		if o.a < last {
			continue
		}
		b.WriteString(w[last:o.a] + MarkOpen + w[o.a:o.b] + MarkClose)
		last = o.b
	}
	b.WriteString(w[last:])
	return b.String()
}

// TestSnippetsAsBefore checks that a marked window (a term snippet, a
// chunk's, the body's start), capped as the snippets now cap it, is the
// one the old markTerms and clean made, on bodies long enough to be cut
// and capped: every kind of white space, invalid UTF-8 and lone lead
// bytes beside the marks (whose first byte is one), marks in the text,
// CJK runs of one-rune terms (a mark for each rune, past the cap), stems,
// prefixes; and that clean (the link snippets') is the old clean.
func TestSnippetsAsBefore(t *testing.T) {
	pieces := []string{" ", "  ", "\n", "\n\n", "\t", "\r\n", "\v", "\f", "\u00a0", "\u0085", "\u1680", "\u2003", "\u2028", "\u205f", "\u3000", "\u200b",
		"cat", "Cats", "CAT", "zebra", "zebras!", "running", "Runner", "東京", "都", "都都都", "x", "é", "e\u0301", "naïve", "(", "…", "«", "»",
		"\xff", "\xc2", "\xe2\x80", "\x80", "\xc2\xab", "[[Cat]]", "cat's", "3cat", "-cat-"}
	queries := []string{"cat zebra", "cats", "東京 zebra", "都", "x", "é", "running", "run*", "naïve cat", "the of", "«cat»", "e\u0301"}
	rng := rand.New(rand.NewPCG(13, 14))
	for range 4000 {
		var b strings.Builder
		n := rng.IntN(40)
		if rng.IntN(3) == 0 {
			n = 150 + rng.IntN(600) // past a window, and past the cap
		}
		for range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		body := b.String()
		p := parse(queries[rng.IntN(len(queries))])
		ats := []int{0, rng.IntN(len(body) + 1), len(body)}
		for _, o := range occurrences(body, p) {
			ats = append(ats, o.a)
		}
		for _, at := range ats {
			w := window(body, at)
			if got, want := capRunes(markTerms(w, p)), oldClean(oldMarkTerms(w, p)); got != want {
				t.Fatalf("body %q at %d, query %v: snippet %q, was %q", body, at, p.terms, got, want)
			}
			if got, want := clean(w), oldClean(w); got != want {
				t.Fatalf("clean(%q) = %q, was %q", w, got, want)
			}
		}
		if got, want := clean(body), oldClean(body); got != want {
			t.Fatalf("clean(%q) = %q, was %q", body, got, want)
		}
	}
}

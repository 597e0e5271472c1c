package search

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema/vault"
)

// snippetTokens is the FTS5 snippet window: about SnippetChars characters
// of English text.
const snippetTokens = 24

// Ellipsis marks text cut from a snippet.
const Ellipsis = "…"

// snippets fills each candidate's snippet: FTS5's window around the best
// match for full-text hits (stemming-aware marks), the concept's first
// link for `[[X]]` hits, the best chunk's start for semantic hits, else
// the start of the body, else the title. Never empty.
func (s *Service) snippets(ctx context.Context, page []*candidate, p *parsed, match string) error {
	ids := make([]int64, 0, len(page))
	var textIDs []int64
	for _, c := range page {
		ids = append(ids, c.id)
		if c.textHit {
			textIDs = append(textIDs, c.id)
		}
	}
	bodies, err := s.DB.SearchBodies(ctx, ids)
	if err != nil {
		return err
	}
	snips := map[int64]string{}
	if match != "" && len(textIDs) > 0 {
		snips, err = s.DB.SearchSnippets(ctx, p.anyTerm(), textIDs, SnippetSpec{Open: MarkOpen, Close: MarkClose, Ellipsis: Ellipsis, Tokens: snippetTokens})
		if err != nil {
			return err
		}
	}
	for _, c := range page {
		body := bodies[c.id]
		var snip string
		switch {
		case c.linkKeys != nil:
			snip = linkSnippet(body, c.linkKeys)
		case c.textHit:
			snip = snips[c.id]
			if !strings.Contains(snip, MarkOpen) {
				// The match is in the title or the CJK column: find the
				// terms in the body here.
				if w := termSnippet(body, p); w != "" {
					snip = w
				}
			}
		}
		if strings.TrimSpace(snip) == "" && c.chunk != nil {
			snip = window(body, c.chunk.Start)
		}
		if strings.TrimSpace(snip) == "" {
			snip = window(body, 0)
		}
		snip = clean(snip)
		if snip == "" {
			snip = clean(c.note.Title)
		}
		if snip == "" {
			snip = noteURI(c.note.Path)
		}
		c.fallback = snip
	}
	return nil
}

// clean folds runs of white space into one space and caps the length.
func clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const hardMax = 3 * SnippetChars
	if utf8.RuneCountInString(s) > hardMax {
		rs := []rune(s)
		s = string(rs[:hardMax]) + Ellipsis
	}
	return s
}

// window returns about SnippetChars characters of body starting near byte
// offset at (moved back to a word start), with ellipses where text was cut.
func window(body string, at int) string {
	at = max(0, min(at, len(body)))
	for at > 0 && !utf8.RuneStart(body[at]) {
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
		_, size := utf8.DecodeRuneInString(body[end:])
		end += size
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

// termSnippet finds the first occurrence in body of any query term (a CJK
// run as a substring, a word as a case-insensitive word prefix, so that
// "compress" finds "compression") and returns the window around it with
// every occurrence in it marked; "" when no term occurs.
func termSnippet(body string, p *parsed) string {
	if p == nil || p.empty() || body == "" {
		return ""
	}
	lower := strings.ToLower(body)
	first := -1
	for _, t := range p.terms {
		if i := findTerm(lower, strings.ToLower(t.text), t.cjk); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	if first < 0 {
		return ""
	}
	w := window(body, max(0, first-SnippetChars/3))
	return markTerms(w, p)
}

// findTerm returns the byte offset of the first occurrence of term in text
// (both lower case): anywhere for CJK, at a word start otherwise.
func findTerm(text, term string, cjk bool) int {
	if term == "" {
		return -1
	}
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], term)
		if i < 0 {
			return -1
		}
		i += from
		if cjk || i == 0 || !isWordRuneBefore(text, i) {
			return i
		}
		from = i + len(term)
	}
	return -1
}

func isWordRuneBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWordRune(r)
}

// markTerms marks every occurrence of the query's terms in w: whole words
// that start with a word term, and CJK runs anywhere.
func markTerms(w string, p *parsed) string {
	lower := strings.ToLower(w)
	if len(lower) != len(w) {
		return w // case folding changed byte lengths: leave unmarked
	}
	type span struct{ a, b int }
	var spans []span
	for _, t := range p.terms {
		term := strings.ToLower(t.text)
		for from := 0; from < len(lower); {
			i := findTerm(lower[from:], term, t.cjk)
			if i < 0 {
				break
			}
			a := from + i
			b := a + len(term)
			if !t.cjk {
				for b < len(w) {
					r, size := utf8.DecodeRuneInString(w[b:])
					if !isWordRune(r) {
						break
					}
					b += size
				}
			}
			spans = append(spans, span{a, b})
			from = b
		}
	}
	if len(spans) == 0 {
		return w
	}
	// Merge overlaps, in order.
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].a < spans[j-1].a; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.a < last {
			continue
		}
		b.WriteString(w[last:sp.a])
		b.WriteString(MarkOpen)
		b.WriteString(w[sp.a:sp.b])
		b.WriteString(MarkClose)
		last = sp.b
	}
	b.WriteString(w[last:])
	return b.String()
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

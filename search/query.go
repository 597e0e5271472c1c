package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema/internal/cjk"
)

// MaxTerms caps the distinct terms of one query; the rest of a long paste is
// ignored (with a warning), which keeps a 900-character query as fast as a
// short one.
const MaxTerms = 16

// nearDistance is the window, in tokens, of the proximity bonus.
const nearDistance = 10

// maxPhraseWords caps the words of the exact-phrase bonus.
const maxPhraseWords = 8

// Column filters of the FTS5 table notes_fts (see migration 0008_search.sql).
const (
	textColumns = "{title body}"
	cjkColumn   = "cjk"
)

// term is one thing a note may contain: a word (matched with English
// stemming in the title and body) or a run of CJK text (matched as a
// substring through the bigram column).
type term struct {
	text   string
	prefix bool // word* in the query
	cjk    bool
}

// expr is the term's FTS5 expression. Every user string is a double-quoted
// FTS5 string (a quote inside is doubled), so no operator, column name or
// special character of the user's text ever reaches the FTS5 parser.
func (t term) expr() string {
	if t.cjk {
		grams := bigrams(t.text)
		if len(grams) == 1 && utf8.RuneCountInString(grams[0]) == 1 {
			return cjkColumn + " : " + quote(grams[0]) + " *"
		}
		return cjkColumn + " : " + quote(strings.Join(grams, " "))
	}
	if t.prefix {
		return textColumns + " : " + quote(t.text) + " *"
	}
	return textColumns + " : " + quote(t.text)
}

// quote returns s as an FTS5 string.
func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// parsed is a sanitised query.
type parsed struct {
	// terms are the distinct content terms, in query order (stop words
	// dropped unless the query has nothing else).
	terms []term
	// words are all the query's non-CJK words in order, for the phrase
	// bonus.
	words []string
	// truncated reports that terms were dropped past MaxTerms.
	truncated bool
	// needles are the terms as occurrences looks for them (needle), with
	// their anchors: a parsed query is used by one search, on one
	// goroutine.
	needles [][]byte
	anchors []int
}

// needle is what occurrences looks for of term i: its text with ASCII
// capitals lowered, a word cut to its stem; nil for none. anchor is the
// position of its rarest byte in English text (indexFold).
func (p *parsed) needle(i int) (needle []byte, anchor int) {
	if p.needles == nil {
		p.needles = make([][]byte, len(p.terms))
		p.anchors = make([]int, len(p.terms))
		for j, t := range p.terms {
			n := asciiLower(t.text)
			if !t.cjk {
				n = stem(n)
			}
			if n != "" {
				p.needles[j] = []byte(n)
				p.anchors[j] = rarestByte(p.needles[j])
			}
		}
	}
	return p.needles[i], p.anchors[i]
}

// empty reports whether the query has nothing to search for.
func (p *parsed) empty() bool { return len(p.terms) == 0 }

// exprs are the terms' full-text expressions, in order: the keys their
// counts are cached and read under (termDocs, termCache).
func (p *parsed) exprs() []string {
	exprs := make([]string, len(p.terms))
	for i, t := range p.terms {
		exprs[i] = t.expr()
	}
	return exprs
}

// match returns the FTS5 expression of the query's terms, any of them
// (empty when there is no term). The phrase and proximity bonus is
// [parsed.bonus], searched beside it.
func (p *parsed) match() string { return p.matchSkipping(nil) }

// matchSkipping is match without the terms whose index skip holds (terms
// too common to find partial matches by; see Service.ranked).
func (p *parsed) matchSkipping(skip map[int]bool) string {
	parts := make([]string, 0, len(p.terms))
	for i, t := range p.terms {
		if !skip[i] {
			parts = append(parts, t.expr())
		}
	}
	return strings.Join(parts, " OR ")
}

// bonus returns the FTS5 expression of the phrase and proximity bonus: the
// exact phrase of the words, and their terms within [nearDistance] tokens
// of each other (NEAR). A note matching it adds its BM25 to that of the
// terms (noema.TextQuery.Bonus). Empty when the query has fewer than two words.
func (p *parsed) bonus() string {
	if p.empty() {
		return ""
	}
	var parts []string
	if n := len(p.words); n >= 2 && n <= maxPhraseWords {
		parts = append(parts, textColumns+" : "+quote(strings.Join(p.words, " ")))
	}
	var near []string
	for _, t := range p.terms {
		if !t.cjk && !t.prefix {
			near = append(near, quote(t.text))
		}
	}
	if n := len(near); n >= 2 && n <= maxPhraseWords {
		parts = append(parts, textColumns+" : NEAR("+strings.Join(near, " ")+", "+itoa(nearDistance)+")")
	}
	return strings.Join(parts, " OR ")
}

// bonusHoldsAll reports whether every note matching [parsed.bonus] holds
// every term of the query: the exact phrase holds every word, so every term
// when none is a CJK run (a prefix term is matched by its word); the NEAR
// group is made of the terms that are neither CJK nor prefixes, so it holds
// every term when there are no others. (A term FTS5 cuts into several
// tokens is a sub-phrase of the phrase, as its tokens follow each other.)
// False when there is no bonus.
func (p *parsed) bonusHoldsAll() bool {
	if p.bonus() == "" {
		return false
	}
	cjk, prefix := false, false
	for _, t := range p.terms {
		cjk = cjk || t.cjk
		prefix = prefix || t.prefix
	}
	if n := len(p.words); n >= 2 && n <= maxPhraseWords && cjk {
		return false
	}
	near := 0
	for _, t := range p.terms {
		if !t.cjk && !t.prefix {
			near++
		}
	}
	if near >= 2 && near <= maxPhraseWords && (cjk || prefix) {
		return false
	}
	return true
}

// all returns the FTS5 expression a note matches when it contains every
// term; "" for a query of one term (every hit has it).
func (p *parsed) all() string {
	if len(p.terms) < 2 {
		return ""
	}
	parts := make([]string, len(p.terms))
	for i, t := range p.terms {
		parts[i] = t.expr()
	}
	return strings.Join(parts, " AND ")
}

// plainOR is the baseline the evaluation compares with: every word of the
// query OR-ed, no stop words removed, no stemming-aware bonus.
func (p *parsed) plainOR(raw string) string {
	var parts []string
	seen := map[string]bool{}
	for _, tok := range tokenize(raw) {
		k := strings.ToLower(tok.text)
		if seen[k] {
			continue
		}
		seen[k] = true
		parts = append(parts, term{text: tok.text, cjk: tok.cjk}.expr())
	}
	return strings.Join(parts, " OR ")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// token is a raw piece of the query.
type token struct {
	text   string
	prefix bool
	cjk    bool
}

// isWordRune reports whether r belongs to a word as FTS5's unicode61
// tokenizer sees it: letters, numbers and marks (categories L*, N*, M*).
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// tokenize splits raw into words and CJK runs. Everything that is not a
// letter, number or mark separates tokens; a '*' right after a word makes
// it a prefix. Invalid UTF-8 separates too.
func tokenize(raw string) []token {
	var out []token
	var b strings.Builder
	inCJK := false
	flush := func(prefix bool) {
		if b.Len() > 0 {
			out = append(out, token{text: b.String(), prefix: prefix && !inCJK, cjk: inCJK})
			b.Reset()
		}
	}
	for i, r := range raw {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(raw[i:]); size == 1 {
				flush(false)
				continue
			}
		}
		switch {
		case cjk.Is(r):
			if !inCJK {
				flush(false)
				inCJK = true
			}
			b.WriteRune(r)
		case isWordRune(r):
			if inCJK {
				flush(false)
				inCJK = false
			}
			b.WriteRune(r)
		default:
			flush(r == '*')
			inCJK = false
		}
	}
	flush(false)
	return out
}

// operators are FTS5's query keywords; typed in capitals they are taken as
// noise, not as words (queries are never interpreted as FTS5 syntax).
var operators = map[string]bool{"AND": true, "OR": true, "NOT": true, "NEAR": true}

// stopWords are English function words: they do not count as terms of an
// all-terms match and are not searched for, unless a query has nothing
// else ("to be or not to be").
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or not nor but if then else of to in on at by for with
		from into onto over under about as is are was were be been being am do does did done doing
		have has had having i me my we our you your he him his she her it its they them their this that
		these those there here what which who whom whose when where why how can could should would will
		shall may might must so than too very just also any all some each every no yes s t d ll m re ve
		via vs etc`) {
		m[w] = true
	}
	return m
}()

// parse sanitises a query (never failing: see the package doc).
func parse(raw string) *parsed {
	p := &parsed{}
	toks := tokenize(raw)
	seen := map[string]bool{}
	var content, stop []term
	for _, tok := range toks {
		if !tok.cjk {
			if operators[tok.text] {
				continue
			}
			p.words = append(p.words, tok.text)
		}
		key := strings.ToLower(tok.text)
		if tok.prefix {
			key += "*"
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		t := term(tok)
		if t.prefix && utf8.RuneCountInString(t.text) < 2 {
			t.prefix = false // "a*" would match half the index
		}
		if !t.cjk && (stopWords[strings.ToLower(t.text)] || (utf8.RuneCountInString(t.text) == 1 && t.text[0] < utf8.RuneSelf)) {
			stop = append(stop, t)
			continue
		}
		content = append(content, t)
	}
	if len(content) == 0 {
		content = stop
	}
	if len(content) > MaxTerms {
		content, p.truncated = content[:MaxTerms], true
	}
	if len(p.words) > MaxTerms {
		p.words = p.words[:MaxTerms]
	}
	p.terms = content
	return p
}

// bigrams cuts a CJK run into overlapping two-character pieces and, last,
// its final character alone; a one-character run is that character.
func bigrams(run string) []string {
	rs := []rune(run)
	if len(rs) == 1 {
		return []string{run}
	}
	out := make([]string, 0, len(rs)-1)
	for i := 0; i+1 < len(rs); i++ {
		out = append(out, string(rs[i:i+2]))
	}
	return out
}

package testkit

import (
	"fmt"
	"math"
	"strings"
	"unicode"
)

// ftsExpr is a parsed full-text expression: clauses joined by OR (any)
// or AND (every). The zero ftsExpr matches nothing.
type ftsExpr struct {
	clauses []ftsClause
	and     bool
}

// ftsClause is one column-filtered clause: a phrase (a prefix when
// prefix), or phrases within near tokens of each other (NEAR).
type ftsClause struct {
	cjk     bool
	phrases [][]string // lowercase words; for cjk, the run's text
	prefix  bool
	near    int // > 0: a NEAR group
}

// parseFTS parses what the query sanitiser writes; anything else is an
// error naming it.
func parseFTS(e string) (ftsExpr, error) {
	var x ftsExpr
	rest := strings.TrimSpace(e)
	for rest != "" {
		var c ftsClause
		switch {
		case strings.HasPrefix(rest, "{title body} : "):
			rest = rest[len("{title body} : "):]
		case strings.HasPrefix(rest, "cjk : "):
			rest, c.cjk = rest[len("cjk : "):], true
		default:
			return x, fmt.Errorf("testkit: full-text expression %q: want a column filter at %q", e, rest)
		}
		if r, ok := strings.CutPrefix(rest, "NEAR("); ok {
			rest = r
			for strings.HasPrefix(rest, `"`) {
				var ph string
				ph, rest = cutQuoted(rest)
				c.phrases = append(c.phrases, words(ph))
				rest = strings.TrimPrefix(rest, " ")
			}
			if _, err := fmt.Sscanf(rest, ", %d)", &c.near); err != nil {
				return x, fmt.Errorf("testkit: full-text expression %q: bad NEAR at %q", e, rest)
			}
			rest = rest[strings.IndexByte(rest, ')')+1:]
		} else {
			if !strings.HasPrefix(rest, `"`) {
				return x, fmt.Errorf("testkit: full-text expression %q: want a phrase at %q", e, rest)
			}
			var ph string
			ph, rest = cutQuoted(rest)
			if c.cjk {
				c.phrases = [][]string{{cjkRun(ph)}}
			} else {
				c.phrases = [][]string{words(ph)}
			}
			if r, ok := strings.CutPrefix(rest, " *"); ok {
				rest, c.prefix = r, true
			}
		}
		x.clauses = append(x.clauses, c)
		switch {
		case strings.HasPrefix(rest, " OR "):
			rest = rest[4:]
		case strings.HasPrefix(rest, " AND "):
			rest, x.and = rest[5:], true
		case rest != "":
			return x, fmt.Errorf("testkit: full-text expression %q: want OR or AND at %q", e, rest)
		}
	}
	return x, nil
}

// cutQuoted returns the FTS5 string at the start of s ("" doubles a
// quote) and what follows it.
func cutQuoted(s string) (string, string) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '"' {
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			return b.String(), s[i+1:]
		}
		b.WriteByte(s[i])
	}
	return b.String(), ""
}

// cjkRun is the run of CJK text the bigrams of a cjk phrase spell ("ab bc"
// → "abc").
func cjkRun(grams string) string {
	parts := strings.Fields(grams)
	if len(parts) == 0 {
		return ""
	}
	run := []rune(parts[0])
	for _, g := range parts[1:] {
		r := []rune(g)
		run = append(run, r[len(r)-1])
	}
	return string(run)
}

// words splits text into lowercase words as FTS5's unicode61 tokenizer
// does: runs of letters, numbers and marks.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
	})
}

// ftsDoc is a note's text as the full-text index sees it: the words of
// its title and body, and its raw text for the cjk column.
type ftsDoc struct {
	cols [2][]string
	raw  string
	cjk  int // CJK runes: the cjk column's length
}

// ftsCorpus is every note's ftsDoc and the average length, for bm25.
type ftsCorpus struct {
	docs map[int64]*ftsDoc
	avg  float64
}

// corpus reads the notes' text; s.mu is held.
func (s *Search) corpus() *ftsCorpus {
	c := &ftsCorpus{docs: map[int64]*ftsDoc{}}
	total := 0
	for id, n := range s.notes {
		d := &ftsDoc{cols: [2][]string{words(n.note.Title), words(n.body)}, raw: n.note.Title + "\n" + n.body}
		for _, r := range d.raw {
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
				d.cjk++
			}
		}
		c.docs[id] = d
		total += d.length()
	}
	if len(c.docs) > 0 {
		c.avg = float64(total) / float64(len(c.docs))
	}
	return c
}

func (d *ftsDoc) length() int { return len(d.cols[0]) + len(d.cols[1]) + d.cjk }

// matches reports whether the document matches x.
func (x ftsExpr) matches(d *ftsDoc) bool {
	if len(x.clauses) == 0 {
		return false
	}
	for _, c := range x.clauses {
		m := c.total(d) > 0
		if x.and && !m {
			return false
		}
		if !x.and && m {
			return true
		}
	}
	return x.and
}

// total is how many times the clause matches the document.
func (c ftsClause) total(d *ftsDoc) int {
	n := 0
	for i := range c.phrases {
		f := c.freq(d, i)
		n += f[0] + f[1] + f[2]
	}
	return n
}

// freq counts the hits of the clause's phrase i in the title, body and
// cjk columns; a NEAR group's phrases count only where they all meet
// within its window.
func (c ftsClause) freq(d *ftsDoc, i int) [3]int {
	var f [3]int
	if c.cjk {
		// A run, or one character with a prefix: a substring either way.
		f[2] = strings.Count(d.raw, c.phrases[i][0])
		return f
	}
	for col, toks := range d.cols {
		at := positions(toks, c.phrases[i], c.prefix)
		if c.near > 0 {
			ok := true
			for k := range c.phrases {
				if k != i && !nearAny(at, positions(toks, c.phrases[k], false), c.near) {
					ok = false
				}
			}
			if !ok {
				at = nil
			}
		}
		f[col] = len(at)
	}
	return f
}

// positions returns where the phrase starts among toks.
func positions(toks, phrase []string, prefix bool) []int {
	var at []int
	if len(phrase) == 0 {
		return nil
	}
	for i := 0; i+len(phrase) <= len(toks); i++ {
		ok := true
		for k, w := range phrase {
			last := k == len(phrase)-1
			if toks[i+k] != w && !(prefix && last && strings.HasPrefix(toks[i+k], w)) {
				ok = false
				break
			}
		}
		if ok {
			at = append(at, i)
		}
	}
	return at
}

// nearAny reports whether a position of a is within n tokens of one of b.
func nearAny(a, b []int, n int) bool {
	for _, x := range a {
		for _, y := range b {
			if x-y <= n+1 && y-x <= n+1 {
				return true
			}
		}
	}
	return false
}

// bm25 is FTS5's bm25() of the document for x's phrases with the column
// weights (title, body, cjk): k1 1.2, b 0.75, negative (lower is better).
func (c *ftsCorpus) bm25(x ftsExpr, d *ftsDoc, weights [3]float64) float64 {
	const k1, b = 1.2, 0.75
	score := 0.0
	for _, cl := range x.clauses {
		for i := range cl.phrases {
			n := 0
			for _, o := range c.docs {
				if f := cl.freq(o, i); f[0]+f[1]+f[2] > 0 {
					n++
				}
			}
			idf := math.Log((float64(len(c.docs)-n) + 0.5) / (float64(n) + 0.5))
			if idf <= 0 {
				idf = 1e-6
			}
			f := cl.freq(d, i)
			w := weights[0]*float64(f[0]) + weights[1]*float64(f[1]) + weights[2]*float64(f[2])
			score += idf * w * (k1 + 1) / (w + k1*(1-b+b*float64(d.length())/c.avg))
		}
	}
	return -score
}

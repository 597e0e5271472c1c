package corpus

import (
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Shares of links written with a heading anchor and/or display text.
const (
	headingRate = 0.08
	displayRate = 0.10
)

// avgSentenceBytes estimates the bytes of note per sentence (other blocks
// included), to spread links evenly over a note.
const avgSentenceBytes = 130

// noteGen writes one note.
type noteGen struct {
	opts *Options
	voc  *vocabulary
	plan *notePlan
	r    *rng
	buf  []byte

	links     []Link
	linkIdx   []int // vocabulary index of each link
	linksLeft int
	fakes     int // fake links written
	blocks    int
}

// generate writes the note into g.buf and returns its manifest entry.
func (g *noteGen) generate() Note {
	p := g.plan
	g.linksLeft = g.opts.LinksPerNote
	if p.frontMatter {
		g.frontMatter()
	}
	if g.r.chance(0.7) {
		g.block("# " + p.title + "\n")
	}
	target := g.opts.TargetBytes
	fakesLeft := p.fakes
	lastHeading := false
	for len(g.buf)+g.tail(fakesLeft) < target {
		if fakesLeft > 0 && g.r.chance(0.2) {
			g.fakeBlock()
			fakesLeft--
			lastHeading = false
			continue
		}
		kind := g.r.weighted([]float64{0.50, 0.12, 0.14, 0.05, 0.05, 0.05, 0.04, 0.03})
		if kind == 1 && (lastHeading || target-len(g.buf) < 200) {
			kind = 0
		}
		lastHeading = kind == 1
		switch kind {
		case 0:
			g.paragraph()
		case 1:
			g.heading()
		case 2:
			g.list(func(int) string { return "- " })
		case 3:
			g.list(func(i int) string { return strconv.Itoa(i+1) + ". " })
		case 4:
			g.list(func(int) string {
				if g.r.chance(0.4) {
					return "- [x] "
				}
				return "- [ ] "
			})
		case 5:
			g.block("> " + g.sentence(6, 14) + "\n")
		case 6:
			g.block(g.r.pick(codeSnippets) + "\n")
		default:
			g.table()
		}
	}
	for ; fakesLeft > 0; fakesLeft-- {
		g.fakeBlock()
	}
	if g.linksLeft > 0 {
		var b strings.Builder
		b.WriteString("## Related\n\n")
		for g.linksLeft > 0 {
			b.WriteString("- ")
			b.WriteString(g.link())
			b.WriteString("\n")
		}
		g.block(b.String())
	}
	return Note{
		Path:        p.path,
		Title:       p.title,
		Aliases:     p.aliases,
		Tags:        p.tags,
		FrontMatter: p.frontMatter,
		Created:     p.created,
		Modified:    p.modified,
		Links:       g.links,
		FakeLinks:   g.fakes,
		Bytes:       len(g.buf),
	}
}

// tail estimates the bytes still to come after the main loop: the fake-link
// blocks not yet written and the "Related" list of links not yet placed.
func (g *noteGen) tail(fakesLeft int) int {
	n := fakesLeft * 90
	if g.linksLeft > 0 {
		n += 12 + g.linksLeft*25
	}
	return n
}

// block appends a block (text ending in "\n"), separated from the previous
// one by a blank line.
func (g *noteGen) block(s string) {
	if g.blocks > 0 {
		g.buf = append(g.buf, '\n')
	}
	g.buf = append(g.buf, s...)
	g.blocks++
}

func (g *noteGen) frontMatter() {
	p := g.plan
	b := []byte("---\n")
	if p.fmTitle {
		b = append(b, "title: "+yamlString(p.title)+"\n"...)
	}
	if len(p.tags) > 0 {
		b = yamlList(b, "tags", p.tags, p.tagsFlow)
	}
	if len(p.aliases) > 0 {
		b = yamlList(b, "aliases", p.aliases, false)
	}
	layout := time.RFC3339
	if p.dateOnly {
		layout = time.DateOnly
	}
	if p.fmCreated {
		b = append(b, "created: "+p.created.Format(layout)+"\n"...)
	}
	if p.fmModified {
		b = append(b, "modified: "+p.modified.Format(layout)+"\n"...)
	}
	if p.fmCustom {
		b = append(b, g.r.pick([]string{
			"custom: {x: 1}\n",
			"custom:\n  x: 1\n  nested: [a, b]\n",
			"status: draft\ncustom: {x: 1}\n",
			"rating: 4\nsource: https://example.com/papers/42\n",
		})...)
	}
	b = append(b, "---\n"...)
	g.buf = append(g.buf, b...)
	// The front matter is not a block: the body starts right after it.
}

// yamlList appends key with items as a flow or block sequence.
func yamlList(b []byte, key string, items []string, flow bool) []byte {
	if flow {
		q := make([]string, len(items))
		for i, s := range items {
			q[i] = yamlString(s)
		}
		return append(b, key+": ["+strings.Join(q, ", ")+"]\n"...)
	}
	b = append(b, key+":\n"...)
	for _, s := range items {
		b = append(b, "  - "+yamlString(s)+"\n"...)
	}
	return b
}

// yamlString returns s as a YAML plain scalar when that is unambiguous
// (starts with a letter; only letters, digits, spaces and inner hyphens; not
// a YAML 1.1 boolean or null), else double-quoted.
func yamlString(s string) string {
	plain := s != "" && unicode.IsLetter([]rune(s)[0]) && !strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "-")
	for _, c := range s {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != ' ' && c != '-' {
			plain = false
			break
		}
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n":
		plain = false
	}
	if plain {
		return s
	}
	return strconv.Quote(s)
}

// paragraph appends 2–5 sentences, stopping early once the note is full.
func (g *noteGen) paragraph() {
	var b strings.Builder
	n := g.r.between(2, 5)
	for i := range n {
		if i > 0 {
			if len(g.buf)+b.Len() >= g.opts.TargetBytes {
				break
			}
			b.WriteByte(' ')
		}
		b.WriteString(g.sentence(6, 16))
	}
	b.WriteByte('\n')
	g.block(b.String())
}

func (g *noteGen) heading() {
	level := "## "
	if g.r.chance(0.3) {
		level = "### "
	}
	g.block(level + g.r.pick(headingWords) + "\n")
}

// list appends 2–5 items, each prefixed by marker(i).
func (g *noteGen) list(marker func(int) string) {
	var b strings.Builder
	for i := range g.r.between(2, 5) {
		if i >= 2 && len(g.buf)+b.Len() >= g.opts.TargetBytes {
			break
		}
		b.WriteString(marker(i))
		b.WriteString(g.sentence(3, 9))
		b.WriteByte('\n')
	}
	g.block(b.String())
}

func (g *noteGen) table() {
	var b strings.Builder
	b.WriteString("| Metric | Value | Note |\n| --- | ---: | --- |\n")
	for range g.r.between(2, 4) {
		b.WriteString("| " + g.r.pick(proseWords) + " | " + strconv.Itoa(g.r.Intn(1000)) + " ms | " + g.r.pick(proseWords) + " |\n")
	}
	g.block(b.String())
}

// sentence returns lo–hi prose words, carrying as many links as keep the
// remaining ones evenly spread over the rest of the note.
func (g *noteGen) sentence(lo, hi int) string {
	n := g.r.between(lo, hi)
	nlinks := 0
	if g.linksLeft > 0 {
		room := float64(g.opts.TargetBytes-len(g.buf)) / avgSentenceBytes
		want := float64(g.linksLeft) / max(room, 1)
		nlinks = int(want)
		if g.r.chance(want - float64(nlinks)) {
			nlinks++
		}
		nlinks = min(nlinks, 3, g.linksLeft)
	}
	at := make([]int, nlinks) // word positions that are preceded by a link
	for i := range at {
		at[i] = g.r.Intn(n + 1)
	}
	var b strings.Builder
	for i := 0; i <= n; i++ {
		for _, a := range at {
			if a == i {
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(g.link())
			}
		}
		if i == n {
			break
		}
		w := g.r.pick(proseWords)
		if b.Len() == 0 {
			w = capitalize(w)
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		if i < n-1 && g.r.chance(0.08) {
			b.WriteByte(',')
		}
	}
	if g.r.chance(0.1) {
		b.WriteByte('?')
	} else {
		b.WriteByte('.')
	}
	return b.String()
}

// link draws a concept and returns a real link to it, recording it.
func (g *noteGen) link() string {
	idx := g.voc.sample(g.r)
	label := g.voc.labels[idx]
	l := Link{Target: label, Label: label}
	if g.r.chance(g.opts.VariantRate) {
		l.Target = variant(g.r, label)
	}
	if g.r.chance(headingRate) {
		l.Heading = g.r.pick(headingWords)
	}
	if g.r.chance(displayRate) {
		l.Display = g.display(label)
	}
	g.links = append(g.links, l)
	g.linkIdx = append(g.linkIdx, idx)
	g.linksLeft--
	s := "[[" + l.Target
	if l.Heading != "" {
		s += "#" + l.Heading
	}
	if l.Display != "" {
		s += "|" + l.Display
	}
	return s + "]]"
}

// display returns the shown text of a [[T|shown]] link.
func (g *noteGen) display(label string) string {
	if g.r.chance(0.3) {
		return strings.ToLower(label) + "s"
	}
	words := make([]string, g.r.between(1, 3))
	for i := range words {
		words[i] = g.r.pick(proseWords)
	}
	return strings.Join(words, " ")
}

// fakeTarget returns the target of a fake link: half the time a real
// concept label, so that counting it would visibly skew the concept.
func (g *noteGen) fakeTarget() string {
	g.fakes++
	if g.r.chance(0.5) {
		return g.voc.labels[g.voc.sample(g.r)]
	}
	return g.r.pick(fakeTargets)
}

// fakeBlock appends code that contains [[...]] which are not links: a
// ``` fence, a ~~~ fence, an indented code block after a paragraph, or
// inline code in a paragraph.
func (g *noteGen) fakeBlock() {
	switch g.r.Intn(4) {
	case 0:
		g.block("```text\nLink syntax: [[" + g.fakeTarget() + "]] and [[" + g.fakeTarget() + "|alias]]\n```\n")
	case 1:
		g.block("~~~markdown\n- [[" + g.fakeTarget() + "]]\n- plain item\n~~~\n")
	case 2:
		// An indented code block cannot interrupt a paragraph and would be a
		// list continuation after a list, so it follows its own paragraph.
		g.block("The raw source of that note looks like this.\n")
		g.block("    [[" + g.fakeTarget() + "]] written literally\n    end of example\n")
	default:
		g.block("Type `[[" + g.fakeTarget() + "]]` to link a concept, or ``[[" + g.fakeTarget() + "]]`` with double backticks.\n")
	}
}

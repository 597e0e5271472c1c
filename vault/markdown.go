package vault

import (
	"bytes"
)

// This file holds a small CommonMark block parser. It does not build a tree:
// it only tells ParseLinks which byte ranges hold inline text (paragraphs and
// headings, where WikiLinks live) and tells FindSection where the ATX
// headings are. Code blocks (fenced and indented) and HTML blocks are skipped.
// It follows the block-structure algorithm of the CommonMark spec (0.31) and
// of its reference implementation, commonmark.js: containers (block quotes,
// list items) are matched line by line, lazy continuation lines extend
// paragraphs, and a new block may interrupt a paragraph only where the spec
// says so.
//
// Deviations, all in documents nobody writes by hand: containers nested
// deeper than maxNesting are not opened (their markers are read as text), and
// a paragraph made only of link reference definitions followed by a setext
// underline is treated as a setext heading.

// maxNesting bounds the depth of block quotes and list items, which keeps the
// parser linear in the size of its input.
const maxNesting = 64

type blockKind uint8

const (
	kindQuote    blockKind = iota + 1 // block quote
	kindItem                          // list item
	kindPara                          // paragraph
	kindFence                         // fenced code block
	kindIndented                      // indented code block
	kindHTML                          // HTML block
)

// block is an open block. Containers (quote, item) may hold other blocks;
// leaves (paragraph, code, HTML) are always the last open block.
type block struct {
	kind blockKind
	// width is, for a list item, the indentation its content needs.
	width int
	// hasChild is set once a list item holds a block.
	hasChild bool
	// fenceChar, fenceLen and fenceIndent describe an open code fence.
	fenceChar   byte
	fenceLen    int
	fenceIndent int
	// htmlType is the CommonMark start condition (1-7) of an HTML block.
	htmlType int
}

// span is a byte range [start, end) of the document on one line.
type span struct {
	start, end int
	line       int // 0-based line index in the document
}

// headingLine is an ATX heading.
type headingLine struct {
	level     int
	lineStart int // offset of the heading line
	next      int // offset of the line after it (or len(doc))
	text      []byte
}

// blockScanner walks a document line by line.
type blockScanner struct {
	doc   []byte
	stack []block

	// inline is called with the lines of each paragraph or heading, when
	// that block is complete. The slice is reused afterwards.
	inline func(segs []span)
	// onHeading, if set, is called for each ATX heading outside containers.
	onHeading func(h headingLine)

	para []span  // lines of the open paragraph
	one  [1]span // buffer for a heading's text

	// the current line
	line      []byte // without the line ending
	lineStart int
	lineNo    int
	next      int // offset of the next line

	offset             int  // byte offset in line
	column             int  // column of offset (tabs expand to multiples of 4)
	partialTab         bool // part of the tab at offset was consumed
	nextNonspace       int
	nextNonspaceColumn int
	indent             int
	indented           bool
	blank              bool
}

// scan runs the scanner over the whole document.
func (p *blockScanner) scan() {
	doc := p.doc
	for start, n := 0, 0; start < len(doc); n++ {
		end := bytes.IndexByte(doc[start:], '\n')
		next := len(doc)
		if end < 0 {
			end = len(doc)
		} else {
			end += start
			next = end + 1
		}
		lineEnd := end
		if lineEnd > start && doc[lineEnd-1] == '\r' {
			lineEnd--
		}
		p.line = doc[start:lineEnd]
		p.lineStart = start
		p.lineNo = n
		p.next = next
		p.processLine()
		start = next
	}
	p.closeTo(0)
}

func isSpaceOrTab(c byte) bool { return c == ' ' || c == '\t' }

// peek returns the byte at i in the current line, or 0 past its end.
func (p *blockScanner) peek(i int) byte {
	if i < len(p.line) {
		return p.line[i]
	}
	return 0
}

func (p *blockScanner) findNextNonspace() {
	i, cols := p.offset, p.column
	for i < len(p.line) {
		c := p.line[i]
		if c == ' ' {
			i++
			cols++
		} else if c == '\t' {
			i++
			cols += 4 - cols%4
		} else {
			break
		}
	}
	p.blank = i == len(p.line)
	p.nextNonspace = i
	p.nextNonspaceColumn = cols
	p.indent = cols - p.column
	p.indented = p.indent >= 4
}

func (p *blockScanner) advanceNextNonspace() {
	p.offset = p.nextNonspace
	p.column = p.nextNonspaceColumn
	p.partialTab = false
}

// advanceOffset moves count bytes, or count columns when columns is set (a
// tab may then be consumed partially).
func (p *blockScanner) advanceOffset(count int, columns bool) {
	for count > 0 && p.offset < len(p.line) {
		if p.line[p.offset] == '\t' {
			toTab := 4 - p.column%4
			if columns {
				p.partialTab = toTab > count
				adv := min(toTab, count)
				p.column += adv
				if !p.partialTab {
					p.offset++
				}
				count -= adv
			} else {
				p.partialTab = false
				p.column += toTab
				p.offset++
				count--
			}
		} else {
			p.partialTab = false
			p.offset++
			p.column++
			count--
		}
	}
}

// closeTo closes open blocks until n remain.
func (p *blockScanner) closeTo(n int) {
	for len(p.stack) > n {
		if p.stack[len(p.stack)-1].kind == kindPara {
			p.flushPara()
		}
		p.stack = p.stack[:len(p.stack)-1]
	}
}

func (p *blockScanner) flushPara() {
	if len(p.para) > 0 && p.inline != nil {
		p.inline(p.para)
	}
	p.para = p.para[:0]
}

// tipKind returns the kind of the last open block, 0 for none.
func (p *blockScanner) tipKind() blockKind {
	if len(p.stack) == 0 {
		return 0
	}
	return p.stack[len(p.stack)-1].kind
}

// push opens a block as a child of the last open container, closing an open
// leaf first.
func (p *blockScanner) push(b block) {
	if k := p.tipKind(); k >= kindPara {
		p.closeTo(len(p.stack) - 1)
	}
	p.markChild()
	p.stack = append(p.stack, b)
}

// markChild records that the innermost open list item holds a block (for
// blocks that are complete on their line and never pushed).
func (p *blockScanner) markChild() {
	if n := len(p.stack); n > 0 && p.stack[n-1].kind == kindItem {
		p.stack[n-1].hasChild = true
	}
}

func (p *blockScanner) containerDepth() int {
	n := len(p.stack)
	if n > 0 && p.stack[n-1].kind >= kindPara {
		n--
	}
	return n
}

// Results of a block-start attempt.
const (
	startNone      = iota // nothing starts here
	startContainer        // a container opened; look for more starts
	startLeaf             // a leaf started; the line is done
)

func (p *blockScanner) processLine() {
	p.offset, p.column, p.partialTab = 0, 0, false

	// 1. Match the open blocks.
	matched := 0
	for matched < len(p.stack) {
		b := &p.stack[matched]
		p.findNextNonspace()
		ok := true
		switch b.kind {
		case kindQuote:
			if !p.indented && p.peek(p.nextNonspace) == '>' {
				p.advanceNextNonspace()
				p.advanceOffset(1, false)
				if isSpaceOrTab(p.peek(p.offset)) {
					p.advanceOffset(1, true)
				}
			} else {
				ok = false
			}
		case kindItem:
			switch {
			case p.blank:
				if !b.hasChild {
					ok = false // a blank line after an empty item ends it
				} else {
					p.advanceNextNonspace()
				}
			case p.indent >= b.width:
				p.advanceOffset(b.width, true)
			default:
				ok = false
			}
		case kindPara:
			ok = !p.blank
		case kindFence:
			if p.isClosingFence(b) {
				p.closeTo(matched)
				return
			}
			for i := b.fenceIndent; i > 0 && isSpaceOrTab(p.peek(p.offset)); i-- {
				p.advanceOffset(1, true)
			}
		case kindIndented:
			switch {
			case p.indent >= 4:
				p.advanceOffset(4, true)
			case p.blank:
				p.advanceNextNonspace()
			default:
				ok = false
			}
		case kindHTML:
			ok = !(p.blank && b.htmlType >= 6)
		}
		if !ok {
			break
		}
		matched++
	}

	allClosed := matched == len(p.stack)
	var container blockKind
	if matched > 0 {
		container = p.stack[matched-1].kind
	}

	// 2. A line inside a code or HTML block belongs to it.
	if container == kindFence || container == kindIndented {
		return
	}
	if container == kindHTML {
		if t := p.stack[matched-1].htmlType; t <= 5 && htmlBlockEnds(t, p.line[p.offset:]) {
			p.closeTo(matched - 1)
		}
		return
	}

	// 3. Look for new blocks.
	for {
		p.findNextNonspace()
		if !p.indented && !maybeSpecial(p.peek(p.nextNonspace)) {
			p.advanceNextNonspace()
			break
		}
		r := p.tryStart(&matched, &allClosed, container)
		if r == startNone {
			p.advanceNextNonspace()
			break
		}
		if r == startLeaf {
			return
		}
		container = p.stack[len(p.stack)-1].kind
	}

	// 4. Lazy continuation, or text for the current block.
	if !allClosed && !p.blank && p.tipKind() == kindPara {
		p.addParaLine()
		return
	}
	p.closeTo(matched)
	if p.blank {
		return
	}
	if p.tipKind() != kindPara {
		p.push(block{kind: kindPara})
	}
	p.addParaLine()
}

func (p *blockScanner) addParaLine() {
	p.para = append(p.para, span{start: p.lineStart + p.offset, end: p.lineStart + len(p.line), line: p.lineNo})
}

// maybeSpecial reports whether c can start a block other than a paragraph.
func maybeSpecial(c byte) bool {
	switch c {
	case '#', '`', '~', '*', '+', '_', '=', '<', '>', '-',
		'0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// tryStart tries the block starts in the spec's order of precedence.
func (p *blockScanner) tryStart(matched *int, allClosed *bool, container blockKind) int {
	closeUnmatched := func() {
		if !*allClosed {
			p.closeTo(*matched)
			*allClosed = true
		}
	}
	// Keep *matched equal to the number of open blocks once a start is
	// taken, so that a later closeUnmatched closes nothing.
	opened := func() { *matched = len(p.stack) }

	nn := p.nextNonspace
	c := p.peek(nn)
	rest := p.line[nn:]
	canNest := p.containerDepth() < maxNesting

	if !p.indented {
		switch c {
		case '>':
			if !canNest {
				break
			}
			p.advanceNextNonspace()
			p.advanceOffset(1, false)
			if isSpaceOrTab(p.peek(p.offset)) {
				p.advanceOffset(1, true)
			}
			closeUnmatched()
			p.push(block{kind: kindQuote})
			opened()
			return startContainer
		case '#':
			if level, text, ok := atxHeading(rest); ok {
				closeUnmatched()
				if p.tipKind() == kindPara {
					p.closeTo(len(p.stack) - 1)
				}
				p.markChild()
				depth := p.containerDepth()
				h := headingLine{level: level, lineStart: p.lineStart, next: p.next, text: text}
				if p.inline != nil && len(text) > 0 {
					off := p.lineStart + nn + (cap(rest) - cap(text))
					p.one[0] = span{start: off, end: off + len(text), line: p.lineNo}
					p.inline(p.one[:])
				}
				if depth == 0 && p.onHeading != nil {
					p.onHeading(h)
				}
				opened()
				return startLeaf
			}
		case '`', '~':
			if n := runLen(rest, c); n >= 3 && (c == '~' || bytes.IndexByte(rest[n:], '`') < 0) {
				closeUnmatched()
				p.push(block{kind: kindFence, fenceChar: c, fenceLen: n, fenceIndent: p.indent})
				opened()
				return startLeaf
			}
		case '<':
			canInterrupt7 := container != kindPara && !(!*allClosed && !p.blank && p.tipKind() == kindPara)
			if t := htmlBlockStart(rest, canInterrupt7); t > 0 {
				closeUnmatched()
				p.push(block{kind: kindHTML, htmlType: t})
				opened()
				if t <= 5 && htmlBlockEnds(t, p.line[p.offset:]) {
					p.closeTo(len(p.stack) - 1)
				}
				return startLeaf
			}
		}
		if container == kindPara && (c == '=' || c == '-') && isSetextUnderline(rest) {
			closeUnmatched()
			p.closeTo(len(p.stack) - 1) // the paragraph becomes a heading
			opened()
			return startLeaf
		}
		if (c == '*' || c == '-' || c == '_') && isThematicBreak(rest) {
			closeUnmatched()
			if p.tipKind() == kindPara {
				p.closeTo(len(p.stack) - 1)
			}
			p.markChild()
			opened()
			return startLeaf
		}
		if canNest {
			if width, ok := p.listItem(container == kindPara); ok {
				closeUnmatched()
				p.push(block{kind: kindItem, width: width})
				opened()
				return startContainer
			}
		}
		return startNone
	}
	// Indented code cannot interrupt a paragraph (not even a lazy one).
	if !p.blank && p.tipKind() != kindPara {
		p.advanceOffset(4, true)
		closeUnmatched()
		p.push(block{kind: kindIndented})
		opened()
		return startLeaf
	}
	return startNone
}

// listItem recognizes a list marker at nextNonspace. On success it advances
// past the marker and the spaces after it and returns the indentation the
// item's content needs.
func (p *blockScanner) listItem(inPara bool) (int, bool) {
	if p.indent >= 4 {
		return 0, false
	}
	nn := p.nextNonspace
	c := p.peek(nn)
	markerLen := 0
	switch {
	case c == '*' || c == '+' || c == '-':
		markerLen = 1
	case '0' <= c && c <= '9':
		digits, start := 0, 0
		for digits < 9 && '0' <= p.peek(nn+digits) && p.peek(nn+digits) <= '9' {
			start = start*10 + int(p.peek(nn+digits)-'0')
			digits++
		}
		if d := p.peek(nn + digits); d != '.' && d != ')' {
			return 0, false
		}
		if inPara && start != 1 {
			return 0, false
		}
		markerLen = digits + 1
	default:
		return 0, false
	}
	if after := nn + markerLen; after < len(p.line) && !isSpaceOrTab(p.line[after]) {
		return 0, false
	}
	if inPara && isBlank(p.line[nn+markerLen:]) {
		return 0, false // an empty item cannot interrupt a paragraph
	}
	markerOffset := p.indent
	p.advanceNextNonspace()
	p.advanceOffset(markerLen, true)
	startCol, startOff := p.column, p.offset
	for {
		p.advanceOffset(1, true)
		if !(p.column-startCol < 5 && isSpaceOrTab(p.peek(p.offset))) {
			break
		}
	}
	blankItem := p.offset >= len(p.line)
	spaces := p.column - startCol
	padding := markerLen + spaces
	if spaces >= 5 || spaces < 1 || blankItem {
		padding = markerLen + 1
		p.column, p.offset = startCol, startOff
		if isSpaceOrTab(p.peek(p.offset)) {
			p.advanceOffset(1, true)
		}
	}
	return markerOffset + padding, true
}

func (p *blockScanner) isClosingFence(b *block) bool {
	if p.indent > 3 || p.peek(p.nextNonspace) != b.fenceChar {
		return false
	}
	rest := p.line[p.nextNonspace:]
	n := runLen(rest, b.fenceChar)
	return n >= b.fenceLen && isBlank(rest[n:])
}

// runLen returns how many times c repeats at the start of s.
func runLen(s []byte, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

func isBlank(s []byte) bool {
	for _, c := range s {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// atxHeading parses an ATX heading line (from its first '#') and returns its
// level and its text without the optional closing sequence.
func atxHeading(s []byte) (level int, text []byte, ok bool) {
	level = runLen(s, '#')
	if level < 1 || level > 6 || (level < len(s) && !isSpaceOrTab(s[level])) {
		return 0, nil, false
	}
	text = s[level:]
	// trim leading/trailing spaces and tabs
	for len(text) > 0 && isSpaceOrTab(text[0]) {
		text = text[1:]
	}
	for len(text) > 0 && isSpaceOrTab(text[len(text)-1]) {
		text = text[:len(text)-1]
	}
	// closing sequence: a run of '#' that is the whole text or follows a space
	end := len(text)
	for end > 0 && text[end-1] == '#' {
		end--
	}
	if end == 0 {
		text = text[:0]
	} else if end < len(text) && isSpaceOrTab(text[end-1]) {
		text = text[:end]
		for len(text) > 0 && isSpaceOrTab(text[len(text)-1]) {
			text = text[:len(text)-1]
		}
	}
	return level, text, true
}

func isSetextUnderline(s []byte) bool {
	if len(s) == 0 || (s[0] != '=' && s[0] != '-') {
		return false
	}
	n := runLen(s, s[0])
	return isBlank(s[n:])
}

func isThematicBreak(s []byte) bool {
	c := s[0]
	n := 0
	for _, b := range s {
		switch b {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// htmlBlockStart returns the CommonMark HTML block start condition (1-7) that
// s (starting at '<') meets, or 0.
func htmlBlockStart(s []byte, canInterrupt7 bool) int {
	if len(s) < 2 || s[0] != '<' {
		return 0
	}
	// 1: <script, <pre, <style, <textarea
	for _, name := range [...]string{"script", "pre", "style", "textarea"} {
		if hasPrefixFold(s[1:], name) {
			i := 1 + len(name)
			if i == len(s) || s[i] == '>' || isHTMLSpace(s[i]) {
				return 1
			}
		}
	}
	if bytes.HasPrefix(s, []byte("<!--")) {
		return 2
	}
	if s[1] == '?' {
		return 3
	}
	if s[1] == '!' && len(s) > 2 && isASCIILetter(s[2]) {
		return 4
	}
	if bytes.HasPrefix(s, []byte("<![CDATA[")) {
		return 5
	}
	// 6: a block-level tag name
	i := 1
	if s[i] == '/' {
		i++
	}
	j := i
	for j < len(s) && (isASCIILetter(s[j]) || isASCIIDigit(s[j])) {
		j++
	}
	if j > i && isBlockTag(s[i:j]) {
		if j == len(s) || isHTMLSpace(s[j]) || s[j] == '>' || (s[j] == '/' && j+1 < len(s) && s[j+1] == '>') {
			return 6
		}
	}
	if canInterrupt7 && isCompleteTagLine(s) {
		return 7
	}
	return 0
}

// htmlBlockEnds reports whether line meets the end condition of an HTML
// block of type t (1-5).
func htmlBlockEnds(t int, line []byte) bool {
	switch t {
	case 1:
		for _, end := range [...]string{"</script>", "</pre>", "</style>", "</textarea>"} {
			if containsFold(line, end) {
				return true
			}
		}
		return false
	case 2:
		return bytes.Contains(line, []byte("-->"))
	case 3:
		return bytes.Contains(line, []byte("?>"))
	case 4:
		return bytes.IndexByte(line, '>') >= 0
	case 5:
		return bytes.Contains(line, []byte("]]>"))
	}
	return false
}

// isBlockTag reports whether name is one of the tag names of HTML block
// condition 6, ignoring ASCII case.
func isBlockTag(name []byte) bool {
	if len(name) > 10 {
		return false
	}
	blockTags := [...]string{
		"address", "article", "aside", "base", "basefont", "blockquote", "body",
		"caption", "center", "col", "colgroup", "dd", "details", "dialog", "dir",
		"div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
		"frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header",
		"hr", "html", "iframe", "legend", "li", "link", "main", "menu", "menuitem",
		"nav", "noframes", "ol", "optgroup", "option", "p", "param", "search",
		"section", "summary", "table", "tbody", "td", "tfoot", "th", "thead",
		"title", "tr", "track", "ul",
	}
	for _, t := range blockTags {
		if len(t) == len(name) && hasPrefixFold(name, t) {
			return true
		}
	}
	return false
}

// isCompleteTagLine reports whether s is a complete open or closing tag
// (HTML block condition 7) followed only by whitespace.
func isCompleteTagLine(s []byte) bool {
	i := 1
	closing := false
	if i < len(s) && s[i] == '/' {
		closing = true
		i++
	}
	start := i
	if i >= len(s) || !isASCIILetter(s[i]) {
		return false
	}
	for i < len(s) && (isASCIILetter(s[i]) || isASCIIDigit(s[i]) || s[i] == '-') {
		i++
	}
	name := s[start:i]
	for _, n := range [...]string{"script", "style", "pre", "textarea"} {
		if len(name) == len(n) && hasPrefixFold(name, n) {
			return false
		}
	}
	if closing {
		i = skipHTMLSpace(s, i)
		return i < len(s) && s[i] == '>' && isHTMLBlankTail(s[i+1:])
	}
	for {
		j := skipHTMLSpace(s, i)
		if j == len(s) {
			return false
		}
		if s[j] == '>' {
			return isHTMLBlankTail(s[j+1:])
		}
		if s[j] == '/' {
			return j+1 < len(s) && s[j+1] == '>' && isHTMLBlankTail(s[j+2:])
		}
		if j == i { // an attribute needs whitespace before it
			return false
		}
		// attribute name
		if !(isASCIILetter(s[j]) || s[j] == '_' || s[j] == ':') {
			return false
		}
		k := j + 1
		for k < len(s) && (isASCIILetter(s[k]) || isASCIIDigit(s[k]) || s[k] == '_' || s[k] == '.' || s[k] == ':' || s[k] == '-') {
			k++
		}
		// optional value
		v := skipHTMLSpace(s, k)
		if v < len(s) && s[v] == '=' {
			v = skipHTMLSpace(s, v+1)
			if v >= len(s) {
				return false
			}
			switch q := s[v]; q {
			case '"', '\'':
				e := bytes.IndexByte(s[v+1:], q)
				if e < 0 {
					return false
				}
				k = v + 1 + e + 1
			default:
				e := v
				for e < len(s) && !bytes.ContainsRune([]byte("\"'=<>` \t\n\v\f\r"), rune(s[e])) {
					e++
				}
				if e == v {
					return false
				}
				k = e
			}
		}
		i = k
	}
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func skipHTMLSpace(s []byte, i int) int {
	for i < len(s) && isHTMLSpace(s[i]) {
		i++
	}
	return i
}

func isHTMLBlankTail(s []byte) bool {
	for _, c := range s {
		if !isHTMLSpace(c) {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isASCIIDigit(c byte) bool  { return '0' <= c && c <= '9' }

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s starts with the lowercase ASCII prefix,
// ignoring ASCII case.
func hasPrefixFold(s []byte, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lowerASCII(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

// containsFold reports whether s contains the lowercase ASCII needle,
// ignoring ASCII case.
func containsFold(s []byte, needle string) bool {
	for i := 0; i+len(needle) <= len(s); i++ {
		if lowerASCII(s[i]) == needle[0] && hasPrefixFold(s[i:], needle) {
			return true
		}
	}
	return false
}

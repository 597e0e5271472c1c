package vault

import (
	"bytes"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// fastYAML builds the node tree of simple front matter without running the
// YAML parser, which costs most of the time of parsing a note. It accepts
// only a small subset, the front matter of most notes:
//
//	key: plain scalar
//	key: "double quoted, without escapes"
//	key: 'single quoted'
//	key: [flow, 'sequence', "of scalars"]
//	key:
//	  - block
//	  - sequence of scalars
//	key:
//
// with keys made of ASCII letters, digits, '_' and '-', blank lines, and no
// comments, tabs, anchors, tags or multi-line scalars. For anything else ok
// is false and the caller uses the YAML parser; the tree built here is the one
// the parser would build (TestFastYAMLMatchesParser and FuzzFastYAML check
// this), and tags are resolved by the library itself (Node.ShortTag).
func fastYAML(src []byte) (doc *yaml.Node, ok bool) {
	if !fastYAMLChars(src) {
		return nil, false
	}
	lines := splitLines(src)
	a := &nodeAlloc{buf: make([]yaml.Node, 0, 2*len(lines)+bytes.Count(src, []byte(","))+4)}
	m := a.node()
	m.Kind, m.Tag = yaml.MappingNode, "!!map"
	m.Content = make([]*yaml.Node, 0, 2*len(lines))
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if isBlankSpaces(line) {
			continue
		}
		k := 0
		for k < len(line) && isKeyChar(line[k]) {
			k++
		}
		// (a simple key may not be longer than 1024 characters)
		if k == 0 || k > 128 || k == len(line) || line[k] != ':' || !(isASCIILetter(line[0]) || line[0] == '_') {
			return nil, false
		}
		key := a.scalar(string(line[:k]), 0, i+1, 1)
		if len(m.Content) == 0 {
			m.Line, m.Column = i+1, 1
		}
		rest := line[k+1:]
		if len(rest) > 0 && rest[0] != ' ' {
			return nil, false
		}
		vcol := k + 2 + countSpaces(rest) // 1-based column of the value
		text := bytes.TrimRight(rest, " ")
		text = text[countSpaces(text):]
		var val *yaml.Node
		switch {
		case len(text) == 0:
			var next int
			val, next, ok = a.blockSequence(lines, i+1)
			if val == nil {
				// A null value: the parser places it at the next token.
				return nil, false
			}
			i = next - 1
		case text[0] == '[':
			val, ok = a.flowSequence(text, i+1, vcol)
		default:
			val, ok = a.scalarText(text, i+1, vcol, false)
		}
		if !ok {
			return nil, false
		}
		m.Content = append(m.Content, key, val)
	}
	if len(m.Content) == 0 {
		return nil, false
	}
	doc = a.node()
	doc.Kind, doc.Line, doc.Column, doc.Content = yaml.DocumentNode, m.Line, 1, []*yaml.Node{m}
	return doc, true
}

// nodeAlloc hands out nodes from a few large allocations.
type nodeAlloc struct{ buf []yaml.Node }

func (a *nodeAlloc) node() *yaml.Node {
	if len(a.buf) == cap(a.buf) {
		a.buf = make([]yaml.Node, 0, 16)
	}
	a.buf = a.buf[:len(a.buf)+1]
	return &a.buf[len(a.buf)-1]
}

// fastYAMLChars reports whether src has only characters the subset allows:
// valid UTF-8, printable, no tabs, no line breaks other than LF and CRLF.
func fastYAMLChars(src []byte) bool {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n':
			case c == '\r':
				if i+1 >= len(src) || src[i+1] != '\n' {
					return false
				}
			case c < 0x20 || c == 0x7f:
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError || r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff || r >= 0xfffe && r <= 0xffff {
			return false
		}
		i += size
	}
	return true
}

// splitLines splits src into lines without their line endings.
func splitLines(src []byte) [][]byte {
	lines := make([][]byte, 0, bytes.Count(src, []byte("\n"))+1)
	for len(src) > 0 {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			lines = append(lines, src)
			break
		}
		lines = append(lines, bytes.TrimSuffix(src[:i], []byte("\r")))
		src = src[i+1:]
	}
	return lines
}

func isKeyChar(c byte) bool {
	return isASCIILetter(c) || isASCIIDigit(c) || c == '_' || c == '-'
}

func isBlankSpaces(s []byte) bool {
	return countSpaces(s) == len(s)
}

func countSpaces(s []byte) int {
	n := 0
	for n < len(s) && s[n] == ' ' {
		n++
	}
	return n
}

// scalar returns a scalar node with its tag resolved the way the YAML
// library resolves it.
func (a *nodeAlloc) scalar(value string, style yaml.Style, line, col int) *yaml.Node {
	n := a.node()
	n.Kind, n.Style, n.Value, n.Line, n.Column = yaml.ScalarNode, style, value, line, col
	switch {
	case style != 0 || (value != "" && !mayResolve(value[0])):
		n.Tag = "!!str" // what the library decides without looking further
	case isTimestamp(value):
		n.Tag = "!!timestamp"
	default:
		n.Tag = n.ShortTag()
	}
	return n
}

// isTimestamp reports whether the library resolves the plain scalar s to a
// timestamp: s starts with four digits and '-' and parses in one of its
// formats. The formats are tried in another order than the library's, most
// common first; the answer is the same.
func isTimestamp(s string) bool {
	if len(s) < 5 || s[4] != '-' {
		return false
	}
	for i := 0; i < 4; i++ {
		if !isASCIIDigit(s[i]) {
			return false
		}
	}
	layouts := [...]string{
		"2006-1-2T15:4:5.999999999Z07:00",
		"2006-1-2t15:4:5.999999999Z07:00",
		"2006-1-2 15:4:5.999999999",
		"2006-1-2",
	}
	if len(s) <= len("2006-01-02") {
		layouts[0], layouts[3] = layouts[3], layouts[0]
	}
	for _, layout := range layouts {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// mayResolve reports whether a plain scalar starting with c may be
// something other than a string (the library's resolve table).
func mayResolve(c byte) bool {
	switch c {
	case '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
		'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~', '<', '.':
		return true
	}
	return false
}

// blockSequence reads "- item" lines from lines[start:]. It returns a nil
// node when the first non-blank line is not an item, and the index of the
// first line after the sequence.
func (a *nodeAlloc) blockSequence(lines [][]byte, start int) (*yaml.Node, int, bool) {
	var seq *yaml.Node
	indent := -1
	i := start
	for ; i < len(lines); i++ {
		line := lines[i]
		if isBlankSpaces(line) {
			continue
		}
		ind := countSpaces(line)
		if ind+1 >= len(line) || line[ind] != '-' || line[ind+1] != ' ' {
			break
		}
		if indent < 0 {
			indent = ind
			seq = a.node()
			seq.Kind, seq.Tag, seq.Line, seq.Column = yaml.SequenceNode, "!!seq", i+1, ind+1
		} else if ind != indent {
			return nil, 0, false
		}
		rest := line[ind+2:]
		col := ind + 3 + countSpaces(rest)
		text := bytes.TrimRight(rest, " ")
		text = text[countSpaces(text):]
		if len(text) == 0 || text[0] == '[' {
			return nil, 0, false
		}
		item, ok := a.scalarText(text, i+1, col, false)
		if !ok {
			return nil, 0, false
		}
		seq.Content = append(seq.Content, item)
	}
	if seq == nil {
		return nil, start, true
	}
	// Blank lines after the sequence belong to nobody; back up over them so
	// the caller resumes at the next key.
	for i > start && isBlankSpaces(lines[i-1]) {
		i--
	}
	return seq, i, true
}

// flowSequence parses "[a, 'b', "c"]" on one line.
func (a *nodeAlloc) flowSequence(text []byte, line, col int) (*yaml.Node, bool) {
	if text[len(text)-1] != ']' {
		return nil, false
	}
	seq := a.node()
	seq.Kind, seq.Tag, seq.Style, seq.Line, seq.Column = yaml.SequenceNode, "!!seq", yaml.FlowStyle, line, col
	inner := text[1 : len(text)-1]
	if isBlankSpaces(inner) {
		return seq, true
	}
	pos := 1 // offset of inner in text
	for {
		lead := countSpaces(inner)
		rest := inner[lead:]
		var item []byte
		var next []byte
		switch {
		case len(rest) == 0:
			return nil, false
		case rest[0] == '"' || rest[0] == '\'':
			end := quotedEnd(rest)
			if end < 0 {
				return nil, false
			}
			item, next = rest[:end], rest[end:]
		default:
			j := bytes.IndexByte(rest, ',')
			if j < 0 {
				j = len(rest)
			}
			item, next = rest[:j], rest[j:]
		}
		// item ends here; what follows must be spaces then ',' or the end
		trail := countSpaces(next)
		next = next[trail:]
		item = bytes.TrimRight(item, " ")
		n, ok := a.scalarText(item, line, col+utf8.RuneCount(text[:pos+lead]), true)
		if !ok {
			return nil, false
		}
		seq.Content = append(seq.Content, n)
		if len(next) == 0 {
			return seq, true
		}
		if next[0] != ',' {
			return nil, false
		}
		consumed := len(inner) - len(next) + 1
		pos += consumed
		inner = inner[consumed:]
	}
}

// quotedEnd returns the length of the quoted scalar at the start of s
// (including its quotes), or -1.
func quotedEnd(s []byte) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			continue
		}
		if q == '\'' && i+1 < len(s) && s[i+1] == '\'' {
			i++ // '' is an escaped quote
			continue
		}
		return i + 1
	}
	return -1
}

// scalarText parses a one-line scalar: plain, 'single' or "double" quoted
// (without escapes). inFlow restricts plain scalars further.
func (a *nodeAlloc) scalarText(text []byte, line, col int, inFlow bool) (*yaml.Node, bool) {
	if len(text) == 0 {
		return nil, false
	}
	switch text[0] {
	case '"':
		if len(text) < 2 || text[len(text)-1] != '"' {
			return nil, false
		}
		inner := text[1 : len(text)-1]
		if bytes.ContainsAny(inner, "\"\\") || !isYAMLSafeSpaces(inner) {
			return nil, false
		}
		return a.scalar(string(inner), yaml.DoubleQuotedStyle, line, col), true
	case '\'':
		if quotedEnd(text) != len(text) || len(text) < 2 {
			return nil, false
		}
		inner := text[1 : len(text)-1]
		if !isYAMLSafeSpaces(inner) {
			return nil, false
		}
		return a.scalar(string(bytes.ReplaceAll(inner, []byte("''"), []byte("'"))), yaml.SingleQuotedStyle, line, col), true
	}
	if !isSafePlain(text, inFlow) {
		return nil, false
	}
	return a.scalar(string(text), 0, line, col), true
}

// isYAMLSafeSpaces rejects leading or trailing spaces and runs of spaces in
// quoted scalars (folding rules make them subtle; the parser handles them).
func isYAMLSafeSpaces(s []byte) bool {
	return !bytes.Contains(s, []byte("  ")) && (len(s) == 0 || (s[0] != ' ' && s[len(s)-1] != ' '))
}

// isSafePlain reports whether text is a plain scalar whose meaning is
// obvious: it starts with a letter, a digit or a non-ASCII character, and
// holds no character that could start a comment, a mapping value, a flow
// collection, an alias or a tag.
func isSafePlain(text []byte, inFlow bool) bool {
	c := text[0]
	switch {
	case isASCIILetter(c) || isASCIIDigit(c) || c >= utf8.RuneSelf:
	case c == '_' || c == '.' || c == '(' || c == '/' || c == '~' || c == '+':
	case c == '-' && len(text) > 1 && (isASCIIDigit(text[1]) || isASCIILetter(text[1]) || text[1] == '.'):
	default:
		return false
	}
	for i, c := range text {
		switch c {
		case '#', '[', ']', '{', '}', '"', '\'', '`', '&', '*', '!', '|', '>', '%', '@', '\\':
			return false
		case ',':
			if inFlow {
				return false
			}
		case ':':
			if i+1 == len(text) || text[i+1] == ' ' || inFlow {
				return false
			}
		case ' ':
			if i+1 < len(text) && text[i+1] == ' ' {
				return false
			}
		}
	}
	return true
}

package vault

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/noema-mem/noema"
)

// MaxLinkLen is the longest WikiLink target, in runes, that [ParseLinks]
// accepts; a longer target is not a link (it is almost always a stray "[[").
const MaxLinkLen = 500

// ParseLinks returns the WikiLinks of a Markdown document, in order.
//
// base is added to every Offset and End, and firstLine is the line number of
// the first line of body, so that a caller parsing the body of a note can get
// positions in the whole file.
//
// The syntax is Obsidian's: [[Target]], [[Target|shown text]],
// [[Target#Heading]], [[Target#Heading|shown text]]; embeds (![[Target]])
// count too, with Offset at their "[[". Target, Heading and Display are
// trimmed. In a table cell the pipe may be escaped ([[Target\|shown]]). When
// "[[" repeats before the closing "]]", the last one opens the link.
//
// Not links:
//   - anything in a fenced code block (``` or ~~~, closed by a fence of the
//     same character at least as long), an indented code block or an HTML
//     block (the seven CommonMark start conditions), following CommonMark's
//     block structure, including block quotes and list items;
//   - anything overlapping an inline code span (backtick runs of equal
//     length, which may span lines within a paragraph) or an inline HTML
//     comment (<!-- … -->), taken left to right as CommonMark does;
//   - a "[[" escaped with a backslash (\[[Target]]);
//   - [[]], a link whose target is empty or only whitespace ([[#Heading]]
//     and [[#^block]] link inside the same note, so they name no concept), a
//     link whose key is empty ([[__]]), a link that spans a line break, and
//     a link whose target is longer than [MaxLinkLen] runes;
//   - a link to an attachment ([[diagram.png]], ![[talk.pdf]]: a target
//     ending in an extension of a file type Obsidian opens that is not a
//     note, see [IsAttachment]).
//
// As in Obsidian, [[Note.md]] is [[Note]], [[Note#^block]] links to Note,
// and ![[Note]] (an embed) links to Note with Embed set. A target with a
// folder ([[folder/Note]]) is kept as written here; [Vault.ResolvePathLinks]
// turns it into a link to that note when the file exists.
//
// During development the block structure was compared with commonmark.js
// 0.31 on some 200,000 generated documents, with no difference but one,
// deliberate: a line holding only a closing </pre>, </script>, </style> or
// </textarea> tag is text, as the spec says, not an HTML block as in the
// reference implementations.
//
// ParseLinks never panics and runs in time linear in len(body).
func ParseLinks(body []byte, base, firstLine int) []noema.Link {
	if bytes.Index(body, []byte("[[")) < 0 {
		return nil
	}
	links := make([]noema.Link, 0, bytes.Count(body, []byte("[[")))
	var il inlineScanner
	sc := blockScanner{doc: body, stack: make([]block, 0, 8), para: make([]span, 0, 16)}
	sc.inline = func(segs []span) {
		links = il.scan(body, segs, base, firstLine, links)
	}
	sc.scan()
	if len(links) == 0 {
		return nil
	}
	return links
}

// inlineScanner finds WikiLinks in the lines of one paragraph or heading,
// outside code spans. Its buffers are reused across paragraphs.
type inlineScanner struct {
	runs     []backtickRun
	comments []int // offsets of "<!--"
	spans    []codeSpan
	next     map[int][]int // run length -> indices into runs
	pos      map[int]int   // run length -> position in next[length]
}

type backtickRun struct {
	start, n int
	escaped  bool // preceded by an odd number of backslashes
}

// codeSpan is a code span or an inline HTML comment.
type codeSpan struct{ start, end int }

// opaqueSpans computes, left to right as CommonMark does, the parts of a
// paragraph where links cannot be: code spans (an opening run of n backticks
// ends at the next run of exactly n backticks; without one, the opening run
// is literal text) and inline HTML comments ("<!-- … -->", also across
// lines; "<!-->" and "<!--->" are complete comments). Whichever starts first
// wins: a comment marker inside a code span is code, and backticks inside a
// comment are comment.
func (s *inlineScanner) opaqueSpans(doc []byte, segs []span) []codeSpan {
	s.runs = s.runs[:0]
	s.spans = s.spans[:0]
	s.comments = s.comments[:0]
	for _, sg := range segs {
		line := doc[sg.start:sg.end]
		for i := 0; i < len(line); {
			j := i
			for j < len(line) && line[j] != '`' && line[j] != '<' {
				j++
			}
			if j == len(line) {
				break
			}
			if line[j] == '<' {
				if bytes.HasPrefix(line[j:], []byte("<!--")) && !escapedAt(line, j, 0) {
					s.comments = append(s.comments, sg.start+j)
				}
				i = j + 1
				continue
			}
			n := runLen(line[j:], '`')
			s.runs = append(s.runs, backtickRun{start: sg.start + j, n: n, escaped: escapedAt(line, j, 0)})
			i = j + n
		}
	}
	if len(s.runs) < 2 && len(s.comments) == 0 {
		return nil
	}
	// closerAfter returns the index of the first run of length n after run
	// i, or -1. With few runs a scan is fastest; with many, an index by
	// length keeps the whole pass linear.
	closerAfter := func(i, n int) int {
		for j := i + 1; j < len(s.runs); j++ {
			if s.runs[j].n == n {
				return j
			}
		}
		return -1
	}
	if len(s.runs) > 32 {
		if s.next == nil {
			s.next = make(map[int][]int)
			s.pos = make(map[int]int)
		}
		clear(s.next)
		clear(s.pos)
		for i, r := range s.runs {
			s.next[r.n] = append(s.next[r.n], i)
		}
		closerAfter = func(i, n int) int {
			idx := s.next[n]
			p := s.pos[n]
			for p < len(idx) && idx[p] <= i {
				p++
			}
			s.pos[n] = p
			if p < len(idx) {
				return idx[p]
			}
			return -1
		}
	}
	limit := segs[len(segs)-1].end
	unclosed := false // no "-->" after the last comment start searched
	pos, ri, ci := 0, 0, 0
	for {
		for ri < len(s.runs) && s.runs[ri].start < pos {
			ri++
		}
		for ci < len(s.comments) && s.comments[ci] < pos {
			ci++
		}
		switch {
		case ci < len(s.comments) && (ri == len(s.runs) || s.comments[ci] < s.runs[ri].start):
			c := s.comments[ci]
			ci++
			end := -1
			switch {
			case bytes.HasPrefix(doc[c+4:limit], []byte(">")):
				end = c + 5
			case bytes.HasPrefix(doc[c+4:limit], []byte("->")):
				end = c + 6
			case !unclosed:
				if k := bytes.Index(doc[c+4:limit], []byte("-->")); k >= 0 {
					end = c + 4 + k + 3
				} else {
					unclosed = true
				}
			}
			if end >= 0 {
				s.spans = append(s.spans, codeSpan{start: c, end: end})
				pos = end
			}
		case ri < len(s.runs):
			i := ri
			ri++
			r := s.runs[i]
			start, n := r.start, r.n
			if r.escaped { // "\`" is a literal backtick; the rest may still open
				start, n = start+1, n-1
				if n == 0 {
					continue
				}
			}
			if j := closerAfter(i, n); j >= 0 {
				end := s.runs[j].start + s.runs[j].n
				s.spans = append(s.spans, codeSpan{start: start, end: end})
				pos = end
			}
		default:
			return s.spans
		}
	}
}

// scan appends the links found in segs to links.
func (s *inlineScanner) scan(doc []byte, segs []span, base, firstLine int, links []noema.Link) []noema.Link {
	spans := s.opaqueSpans(doc, segs)
	ci := 0 // first code span that may still matter
	for _, sg := range segs {
		pos := sg.start
		// The first "]]" after an opening and the last "[[" before that
		// "]]" are remembered: after skipping a code span, the next opening
		// often shares them, and searching again would be quadratic.
		closeAt, lastOpen := -1, -1
		for pos < sg.end {
			i := bytes.Index(doc[pos:sg.end], []byte("[["))
			if i < 0 {
				break
			}
			open := pos + i
			for ci < len(spans) && spans[ci].end <= open {
				ci++
			}
			if ci < len(spans) && spans[ci].start <= open {
				pos = spans[ci].end // "[[" inside code or a comment
				continue
			}
			if closeAt < open+2 {
				j := bytes.Index(doc[open+2:sg.end], []byte("]]"))
				if j < 0 {
					break // no link can close on this line
				}
				closeAt = open + 2 + j
				lastOpen = open + bytes.LastIndex(doc[open:closeAt], []byte("[["))
			}
			open = lastOpen // the last "[[" before "]]" opens the link
			end := closeAt + 2
			if ci < len(spans) && spans[ci].start < end {
				pos = spans[ci].end // code or a comment inside the link
				continue
			}
			pos = end
			if escapedAt(doc, open, sg.start) {
				continue
			}
			if l, ok := makeLink(doc[open+2 : closeAt]); ok {
				l.Embed = open > sg.start && doc[open-1] == '!'
				l.Offset = base + open
				l.End = base + end
				l.Line = firstLine + sg.line
				links = append(links, l)
			}
		}
	}
	return links
}

// escapedAt reports whether doc[i] is preceded by an odd number of
// backslashes (not looking before lineStart).
func escapedAt(doc []byte, i, lineStart int) bool {
	n := 0
	for k := i - 1; k >= lineStart && doc[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// makeLink splits the inside of [[...]] into target, heading and display.
func makeLink(inner []byte) (noema.Link, bool) {
	if bytes.IndexByte(inner, '\r') >= 0 {
		return noema.Link{}, false
	}
	var l noema.Link
	target := inner
	if i := bytes.IndexByte(inner, '|'); i >= 0 {
		target = inner[:i]
		l.Display = strings.TrimSpace(string(inner[i+1:]))
		target = bytes.TrimSuffix(target, []byte{'\\'}) // [[T\|shown]] in tables
	}
	if i := bytes.IndexByte(target, '#'); i >= 0 {
		l.Heading = strings.TrimSpace(string(target[i+1:]))
		target = target[:i]
	}
	target = bytes.TrimSpace(target)
	if len(target) == 0 || utf8.RuneCount(target) > MaxLinkLen || IsAttachment(string(target)) {
		return noema.Link{}, false
	}
	if n := len(target) - len(".md"); n > 0 && strings.EqualFold(string(target[n:]), ".md") {
		target = bytes.TrimSpace(target[:n]) // [[Note.md]] is [[Note]]
	}
	l.Target = string(target)
	l.Key = Key(l.Target)
	if l.Key == "" { // e.g. "[[__]]": nothing left to name a concept
		return noema.Link{}, false
	}
	return l, true
}

// attachmentExts are the extensions of the files Obsidian opens that are
// not notes (help.obsidian.md, "Accepted file formats"), lowercase.
var attachmentExts = map[string]bool{
	"avif": true, "bmp": true, "gif": true, "jpeg": true, "jpg": true, "png": true, "svg": true, "webp": true,
	"flac": true, "m4a": true, "mp3": true, "ogg": true, "wav": true, "webm": true, "3gp": true,
	"mkv": true, "mov": true, "mp4": true, "ogv": true,
	"pdf": true, "canvas": true, "base": true,
}

// IsAttachment reports whether a link target names an attachment: a file
// whose extension is one of the image, audio, video, PDF, canvas or base
// formats Obsidian opens. Other dots are names ([[Node.js]], [[ASP.NET]],
// [[v1.2]] are concepts).
func IsAttachment(target string) bool {
	i := strings.LastIndexByte(target, '.')
	if i < 0 || i == len(target)-1 || strings.ContainsAny(target[i:], " /") {
		return false
	}
	return attachmentExts[strings.ToLower(target[i+1:])]
}

// ResolvePathLinks turns the links of n whose target has a folder
// ([[folder/Note]], [[folder/Note.md]]) into links to that note, named by its
// file name (Target "Note", Key "note", Path "folder/Note.md"), when the
// file exists in the vault. Other targets with a slash ([[TCP/IP]],
// [[A/B testing]]) stay concept names.
func (v *Vault) ResolvePathLinks(n *Note) {
	for i := range n.Links {
		l := &n.Links[i]
		if !strings.Contains(l.Target, "/") {
			continue
		}
		rel, err := v.Rel(l.Target + ".md")
		if err != nil || !v.IsNote(rel) {
			continue
		}
		l.Path = rel
		l.Target = stem(rel)
		l.Key = Key(l.Target)
	}
}

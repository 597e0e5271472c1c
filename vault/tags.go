package vault

import (
	"bytes"
	"slices"
	"unicode"
	"unicode/utf8"
)

// ParseTags returns the inline tags of a Markdown body, in order of first
// appearance, without the '#': Obsidian's tag grammar, so "#ml" and nested
// "#area/ml" are tags. A tag
//
//   - starts with '#' at the start of a line or after white space (so
//     "a#b", "[[Note#Heading]]" and URL fragments are not tags, and "# Title"
//     is a heading);
//   - continues with letters, digits, marks, '_', '-' and '/' (any script,
//     so "#日本語" is a tag) and ends at the first other character;
//   - has at least one character that is not a digit ("#2024" is not a tag);
//     a trailing '/' is dropped.
//
// Text in code (fenced, indented, inline), HTML blocks and comments, and
// inside [[WikiLinks]] holds no tags, following the same CommonMark block
// structure as [ParseLinks].
func ParseTags(body []byte) []string {
	if bytes.IndexByte(body, '#') < 0 {
		return nil
	}
	var tags []string
	var il inlineScanner
	sc := blockScanner{doc: body, stack: make([]block, 0, 8), para: make([]span, 0, 16)}
	sc.inline = func(segs []span) {
		spans := il.opaqueSpans(body, segs)
		ci := 0
		for _, sg := range segs {
			for i := sg.start; i < sg.end; i++ {
				switch body[i] {
				case '[':
					if i+1 < sg.end && body[i+1] == '[' {
						if j := bytes.Index(body[i+2:sg.end], []byte("]]")); j >= 0 {
							i += 2 + j + 1 // past the link
						}
					}
					continue
				case '#':
				default:
					continue
				}
				for ci < len(spans) && spans[ci].end <= i {
					ci++
				}
				if ci < len(spans) && spans[ci].start <= i {
					i = spans[ci].end - 1 // code or a comment
					continue
				}
				if i > sg.start {
					if r, _ := utf8.DecodeLastRune(body[sg.start:i]); !unicode.IsSpace(r) {
						continue
					}
				}
				tag, n := tagAt(body[i+1 : sg.end])
				if tag != "" && !slices.Contains(tags, tag) {
					tags = append(tags, tag)
				}
				i += n
			}
		}
	}
	sc.scan()
	return tags
}

// tagAt returns the tag at the start of b (after its '#') and the bytes it
// spans; "" when there is none.
func tagAt(b []byte) (string, int) {
	n, digitsOnly := 0, true
	for n < len(b) {
		r, size := utf8.DecodeRune(b[n:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_' || r == '-' || r == '/') {
			break
		}
		if !unicode.IsDigit(r) {
			digitsOnly = false
		}
		n += size
	}
	tag := bytes.TrimRight(b[:n], "/")
	if len(tag) == 0 || digitsOnly {
		return "", n
	}
	return string(tag), n
}

// mergeTags appends the tags of more that are not in tags yet.
func mergeTags(tags, more []string) []string {
	for _, t := range more {
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	return tags
}

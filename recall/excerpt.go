package recall

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// conceptKeys returns the keys a link to c can have: its label's and its
// aliases'.
func conceptKeys(c *noema.Concept) map[string]bool {
	keys := map[string]bool{vault.Key(c.Label): true}
	if c.Key != "" {
		keys[c.Key] = true
	}
	for _, a := range c.Aliases {
		keys[vault.Key(a)] = true
	}
	return keys
}

// Excerpt returns the paragraph of body (a note's Markdown after its front
// matter) around the first WikiLink whose key is in keys, trimmed, at most
// limit runes. A paragraph is the run of non-blank lines holding the link.
// A longer paragraph is cut to a window around the link, at word
// boundaries where possible, with "…" marking each cut (the ellipses count
// toward limit). It returns "" when body links none of the keys (links in
// code are not links; see vault.ParseLinks).
func Excerpt(body string, keys map[string]bool, limit int) string {
	if limit <= 0 {
		return ""
	}
	start, end := -1, -1
	for _, l := range vault.ParseLinks([]byte(body), 0, 1) {
		if keys[l.Key] {
			start, end = l.Offset, l.End
			break
		}
	}
	if start < 0 || end > len(body) {
		return ""
	}
	// Widen to the paragraph: from the link's line back to the line after
	// a blank line (or the start), forward to the line before a blank line
	// (or the end).
	ps := strings.LastIndexByte(body[:start], '\n') + 1
	for ps > 0 { // body[ps-1] is the newline ending the previous line
		prev := strings.LastIndexByte(body[:ps-1], '\n') + 1
		if isBlank(body[prev : ps-1]) {
			break
		}
		ps = prev
	}
	pe := len(body)
	if i := strings.IndexByte(body[end:], '\n'); i >= 0 {
		pe = end + i
	}
	for pe < len(body) { // body[pe] is the newline ending the line
		next := pe + 1
		lineEnd := len(body)
		if i := strings.IndexByte(body[next:], '\n'); i >= 0 {
			lineEnd = next + i
		}
		if isBlank(body[next:lineEnd]) {
			break
		}
		pe = lineEnd
	}
	para := body[ps:pe]
	// Trim, keeping the link's position within the trimmed text.
	lead := len(para) - len(strings.TrimLeftFunc(para, unicode.IsSpace))
	para = strings.TrimSpace(para)
	ls, le := start-ps-lead, end-ps-lead
	return window(para, ls, le, limit)
}

// isBlank reports whether a line holds only white space.
func isBlank(line string) bool { return strings.TrimSpace(line) == "" }

// window cuts text (whose bytes [ls, le) are the link) to at most limit
// runes around the link.
func window(text string, ls, le, limit int) string {
	n := utf8.RuneCountInString(text)
	if n <= limit {
		return text
	}
	r := []rune(text)
	// Rune positions of the link.
	rs := utf8.RuneCountInString(text[:ls])
	re := rs + utf8.RuneCountInString(text[ls:le])
	room := limit - 2 // both ellipses, in the worst case
	if room < 1 {
		return string(r[:limit])
	}
	// Centre the link in the window; a link longer than the room is cut
	// from its start.
	from := rs - (room-(re-rs))/2
	from = min(max(from, 0), n-room)
	if re-rs >= room {
		from = rs
	}
	to := from + room
	// Snap inward to word boundaries, when one is near and the link stays
	// whole.
	const slack = 40
	if from > 0 {
		for i := from; i < min(from+slack, rs); i++ {
			if unicode.IsSpace(r[i]) {
				from = i + 1
				break
			}
		}
	}
	if to < n {
		for i := to - 1; i > max(to-slack, re); i-- {
			if unicode.IsSpace(r[i]) {
				to = i
				break
			}
		}
	}
	out := strings.TrimSpace(string(r[from:to]))
	if from > 0 {
		out = "…" + out
	}
	if to < n {
		out += "…"
	}
	return out
}

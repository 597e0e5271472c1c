package vault

import (
	"strings"
)

// FindSection returns the byte range [start, end) of body under the ATX
// heading whose text equals heading, ignoring case and surrounding space; the
// argument may keep its leading '#'s ("## Notes" finds "## Notes" and also
// "# Notes"). The range runs from the line after the heading to the line of
// the next heading of the same or a higher level, or to the end of body; it
// includes the line break that ends its last line.
//
// Only ATX headings outside code blocks, HTML blocks, block quotes and list
// items count, and the first matching heading wins. The heading's text is
// compared as written, with its closing '#'s removed (inline markup such as
// *emphasis* is not rendered).
func FindSection(body []byte, heading string) (start, end int, ok bool) {
	want := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(heading), "#"))
	if want == "" {
		return 0, 0, false
	}
	found, closed := false, false
	level := 0
	end = len(body)
	sc := blockScanner{doc: body}
	sc.onHeading = func(h headingLine) {
		switch {
		case closed:
		case found:
			if h.level <= level {
				end, closed = h.lineStart, true
			}
		case strings.EqualFold(string(h.text), want):
			found, level, start = true, h.level, h.next
		}
	}
	sc.scan()
	if !found {
		return 0, 0, false
	}
	return start, end, true
}

// Headings lists the ATX headings FindSection can find in body, in order,
// each with its leading '#'s ("## Notes").
func Headings(body []byte) []string {
	var out []string
	sc := blockScanner{doc: body}
	sc.onHeading = func(h headingLine) {
		out = append(out, strings.Repeat("#", h.level)+" "+string(h.text))
	}
	sc.scan()
	return out
}

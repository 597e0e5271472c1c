package vault

import (
	"bytes"
	"strings"

	"github.com/noema-mem/noema"
)

// RewriteLinks returns content with the target of each link for which fn
// returns a new one replaced, keeping the rest of the link as written: its
// heading or block ("#…"), its shown text ("|…"), the embed '!' and a
// table's escaped pipe. links are content's links in order (from [Parse],
// offsets in the whole file). It also returns the lines that changed, in
// order, as they were and as they become.
func RewriteLinks(content []byte, links []noema.Link, fn func(l noema.Link) (string, bool)) ([]byte, []LineChange) {
	var b bytes.Buffer
	last := 0
	changedLines := map[int]bool{}
	var order []int
	for _, l := range links {
		if l.Offset < last || l.End > len(content) {
			continue
		}
		target, ok := fn(l)
		if !ok {
			continue
		}
		inner := content[l.Offset+2 : l.End-2]
		rest := inner[len(inner):]
		if i := bytes.IndexAny(inner, "#|"); i >= 0 {
			rest = inner[i:]
			if inner[i] == '|' && i > 0 && inner[i-1] == '\\' {
				rest = inner[i-1:] // [[T\|shown]] in a table
			}
		}
		b.Write(content[last : l.Offset+2])
		b.WriteString(target)
		b.Write(rest)
		b.WriteString("]]")
		last = l.End
		if !changedLines[l.Line] {
			changedLines[l.Line] = true
			order = append(order, l.Line)
		}
	}
	if last == 0 {
		return content, nil
	}
	b.Write(content[last:])
	out := b.Bytes()
	changes := make([]LineChange, 0, len(order))
	for _, n := range order {
		changes = append(changes, LineChange{Line: n, Before: lineOf(content, n), After: lineOf(out, n)})
	}
	return out, changes
}

// LineChange is one line of a file before and after a rewrite.
type LineChange struct {
	Line   int    `json:"line"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// lineOf returns the 1-based line n of content, without its line break.
func lineOf(content []byte, n int) string {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(content, '\n')
		if j < 0 {
			return ""
		}
		content = content[j+1:]
	}
	if j := bytes.IndexByte(content, '\n'); j >= 0 {
		content = content[:j]
	}
	return strings.TrimSuffix(string(content), "\r")
}

// Retarget returns the new target text of link l (in content) to name, so
// that the link reads the same once rewritten with [RewriteLinks]: a link
// with shown text, a heading or an embed takes name as it is
// ([[old|shown]] → [[name|shown]], [[old#H]] → [[name#H]]); a bare link
// keeps its old text as shown text ([[old]] → [[name|old]]) unless that
// text is name.
func Retarget(content []byte, l noema.Link, name string) string {
	if l.Display != "" || l.Heading != "" || l.Embed {
		return name
	}
	inner := strings.TrimSpace(string(content[l.Offset+2 : l.End-2]))
	if inner == name {
		return name
	}
	return name + "|" + inner
}

package recall_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/noema-mem/noema/recall"
)

func TestExcerpt(t *testing.T) {
	keys := map[string]bool{"pear": true, "pyrus": true}
	words := strings.Repeat("word ", 100) // 500 characters
	for _, tc := range []struct {
		name, body string
		limit      int
		want       string
	}{
		{"no link", "Nothing here.", 400, ""},
		{"other concept", "[[Apple]] only.", 400, ""},
		{"only in code", "```\n[[Pear]]\n```\n\n`[[Pear]]`\n", 400, ""},
		{"first line", "[[Pear]] first.\nsecond line\n\nnext paragraph", 400, "[[Pear]] first.\nsecond line"},
		{"alias, last paragraph", "intro\n\n  see [[Pyrus|the tree]]  \n", 400, "see [[Pyrus|the tree]]"},
		{"first of several", "a [[pear]]\n\nb [[Pear]]", 400, "a [[pear]]"},
		{"code first, link later", "`[[Pear]]` is code\n\nreal [[Pear]] here", 400, "real [[Pear]] here"},
		{"list item", "- one\n- [[Pear]] two\n- three\n\nafter", 400, "- one\n- [[Pear]] two\n- three"},
		{"blank line of spaces", "before\n   \n[[Pear]]\n \t\nafter", 400, "[[Pear]]"},
		{"CRLF", "before\r\n\r\nthe [[Pear]]\r\nmore\r\n\r\nafter", 400, "the [[Pear]]\r\nmore"},
		{"exactly the limit", strings.Repeat("x", 392) + "[[Pear]]", 400, strings.Repeat("x", 392) + "[[Pear]]"},
		{"tiny limit", "[[Pear]] and more words", 2, "[["},
	} {
		if got := recall.Excerpt(tc.body, keys, tc.limit); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}

	// Long paragraphs: a window of at most the limit, around the link, cut
	// at word boundaries, with ellipses.
	for _, tc := range []struct {
		name, body         string
		prefixed, suffixed bool
	}{
		{"middle", words + "[[Pear]] " + words, true, true},
		{"start", "[[Pear]] " + words + words, false, true},
		{"end", words + words + "[[Pear]]", true, false},
		{"no spaces", strings.Repeat("あ", 600) + "[[Pear]]" + strings.Repeat("い", 600), true, true},
	} {
		got := recall.Excerpt(tc.body, keys, 400)
		n := utf8.RuneCountInString(got)
		if n > 400 || n < 300 || !strings.Contains(got, "[[Pear]]") {
			t.Errorf("%s: %d characters: %q", tc.name, n, got)
		}
		if strings.HasPrefix(got, "…") != tc.prefixed || strings.HasSuffix(got, "…") != tc.suffixed {
			t.Errorf("%s: ellipses wrong: %q", tc.name, got)
		}
		if strings.Contains(tc.body, " ") && (strings.HasPrefix(got, "…wor ") || strings.Contains(got, " or…") || strings.Contains(got, " wo…")) {
			t.Errorf("%s: cut inside a word: %q", tc.name, got)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: invalid UTF-8", tc.name)
		}
	}

	// A link longer than the window keeps its start.
	long := "[[Pear|" + strings.Repeat("z", 500) + "]]"
	if got := recall.Excerpt("intro "+long+" outro", keys, 50); utf8.RuneCountInString(got) > 50 || !strings.HasPrefix(got, "…[[Pear|") {
		t.Errorf("long link: %q", got)
	}
}

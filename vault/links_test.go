package vault

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/noema-mem/noema"
)

// lk is a compact expected link: its source text, where it starts, and its
// 1-based line (with firstLine = 1 and base = 0).
type lk struct {
	text    string // doc[Offset:End]
	target  string
	heading string
	display string
	line    int
}

func TestParseLinks(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []lk
	}{
		{"plain", "See [[Gradient Checkpointing]] now.", []lk{{"[[Gradient Checkpointing]]", "Gradient Checkpointing", "", "", 1}}},
		{"display", "[[Target|shown text]]", []lk{{"[[Target|shown text]]", "Target", "", "shown text", 1}}},
		{"heading", "[[Target#Some Heading]]", []lk{{"[[Target#Some Heading]]", "Target", "Some Heading", "", 1}}},
		{"heading and display", "[[Target#H|shown]]", []lk{{"[[Target#H|shown]]", "Target", "H", "shown", 1}}},
		{"block ref", "[[Target#^abc123]]", []lk{{"[[Target#^abc123]]", "Target", "^abc123", "", 1}}},
		{"hash after pipe is display", "[[T|a#b]]", []lk{{"[[T|a#b]]", "T", "", "a#b", 1}}},
		{"embed", "![[Diagram]] and ![[Doc#Part]]", []lk{{"[[Diagram]]", "Diagram", "", "", 1}, {"[[Doc#Part]]", "Doc", "Part", "", 1}}},
		{"trimmed", "[[  spaced target  |  shown  ]]", []lk{{"[[  spaced target  |  shown  ]]", "spaced target", "", "shown", 1}}},
		{"several on a line", "[[A]], [[B]] and [[C]]", []lk{{"[[A]]", "A", "", "", 1}, {"[[B]]", "B", "", "", 1}, {"[[C]]", "C", "", "", 1}}},
		{"unicode", "メモ: [[日本語のメモ]] [[Café]]", []lk{{"[[日本語のメモ]]", "日本語のメモ", "", "", 1}, {"[[Café]]", "Café", "", "", 1}}},
		{"lines", "one\ntwo [[A]]\r\nthree\n\n[[B]]", []lk{{"[[A]]", "A", "", "", 2}, {"[[B]]", "B", "", "", 5}}},
		{"escaped pipe in table", "| [[T\\|shown]] | x |", []lk{{"[[T\\|shown]]", "T", "", "shown", 1}}},
		{"last opener wins", "[[a [[b]]", []lk{{"[[b]]", "b", "", "", 1}}},
		{"triple bracket", "[[[c]]]", []lk{{"[[c]]", "c", "", "", 1}}},
		{"link in heading", "# About [[Topic]]\ntext", []lk{{"[[Topic]]", "Topic", "", "", 1}}},
		{"link in setext heading", "About [[Topic]]\n===", []lk{{"[[Topic]]", "Topic", "", "", 1}}},
		{"link in list and quote", "- item [[A]]\n  > quoted [[B]]\n1. [[C]]", []lk{{"[[A]]", "A", "", "", 1}, {"[[B]]", "B", "", "", 2}, {"[[C]]", "C", "", "", 3}}},
		{"link in table", "| a | b |\n|---|---|\n| [[X]] | [[Y\\|y]] |", []lk{{"[[X]]", "X", "", "", 3}, {"[[Y\\|y]]", "Y", "", "y", 3}}},

		// ignored forms
		{"empty", "[[]] [[ ]] [[\t]] [[|x]] [[#Heading]] [[ #h | d ]]", nil},
		{"separators only", "[[__]] [[- -]]", nil},
		{"newline inside", "[[multi\nline]] [[a\r\nb]]", nil},
		{"unclosed", "[[open and never closed\n]]", nil},
		{"single brackets", "[not] [a link](url) [[x] ]", nil},
		{"escaped", `\[[not]] \\[[yes]]`, []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"too long", "[[" + strings.Repeat("x", MaxLinkLen+1) + "]] [[" + strings.Repeat("é", MaxLinkLen) + "]]",
			[]lk{{"[[" + strings.Repeat("é", MaxLinkLen) + "]]", strings.Repeat("é", MaxLinkLen), "", "", 1}}},

		// fenced code
		{"backtick fence", "```\n[[no]]\n```\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 4}}},
		{"tilde fence", "~~~ python\n[[no]]\n~~~\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 4}}},
		{"longer closing fence", "```\n[[no]]\n``````\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 4}}},
		{"shorter fence does not close", "````\n```\n[[no]]\n````\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 5}}},
		{"other char does not close", "```\n~~~\n[[no]]\n```\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 5}}},
		{"closing fence with text is content", "```\n``` not closed\n[[no]]\n```\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 5}}},
		{"indented fence", "   ```\n[[no]]\n   ```\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 4}}},
		{"unclosed fence runs to the end", "[[yes]]\n```\n[[no]]\n\n[[no]]", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"backtick info with backtick is not a fence", "``` a`b [[yes]]", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"fence interrupts paragraph", "para [[a]]\n```\n[[no]]\n```", []lk{{"[[a]]", "a", "", "", 1}}},
		{"fence in list item", "- item\n  ```\n  [[no]]\n  ```\n- [[yes]]", []lk{{"[[yes]]", "yes", "", "", 5}}},
		{"fence in quote closed by quote end", "> ```\n> [[no]]\n\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 4}}},

		// indented code
		{"indented code", "    [[no]]\n\tand [[no]]\n\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 4}}},
		{"indented code after blank", "para\n\n    [[no]]", nil},
		{"indented line continues paragraph", "para\n    [[yes]]", []lk{{"[[yes]]", "yes", "", "", 2}}},
		{"indented in list item is not code", "- item\n\n    [[yes]]", []lk{{"[[yes]]", "yes", "", "", 3}}},
		{"code in list item", "- item\n\n      [[no]]", nil},
		{"nested list", "- a\n    - [[yes]]", []lk{{"[[yes]]", "yes", "", "", 2}}},

		// code spans
		{"code span", "`[[no]]` [[yes]]", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"double backtick span", "``a ` [[no]]`` [[yes]]", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"unequal runs do not close", "`a`` [[yes]]", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"unmatched backtick is literal", "`[[yes]]", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"span across lines", "a `code\n[[no]] code` [[yes]]", []lk{{"[[yes]]", "yes", "", "", 2}}},
		{"span inside link", "[[a `b]]` c", nil},
		{"link around span", "[[a `b` c]] [[yes]]", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"escaped backtick", "\\`[[yes]]`", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"escaped backtick run still opens", "\\``[[no]]`", nil},
		{"span does not cross paragraphs", "`a\n\n[[yes]]`", []lk{{"[[yes]]", "yes", "", "", 3}}},

		// inline HTML comments
		{"inline comment", "a <!-- [[no]] --> [[yes]]", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"inline comment across lines", "a <!-- x\n[[no]] --> [[yes]]", []lk{{"[[yes]]", "yes", "", "", 2}}},
		{"unclosed inline comment is text", "a <!-- [[yes]]", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"empty comments", "x <!--> [[a]] <!---> [[b]]", []lk{{"[[a]]", "a", "", "", 1}, {"[[b]]", "b", "", "", 1}}},
		{"comment marker in code", "`<!--` [[yes]] -->", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"backticks in comment", "x <!-- ` --> [[yes]] `", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"escaped comment", "\\<!-- [[yes]] -->", []lk{{"[[yes]]", "yes", "", "", 1}}},

		// HTML blocks
		{"html 1 script", "<script>\n[[no]]\n</script>\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 4}}},
		{"html 1 pre same line", "<pre>[[no]]</pre>\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 2}}},
		{"html 2 comment", "<!-- [[no]]\n[[no]] -->\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 3}}},
		{"html 3 processing", "<?php [[no]]\n?>\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 3}}},
		{"html 4 declaration", "<!DOCTYPE [[no]]\n>\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 3}}},
		{"html 5 cdata", "<![CDATA[\n[[no]]\n]]>\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 4}}},
		{"html 6 div until blank", "<div>\n[[no]]\n\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 4}}},
		{"html 6 closing tag", "</table> [[no]]\n\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 3}}},
		{"html 6 interrupts paragraph", "text [[a]]\n<div>\n[[no]]", []lk{{"[[a]]", "a", "", "", 1}}},
		{"html 7 own line", "<span class=\"x\">\n[[no]]\n\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 4}}},
		{"closing pre tag alone is text", "</pre>\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 2}}},
		{"html 7 cannot interrupt paragraph", "text\n<span>\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 3}}},
		{"inline html is not a block", "<span>[[yes]]</span>", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"not a tag", "<notatag [[yes]]", []lk{{"[[yes]]", "yes", "", "", 1}}},
		{"autolink line is not html 7", "<https://example.com>\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 2}}},
		{"html in quote", "> <div>\n> [[no]]\n\n[[yes]]", []lk{{"[[yes]]", "yes", "", "", 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseLinks([]byte(tt.doc), 0, 1)
			checkLinks(t, tt.doc, 0, got, tt.want)
		})
	}
}

func checkLinks(t *testing.T, doc string, base int, got []noema.Link, want []lk) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d links %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i, w := range want {
		g := got[i]
		if g.Target != w.target || g.Heading != w.heading || g.Display != w.display || g.Line != w.line {
			t.Errorf("link %d = %+v, want %+v", i, g, w)
		}
		if g.Key != Key(w.target) {
			t.Errorf("link %d key = %q, want %q", i, g.Key, Key(w.target))
		}
		if text := doc[g.Offset-base : g.End-base]; text != w.text {
			t.Errorf("link %d covers %q, want %q", i, text, w.text)
		}
	}
}

func TestParseLinksBaseAndFirstLine(t *testing.T) {
	file := "---\ntitle: x\n---\nintro\n\n[[A]] and\n  [[B|b]]\n"
	_, body, off, line := SplitFrontMatter([]byte(file))
	got := ParseLinks(body, off, line)
	if len(got) != 2 {
		t.Fatalf("got %+v", got)
	}
	for i, want := range []struct {
		text string
		line int
	}{{"[[A]]", 6}, {"[[B|b]]", 7}} {
		if s := file[got[i].Offset:got[i].End]; s != want.text || got[i].Line != want.line {
			t.Errorf("link %d: %q at line %d, want %q at line %d", i, s, got[i].Line, want.text, want.line)
		}
	}
}

// TestParseLinksLinear feeds inputs that make naive scanners quadratic and
// checks that 4x the input takes about 4x the time (quadratic would be 16x).
func TestParseLinksLinear(t *testing.T) {
	inputs := map[string]func(n int) string{
		"openers":            func(n int) string { return strings.Repeat("[[", n) },
		"openers then close": func(n int) string { return strings.Repeat("[[a", n) + "]]" },
		"code spans in link": func(n int) string { return "[[" + strings.Repeat("`a` [[", n) + "]]" },
		"comments in link":   func(n int) string { return "x [[" + strings.Repeat("<!-- [[ --> ", n) + "]]" },
		"unclosed comments":  func(n int) string { return "x " + strings.Repeat("<!-- [[a]] ", n) },
		"backtick runs":      func(n int) string { return "`" + strings.Repeat("a``", n) },
		"growing runs": func(n int) string {
			var b strings.Builder
			for i := 1; b.Len() < 3*n; i++ {
				b.WriteString(strings.Repeat("`", i%200+1) + "x")
			}
			return b.String()
		},
		"nested quotes":      func(n int) string { return strings.Repeat(">", n) + " [[a]]\n" },
		"nested lists":       func(n int) string { return strings.Repeat("1. ", n/3) + "[[a]]\n" + strings.Repeat("\n", n) },
		"many fences":        func(n int) string { return strings.Repeat("```\n[[a]]\n", n/10) },
		"long line of links": func(n int) string { return strings.Repeat("[[a]] ", n) },
		"unclosed per line":  func(n int) string { return strings.Repeat("[[abc\n", n/6) },
		"brackets in spans":  func(n int) string { return strings.Repeat("`[[`", n) },
		"long target":        func(n int) string { return "[[" + strings.Repeat("x", 4*n) + "]]" },
	}
	best := func(in []byte) time.Duration {
		d := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			ParseLinks(in, 0, 1)
			d = min(d, time.Since(start))
		}
		return d
	}
	const n = 20_000
	for name, gen := range inputs {
		// A quadratic input fails every attempt; a machine busy with other
		// work (parallel test packages) only spoils one now and then.
		var small, large time.Duration
		linear := false
		for attempt := 0; attempt < 3 && !linear; attempt++ {
			small, large = best([]byte(gen(n))), best([]byte(gen(4*n)))
			linear = large <= 12*small+20*time.Millisecond
		}
		if !linear {
			t.Errorf("%s: %v for n=%d but %v for 4n: not linear", name, small, n, large)
		}
	}
}

func FuzzParseLinks(f *testing.F) {
	seeds := []string{
		"[[a]]", "![[a#b|c]]", "```\n[[a]]\n```\n[[b]]", "    [[a]]", "`[[a]]`", "<div>\n[[a]]\n\n[[b]]",
		"> - [[a]]\n>   ```\n[[b]]", "[[a [[b]]", "\\[[a]]", "[[a\\|b]]", "``[[a]]`` `", "<!--\n[[a]]\n-->",
		"- a\n\n      [[b]]", "\t[[a]]\n - \t[[b]]", "[[\r]]", "[[\xff]]", "[[ ]]", "#[[h]]\n## [[x]] ##",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		const base, first = 7, 3
		links := ParseLinks(doc, base, first)
		lines := bytes.Count(doc, []byte("\n")) + 1
		prevEnd := 0
		for _, l := range links {
			o, e := l.Offset-base, l.End-base
			if o < prevEnd || e > len(doc) || e-o < 5 {
				t.Fatalf("link %+v out of range or overlapping (len %d)", l, len(doc))
			}
			prevEnd = e
			s := doc[o:e]
			if !bytes.HasPrefix(s, []byte("[[")) || !bytes.HasSuffix(s, []byte("]]")) {
				t.Fatalf("link %+v covers %q", l, s)
			}
			if bytes.ContainsAny(s, "\n\r") {
				t.Fatalf("link %+v spans a line break: %q", l, s)
			}
			if strings.TrimSpace(l.Target) == "" || l.Target != strings.TrimSpace(l.Target) || strings.ContainsAny(l.Target, "\n\r") {
				t.Fatalf("bad target %q", l.Target)
			}
			if utf8.RuneCountInString(l.Target) > MaxLinkLen || l.Key != Key(l.Target) || l.Key == "" {
				t.Fatalf("bad target/key %q / %q", l.Target, l.Key)
			}
			if want := first + bytes.Count(doc[:o], []byte("\n")); l.Line != want || l.Line >= first+lines {
				t.Fatalf("link %+v: line %d, want %d", l, l.Line, want)
			}
		}
	})
}

// TestObsidianLinkForms: the link forms of Obsidian's help ("Internal
// links", "Embed files", "Link to a block") as noema reads them.
func TestObsidianLinkForms(t *testing.T) {
	type want struct {
		target, key, heading string
		embed                bool
	}
	for _, c := range []struct {
		doc  string
		want []want
	}{
		{"[[Three laws of motion]]", []want{{"Three laws of motion", "three laws of motion", "", false}}},
		{"[[Three laws of motion.md]]", []want{{"Three laws of motion", "three laws of motion", "", false}}},
		{"[[Note.MD|shown]]", []want{{"Note", "note", "", false}}},
		{"[[Three laws of motion#Second law]]", []want{{"Three laws of motion", "three laws of motion", "Second law", false}}},
		{"[[Note#Heading#Sub]]", []want{{"Note", "note", "Heading#Sub", false}}},
		{"[[2023-01-01#^quote-of-the-day]]", []want{{"2023-01-01", "2023 01 01", "^quote-of-the-day", false}}},
		{"[[#^37066d]] [[#Heading]]", nil},
		{"![[Internal links]]", []want{{"Internal links", "internal links", "", true}}},
		{"![[Internal links#^b15695]]", []want{{"Internal links", "internal links", "^b15695", true}}},
		{"![[Engelbart.jpg]] ![[Engelbart.jpg|100x145]] ![[Document.pdf#page=3]]", nil},
		{"[[diagram.PNG]] ![[talk.mp4]] ![[song.mp3]] [[board.canvas]] [[table.base]]", nil},
		{"[[Node.js]] [[ASP.NET]] [[v1.2]] [[C#]] [[TCP/IP]]", []want{
			{"Node.js", "node.js", "", false}, {"ASP.NET", "asp.net", "", false}, {"v1.2", "v1.2", "", false},
			{"C", "c", "", false}, {"TCP/IP", "tcp/ip", "", false}}},
		{"[[folder/Note]] ![[folder/Image.png]]", []want{{"folder/Note", "folder/note", "", false}}},
	} {
		links := ParseLinks([]byte(c.doc), 0, 1)
		var got []want
		for _, l := range links {
			got = append(got, want{l.Target, l.Key, l.Heading, l.Embed})
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: links %+v, want %+v", c.doc, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: link %d = %+v, want %+v", c.doc, i, got[i], c.want[i])
			}
		}
	}
}

// TestResolvePathLinks: a folder-qualified link names the note at that
// path when the file exists; other slashes are concept names.
func TestResolvePathLinks(t *testing.T) {
	v, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"projects/Roadmap.md", "projects/2026/Plan.md"} {
		if err := unlocked(v).WriteFile(rel, []byte("x\n"), false); err != nil {
			t.Fatal(err)
		}
	}
	n, err := Parse("n.md", []byte("[[projects/Roadmap]] [[projects/2026/Plan.md#Goals|plan]] [[TCP/IP]] [[projects/Missing]] [[../outside/Note]]\n"))
	if err != nil {
		t.Fatal(err)
	}
	v.ResolvePathLinks(n)
	type got struct{ target, key, path, heading string }
	want := []got{
		{"Roadmap", "roadmap", "projects/Roadmap.md", ""},
		{"Plan", "plan", "projects/2026/Plan.md", "Goals"},
		{"TCP/IP", "tcp/ip", "", ""},
		{"projects/Missing", "projects/missing", "", ""},
		{"../outside/Note", "../outside/note", "", ""},
	}
	for i, l := range n.Links {
		if g := (got{l.Target, l.Key, l.Path, l.Heading}); g != want[i] {
			t.Errorf("link %d = %+v, want %+v", i, g, want[i])
		}
	}
}

package vault

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// diffNodes describes the first difference between two node trees, "" when
// they are the same.
func diffNodes(path string, a, b *yaml.Node) string {
	if a == nil || b == nil {
		if a != b {
			return fmt.Sprintf("%s: nil vs non-nil", path)
		}
		return ""
	}
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value ||
		a.Anchor != b.Anchor || a.Line != b.Line || a.Column != b.Column ||
		a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment ||
		len(a.Content) != len(b.Content) {
		return fmt.Sprintf("%s:\n fast   {Kind:%v Style:%v Tag:%q Value:%q Line:%d Col:%d len:%d}\n parser {Kind:%v Style:%v Tag:%q Value:%q Line:%d Col:%d len:%d HC:%q LC:%q FC:%q}",
			path, a.Kind, a.Style, a.Tag, a.Value, a.Line, a.Column, len(a.Content),
			b.Kind, b.Style, b.Tag, b.Value, b.Line, b.Column, len(b.Content), b.HeadComment, b.LineComment, b.FootComment)
	}
	for i := range a.Content {
		if d := diffNodes(fmt.Sprintf("%s/%d", path, i), a.Content[i], b.Content[i]); d != "" {
			return d
		}
	}
	return ""
}

// checkFastYAML fails when the fast path accepts src and builds another tree
// than the parser.
func checkFastYAML(t *testing.T, src []byte) bool {
	t.Helper()
	fast, ok := fastYAML(src)
	if !ok {
		return false
	}
	slow, err := decodeDoc(src)
	if err != nil {
		t.Fatalf("fast path accepted %q, parser fails: %v", src, err)
	}
	if d := diffNodes("doc", fast, slow); d != "" {
		t.Fatalf("fast path differs on %q at %s", src, d)
	}
	return true
}

func TestFastYAMLMatchesParser(t *testing.T) {
	accepted := []string{
		"title: Hello",
		"title: Hello World  \n",
		"title: \"Quoted: with colon\"\ntags: [a, 'b c', \"d\"]\n",
		"a: 1\nb: 1.5\nc: true\nd: null\ne: ~\nf: 2024-03-01\ng: 2024-05-12T09:30:00Z\nh: 0x1F\ni: .inf\n",
		"tags:\n  - ml\n  - 'quoted'\n  - \"dq\"\nnext: x\n",
		"tags:\n- a\n- b\n\n\nnext: x\n\n",
		"aliases: []\nt: 'it''s'\n",
		"k: [ a ,b ]\r\nl: x\r\n",
		"title: 日本語のメモ\nother: Café Déjà vu\n",
		"\n\ntitle: x\n",
		"a_b-c: d/e (f) g.h, i:j\n",
		"a: [1, 2.5, true, ~]\n",
		"y: yes\nn: No\no: on\n",
		"a: -1\nb: -x\nc: ~x\nd: +1\ne: -.5\n",
	}
	for _, src := range accepted {
		if !checkFastYAML(t, []byte(src)) {
			t.Errorf("fast path refused %q", src)
		}
	}
	refused := []string{
		"", "# comment\na: 1\n", "a: 1 # comment\n", "a: |\n  text\n", "a: &x 1\n", "a: !!str 1\n",
		"a:\n  b: 1\n", "a: b: c\n", "a: 'unterminated\n", "a: \"esc\\n\"\n", "a:\tb\n", "- a\n",
		"a: [1, [2]]\n", "a: {b: 1}\n", "a: multi\n  line\n", "a:\n", "a:\n  - b: 1\n", "a: - 1\n", "日本: no\n", "a: --1\n",
		"key:value\n", "'q': 1\n", "a: 1\n  b: 2\n", "a: x\rb: y\n", "a: x\u2028y\n", "a: [a, , b]\n", "a: [a,]\n",
		"relations:\n  - type: t\n    to: x\n",
	}
	for _, src := range refused {
		if _, ok := fastYAML([]byte(src)); ok {
			t.Errorf("fast path accepted %q", src)
		}
	}
	fm, _, _, _ := SplitFrontMatter([]byte(benchNote))
	if _, ok := fastYAML(fm); !ok {
		t.Errorf("fast path refused the benchmark note's front matter %q", fm)
	}
}

func FuzzFastYAML(f *testing.F) {
	for _, s := range []string{"title: Hello\ntags: [a, 'b']\n", "tags:\n  - a\n  - b\n", "a: 1\r\nb: \"x\"\r\n", "a: 'it''s'\n", strings.Repeat("k: v\n", 3)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkFastYAML(t, src)
	})
}

// TestFastYAMLGenerated checks the fast path against the parser on many
// generated documents close to the accepted subset.
func TestFastYAMLGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	atoms := []string{
		"x", "Hello World", "yes", "No", "on", "OFF", "y", "true", "False", "null", "NULL", "~", "0", "-1", "+1", "1_000",
		"0o17", "0x1F", "017", "1e3", "1.5e-3", ".5", "-.inf", ".NaN", "2024-03-01", "2024-13-45", "2024-05-12T09:30:00Z",
		"2024-05-12 09:30:00", "12:30", "1:2:3", "a:b", "http://x.y/z?q=1", "C#", "a #b", "100%", "x,y", "<<", "=", "é",
		"日本語のメモ", "a - b", "a: b", "a:", "-x", "- x", "--x", "_", "./rel", "(paren)", "a  b", "tab\tin", "'q'", "\"dq\"",
		"it's", "a'b", "", " ", "[a]", "{a}", "!tag", "&anc", "*ali", "|", ">", "@x", "`x`", "%x", "a\\b", "?x", "? x",
	}
	quote := func(s string) string {
		switch rng.IntN(4) {
		case 0:
			return "'" + strings.ReplaceAll(s, "'", "''") + "'"
		case 1:
			return "\"" + s + "\""
		}
		return s
	}
	accepted := 0
	keys := []string{"title", "tags", "a", "b_c", "d-e", "x1", "true", "null", "1", "key"}
	for n := 0; n < 30000; n++ {
		var b strings.Builder
		for k, nk := 0, 1+rng.IntN(4); k < nk; k++ {
			if rng.IntN(6) == 0 {
				b.WriteString("\n")
			}
			b.WriteString(keys[rng.IntN(len(keys))])
			b.WriteString(":")
			switch rng.IntN(4) {
			case 0: // flow sequence
				b.WriteString(" [")
				for i, ni := 0, rng.IntN(4); i < ni; i++ {
					if i > 0 {
						b.WriteString(",")
						b.WriteString(strings.Repeat(" ", rng.IntN(2)))
					}
					b.WriteString(quote(atoms[rng.IntN(len(atoms))]))
				}
				b.WriteString("]")
			case 1: // block sequence
				indent := strings.Repeat(" ", rng.IntN(3))
				for i, ni := 0, rng.IntN(3); i < ni; i++ {
					b.WriteString("\n" + indent + "- " + quote(atoms[rng.IntN(len(atoms))]))
				}
			default:
				b.WriteString(strings.Repeat(" ", 1+rng.IntN(2)))
				b.WriteString(quote(atoms[rng.IntN(len(atoms))]))
				b.WriteString(strings.Repeat(" ", rng.IntN(2)))
			}
			if rng.IntN(10) == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
		}
		if checkFastYAML(t, []byte(b.String())) {
			accepted++
		}
	}
	t.Logf("%d of 30000 generated documents took the fast path", accepted)
	if accepted < 3000 {
		t.Errorf("only %d generated documents took the fast path", accepted)
	}
}

package vault

import (
	"slices"
	"testing"
)

func TestParseTags(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"simple", "about #ml and #go\n", []string{"ml", "go"}},
		{"nested", "#area/ml/deep and #area/\n", []string{"area/ml/deep", "area"}},
		{"unicode", "メモ #日本語 #café\n", []string{"日本語", "café"}},
		{"start of line", "#first word\n", []string{"first"}},
		{"punctuation ends", "see #tag, #other. #x!\n", []string{"tag", "other", "x"}},
		{"underscore dash", "#snake_case #kebab-case\n", []string{"snake_case", "kebab-case"}},
		{"numbers only", "issue #2024 and #v2\n", []string{"v2"}},
		{"heading", "# Title\n## Sub #intitle\n", []string{"intitle"}},
		{"not after a word", "a#b c#d\n", nil},
		{"url fragment", "see https://example.com/#anchor\n", nil},
		{"wikilink heading", "[[Note#Heading]] and [[Note #nottag]]\n", nil},
		{"inline code", "`#notag` but #yes\n", []string{"yes"}},
		{"fenced code", "```\n#notag\n```\n#yes\n", []string{"yes"}},
		{"indented code", "para\n\n    #notag\n", nil},
		{"html comment", "text <!-- #notag --> #yes\n", []string{"yes"}},
		{"html block", "<!-- #notag --> #neither\n", nil},
		{"repeat", "#a #a #A\n", []string{"a", "A"}},
		{"empty", "# \n#\n", nil},
		{"list item", "- item #listed\n> quote #quoted\n", []string{"listed", "quoted"}},
	} {
		if got := ParseTags([]byte(c.body)); !slices.Equal(got, c.want) {
			t.Errorf("%s: ParseTags(%q) = %q, want %q", c.name, c.body, got, c.want)
		}
	}
}

func TestNoteTagsMergeFrontMatterAndInline(t *testing.T) {
	n, err := Parse("n.md", []byte("---\ntags: [ml, go]\n---\nText #go #rust\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ml", "go", "rust"}; !slices.Equal(n.Tags, want) {
		t.Errorf("tags = %q, want %q", n.Tags, want)
	}
}

func FuzzParseTags(f *testing.F) {
	for _, s := range []string{"#a #b/c", "```\n#x\n```", "`#x` [[a#b]] #日本", "# h\n#1 #-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tag := range ParseTags([]byte(s)) {
			if tag == "" || tag[len(tag)-1] == '/' {
				t.Fatalf("bad tag %q from %q", tag, s)
			}
		}
	})
}

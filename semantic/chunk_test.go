package semantic_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/noema-mem/noema/semantic"
)

func TestChunkBody(t *testing.T) {
	para := strings.Repeat("word ", 60) + "\n\n" // 302 bytes
	body := "intro line\n\n# Setup\n" + strings.Repeat(para, 8) + "## Linux\n" + para + "```\n# not a heading\n```\n# Usage\nshort\n"
	chunks := semantic.ChunkBody(body)
	if len(chunks) < 3 {
		t.Fatalf("chunks = %d", len(chunks))
	}
	var headings []string
	for _, c := range chunks {
		headings = append(headings, c.Heading)
		if c.End-c.Start > semantic.ChunkMax {
			t.Errorf("chunk of %d bytes", c.End-c.Start)
		}
	}
	joined := strings.Join(headings, "|")
	for _, want := range []string{"Setup", "Setup > Linux", "Usage"} {
		if !strings.Contains(joined, want) {
			t.Errorf("headings %q lack %q", joined, want)
		}
	}
	if strings.Contains(joined, "not a heading") {
		t.Errorf("a heading inside code counted: %q", joined)
	}
	// A single huge paragraph is cut at spaces.
	huge := semantic.ChunkBody(strings.Repeat("abcdefghi ", 1000))
	if len(huge) < 6 {
		t.Errorf("huge paragraph: %d chunks", len(huge))
	}
}

func FuzzChunkBody(f *testing.F) {
	f.Add("# a\ntext\n\n## b\nmore\n")
	f.Add(strings.Repeat("x", 5000))
	f.Add("```\n# x\n```\n" + strings.Repeat("é ", 2000))
	f.Fuzz(func(t *testing.T, body string) {
		prev := 0
		for _, c := range semantic.ChunkBody(body) {
			if c.Start < prev || c.End <= c.Start || c.End > len(body) {
				t.Fatalf("bad range [%d,%d) after %d in %d bytes", c.Start, c.End, prev, len(body))
			}
			if c.End-c.Start > semantic.ChunkMax {
				t.Fatalf("chunk of %d bytes", c.End-c.Start)
			}
			if utf8.ValidString(body) && !utf8.ValidString(c.Text) {
				t.Fatalf("chunk splits a rune: %q", c.Text)
			}
			prev = c.End
		}
	})
}

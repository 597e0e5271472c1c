package chunk_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/noema-mem/noema/semantic/chunk"
)

func TestChunkBody(t *testing.T) {
	para := strings.Repeat("word ", 60) + "\n\n" // 302 bytes
	body := "intro line\n\n# Setup\n" + strings.Repeat(para, 8) + "## Linux\n" + para + "```\n# not a heading\n```\n# Usage\nshort\n"
	chunks := chunk.Body(body)
	if len(chunks) < 3 {
		t.Fatalf("chunks = %d", len(chunks))
	}
	var headings []string
	for _, c := range chunks {
		headings = append(headings, c.Heading)
		if c.End-c.Start > chunk.Max {
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
	huge := chunk.Body(strings.Repeat("abcdefghi ", 1000))
	if len(huge) < 6 {
		t.Errorf("huge paragraph: %d chunks", len(huge))
	}
}

// TestBodyInvalidUTF8 is a regression test: a run of UTF-8 continuation
// bytes longer than Max left no place to cut and Body looped forever (the
// reason FuzzChunkBody reported almost no executions).
func TestBodyInvalidUTF8(t *testing.T) {
	for _, body := range []string{strings.Repeat("\x80", 2000), "a" + strings.Repeat("\xbf", 5000), "# h\n" + strings.Repeat("\x80", 1700) + "\n\nok"} {
		done := make(chan []chunk.Chunk, 1)
		go func() { done <- chunk.Body(body) }()
		select {
		case chunks := <-done:
			covered := 0
			for _, c := range chunks {
				if c.End-c.Start > chunk.Max {
					t.Errorf("chunk of %d bytes", c.End-c.Start)
				}
				covered += c.End - c.Start
			}
			if covered < len(strings.TrimSpace(body))-len("ok") {
				t.Errorf("chunks cover %d of %d bytes", covered, len(body))
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Body does not return on %d bytes of invalid UTF-8", len(body))
		}
	}
}

// FuzzChunkBody checks the invariants of Body on arbitrary input: chunks are
// ordered, non-empty, within the size limit, never split a rune of valid
// UTF-8, hold their trimmed range, and leave out only white space. The fuzz
// target cuts with small sizes (8 to 64 bytes, derived from size) so that
// short inputs reach every cut and minimizing a new input stays fast; the
// real sizes only scale the same code (TestChunkBody covers them).
func FuzzChunkBody(f *testing.F) {
	f.Add("# a\ntext\n\n## b\nmore\n", uint8(0))
	f.Add(strings.Repeat("x", 100), uint8(3))
	f.Add("```\n# x\n```\n"+strings.Repeat("é ", 40), uint8(9))
	f.Add("intro\n\n# A\n"+strings.Repeat("word ", 12)+"\n\n## B\nshort\n", uint8(20))
	f.Add(strings.Repeat("\x80", 100), uint8(1))
	f.Fuzz(func(t *testing.T, body string, size uint8) {
		hi := 8 + int(size)%57
		lo := hi * 5 / 8
		prev := 0
		for _, c := range chunk.Split(body, lo, hi) {
			if c.Start < prev || c.End <= c.Start || c.End > len(body) {
				t.Fatalf("bad range [%d,%d) after %d in %d bytes", c.Start, c.End, prev, len(body))
			}
			if c.End-c.Start > hi {
				t.Fatalf("chunk of %d bytes, limit %d", c.End-c.Start, hi)
			}
			if utf8.ValidString(body) && !utf8.ValidString(c.Text) {
				t.Fatalf("chunk splits a rune: %q", c.Text)
			}
			if c.Text != strings.TrimSpace(body[c.Start:c.End]) || c.Text == "" {
				t.Fatalf("chunk text %q for range %q", c.Text, body[c.Start:c.End])
			}
			if gap := body[prev:c.Start]; strings.TrimSpace(gap) != "" {
				t.Fatalf("text left out: %q", gap)
			}
			prev = c.End
		}
		if rest := body[prev:]; strings.TrimSpace(rest) != "" {
			t.Fatalf("text left out at the end: %q", rest)
		}
	})
}

package chunk_test

import (
	"fmt"
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

// TestPassages checks the passages scheme on a chat note (one turn a line,
// no blank lines) and on a note with headings, a list and code: chunks end
// at line ends, stay within PassageMax, and a fenced block is not cut at
// its lines.
func TestPassages(t *testing.T) {
	var chat strings.Builder
	for i := range 40 {
		fmt.Fprintf(&chat, "Speaker%d: turn number %d says something of about this length here.\n", i%2, i)
	}
	p := chunk.Passages()
	chunks := p.Cut(chat.String())
	if len(chunks) < 10 {
		t.Fatalf("a chat of 40 turns cut into %d passages", len(chunks))
	}
	body := chat.String()
	for _, c := range chunks {
		if c.End-c.Start > chunk.PassageMax || c.End-c.Start < chunk.PassageMin && c.End != len(body) {
			t.Errorf("passage of %d bytes: %q", c.End-c.Start, c.Text)
		}
		if c.End != len(body) && body[c.End-1] != '\n' {
			t.Errorf("passage does not end at a line end: %q", c.Text)
		}
		if !strings.HasPrefix(c.Text, "Speaker") {
			t.Errorf("passage does not start at a turn: %q", c.Text)
		}
	}

	code := "```go\n" + strings.Repeat("x := 1 // a line of code in a block\n", 5) + "```\n"
	doc := "# Notes\n- first item of a list, long enough to be a passage of its own here\n- second item\n" + code + "After the code.\n"
	var sawCode bool
	for _, c := range p.Cut(doc) {
		if strings.Contains(c.Text, "x := 1") {
			sawCode = true
			if !strings.Contains(c.Text, "```go") || strings.Count(c.Text, "x := 1") != 5 {
				t.Errorf("a fenced block cut at its lines: %q", c.Text)
			}
		}
		if c.Heading != "Notes" {
			t.Errorf("passage heading %q, want Notes", c.Heading)
		}
	}
	if !sawCode {
		t.Error("the code block is in no passage")
	}
}

// TestSchemeKey checks which scheme an embedder gets and what the index
// records its chunks under: a spelling model keeps the sections scheme and
// the model's bare name (chunks stored before schemes stay valid), a
// meaning model gets passages under a key of its own (its notes are cut
// again after an upgrade).
func TestSchemeKey(t *testing.T) {
	if got := chunk.For(true); got != chunk.Sections() || got.Key("builtin/ngram-v1") != "builtin/ngram-v1" {
		t.Errorf("spelling model: scheme %+v, key %q", got, got.Key("builtin/ngram-v1"))
	}
	m := chunk.For(false)
	if m != chunk.Passages() || m.Key("openai/x") == "openai/x" || !strings.HasPrefix(m.Key("openai/x"), "openai/x#") {
		t.Errorf("meaning model: scheme %+v, key %q", m, m.Key("openai/x"))
	}
	body := strings.Repeat("a sentence of some words.\n", 200)
	if len(chunk.Body(body)) >= len(m.Cut(body)) {
		t.Errorf("passages (%d) are not smaller than sections (%d)", len(m.Cut(body)), len(chunk.Body(body)))
	}
}

// FuzzChunkBody checks the invariants of Body on arbitrary input: chunks are
// ordered, non-empty, within the size limit, never split a rune of valid
// UTF-8, hold their trimmed range, and leave out only white space. The fuzz
// target cuts with small sizes (8 to 64 bytes, derived from size) so that
// short inputs reach every cut and minimizing a new input stays fast; the
// real sizes only scale the same code (TestChunkBody covers them). A size
// of 128 or more cuts by line too, as the passages scheme does.
func FuzzChunkBody(f *testing.F) {
	f.Add("# a\ntext\n\n## b\nmore\n", uint8(0))
	f.Add(strings.Repeat("x", 100), uint8(3))
	f.Add("```\n# x\n```\n"+strings.Repeat("é ", 40), uint8(9))
	f.Add("intro\n\n# A\n"+strings.Repeat("word ", 12)+"\n\n## B\nshort\n", uint8(20))
	f.Add(strings.Repeat("\x80", 100), uint8(1))
	f.Fuzz(func(t *testing.T, body string, size uint8) {
		hi := 8 + int(size)%57
		lo := hi * 5 / 8
		byLine := size >= 128
		if byLine {
			lo = hi / 3
		}
		prev := 0
		for _, c := range chunk.Split(body, lo, hi, byLine) {
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

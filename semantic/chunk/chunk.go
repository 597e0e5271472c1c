// Package chunk cuts a Markdown note body into heading-aware pieces that are
// embedded on their own. It imports only strings and the root package's
// ports, so that its fuzz target runs at full speed, without SQLite linked
// into the test binary.
package chunk

import (
	"strings"

	"github.com/noema-mem/noema"
)

// Chunk sizes of the sections scheme, in bytes: a chunk is cut at a
// heading or a paragraph break once it reaches Min, and never grows past
// Max.
const (
	Min = 1000
	Max = 1600
)

// Chunk sizes of the passages scheme, in bytes: a chunk is cut at a
// heading, a paragraph break or a line end once it reaches PassageMin, and
// never grows past PassageMax.
const (
	PassageMin = 100
	PassageMax = 300
)

// Scheme is one way of cutting note bodies into chunks: its sizes and
// where it may cut. A meaning model embeds passages (a chat turn or two, a
// list item, a short paragraph: what a question is asked about); a spelling
// model embeds sections, whose list serves only as a tie-breaker and costs
// five to eight times fewer vectors that way (docs/search.md, issue 20,
// rounds 8 and 9).
type Scheme struct {
	// Name tells the scheme apart in the index; the sections scheme's is
	// empty, so that the chunks it stored before schemes existed stay
	// valid.
	Name string
	// Min and Max bound a chunk's size in bytes (see Body).
	Min, Max int
	// Lines lets a chunk end at any line end past Min (outside fenced
	// code, not after a heading) and cuts a chunk over Max at its last
	// line end before falling back to a space.
	Lines bool
}

// Sections is the scheme of Body: heading-aware chunks of Min–Max bytes.
func Sections() Scheme { return Scheme{Min: Min, Max: Max} }

// Passages is the scheme of a meaning model: line-aware chunks of
// PassageMin–PassageMax bytes.
func Passages() Scheme {
	return Scheme{Name: "passages-v1", Min: PassageMin, Max: PassageMax, Lines: true}
}

// For returns the scheme for an embedder: Sections for a spelling model,
// Passages for a meaning model.
func For(spelling bool) Scheme {
	if spelling {
		return Sections()
	}
	return Passages()
}

// ForEmbedder returns the scheme e's notes are cut by — s, or when s is the
// zero Scheme (none chosen) the one For gives e's kind — and the key the
// index stores them under. The semantic service, which cuts the notes, and
// the search service, which reads their chunks, both ask it, so that the
// two agree.
func (s Scheme) ForEmbedder(e noema.Embedder) (Scheme, string) {
	if s == (Scheme{}) {
		s = For(noema.IsSpellingModel(e))
	}
	return s, s.Key(e.Name())
}

// Cut cuts a Markdown body into chunks by the scheme.
func (s Scheme) Cut(body string) []Chunk { return split(body, s.Min, s.Max, s.Lines) }

// Key is what the index records a note's chunks under when model embeds
// them by this scheme: notes chunked by another model or another scheme
// are cut and embedded again. The sections scheme's key is the model's
// name itself.
func (s Scheme) Key(model string) string {
	if s.Name == "" {
		return model
	}
	return model + "#" + s.Name
}

// Chunk is a piece of a note's body embedded on its own.
type Chunk struct {
	// Heading is the path of headings above the chunk ("Setup > Linux").
	Heading    string
	Start, End int // byte range in the body
	Text       string
}

// EmbedText is what is embedded for the chunk: its heading path, then its text.
func (c Chunk) EmbedText(title string) string {
	head := title
	if c.Heading != "" {
		head += " > " + c.Heading
	}
	return head + "\n" + c.Text
}

// Body cuts a Markdown body into heading-aware chunks of about Min–Max
// bytes: a heading always starts a new chunk when the current one is not
// tiny, a long section is cut at paragraph breaks, and a paragraph longer
// than Max is cut at the last space before the limit, never inside a UTF-8
// sequence (invalid UTF-8 with no rune start in reach is cut at Max).
// Headings inside fenced code do not count.
func Body(body string) []Chunk { return Sections().Cut(body) }

// split is Scheme.Cut with the sizes as parameters, so that the fuzz test
// can reach every cut with small inputs (the Go fuzzer minimizes an
// interesting input in time quadratic in its length, and Max-sized inputs
// stalled it). With byLine, a line end is a place to cut as a paragraph
// break is, only weaker when a chunk is too long.
func split(body string, lo, hi int, byLine bool) []Chunk {
	type line struct {
		start, end int
		heading    int // ATX level, 0 if not a heading
		text       string
		blank      bool
		code       bool // inside fenced code, or a fence line
	}
	var lines []line
	fence := ""
	for pos := 0; pos < len(body); {
		end := strings.IndexByte(body[pos:], '\n')
		next := len(body)
		if end >= 0 {
			next = pos + end + 1
			end = pos + end
		} else {
			end = len(body)
		}
		raw := body[pos:end]
		trimmed := strings.TrimLeft(raw, " ")
		l := line{start: pos, end: next, blank: strings.TrimSpace(raw) == ""}
		indent := len(raw) - len(trimmed)
		l.code = fence != ""
		switch {
		case fence != "":
			if indent < 4 && strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]+" \t\r") == "" {
				fence = ""
			}
		case indent < 4 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			c := trimmed[0]
			n := len(trimmed) - len(strings.TrimLeft(trimmed, string(c)))
			fence = strings.Repeat(string(c), n)
			l.code = true
		case indent < 4 && strings.HasPrefix(trimmed, "#"):
			n := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
			rest := trimmed[n:]
			if n <= 6 && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r') {
				l.heading = n
				l.text = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(rest), "#"))
			}
		}
		lines = append(lines, l)
		pos = next
	}

	var chunks []Chunk
	var path []string // heading texts by level
	heading := ""
	// The current chunk's start; the last paragraph break and (byLine)
	// line end inside it.
	start, cut, lineCut := -1, -1, -1
	flush := func(end int) {
		if start >= 0 && strings.TrimSpace(body[start:end]) != "" {
			chunks = append(chunks, Chunk{Heading: heading, Start: start, End: end, Text: strings.TrimSpace(body[start:end])})
		}
		start, cut, lineCut = -1, -1, -1
	}
	for _, l := range lines {
		if l.heading > 0 {
			if start >= 0 && l.start-start >= lo/4 {
				flush(l.start)
			}
			for len(path) < l.heading {
				path = append(path, "")
			}
			path = append(path[:l.heading-1], l.text)
			if start < 0 {
				heading = joinPath(path)
			}
		}
		if start < 0 {
			start = l.start
			heading = joinPath(path)
		}
		for start >= 0 && l.end-start > hi {
			// Too long: cut at the last paragraph break, else (byLine) at
			// the last line end, else at a space.
			at := cut
			if at <= start && lineCut > start {
				at = lineCut
			}
			if at <= start {
				at = start + hi
				if sp := strings.LastIndexByte(body[start:at], ' '); sp > 0 {
					at = start + sp + 1
				}
				for at < len(body) && at > start && !isRuneStart(body[at]) {
					at--
				}
				if at <= start {
					// No rune start in reach (invalid UTF-8): cut at
					// the limit anyway, or this loop never ends.
					at = start + hi
				}
			}
			flush(at)
			start = at
			heading = joinPath(path)
		}
		if l.blank && start >= 0 && l.start-start >= lo {
			flush(l.end)
			continue
		}
		if l.blank {
			cut = l.end
			continue
		}
		if byLine && l.heading == 0 && !l.code && start >= 0 {
			if l.end-start >= lo {
				flush(l.end)
				continue
			}
			lineCut = l.end
		}
	}
	flush(len(body))
	return chunks
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func joinPath(path []string) string {
	var parts []string
	for _, p := range path {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " > ")
}

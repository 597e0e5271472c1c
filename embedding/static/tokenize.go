package static

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// space is SentencePiece's word boundary mark, U+2581.
const space = "\u2581"

// normalize prepares text for the tokenizer as the teacher's tokenizer
// does (NFKC, a boundary mark before the first word and for every space),
// except that every run of white space or control characters, not only a
// single ' ', is one boundary, and leading and trailing ones are dropped.
func normalize(b *strings.Builder, text string) string {
	b.Reset()
	text = norm.NFKC.String(text)
	gap := true
	for _, r := range text {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			gap = true
			continue
		}
		if gap {
			b.WriteString(space)
			gap = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lattice holds the tokenizer's buffers, reused across texts.
type lattice struct {
	best  []float32 // best[i]: the highest score of a segmentation of s[:i]
	from  []int32   // from[i]: where the last piece of that segmentation starts
	id    []int32   // id[i]: that piece, or -1 for an unknown character
	spans []span
	ids   []int32
	lower []byte // a word in lower case
}

// span is one piece of a segmentation: s[start:end] is piece id, or one
// character no piece spells when id is -1.
type span struct{ start, end, id int32 }

// tokenize returns the pieces of the normalized text s (see segment), a run
// of unknown characters becoming one unknownID, as in the teacher.
func (t *table) tokenize(l *lattice, s string) []int32 {
	ids := l.ids[:0]
	for _, sp := range t.segment(l, s) {
		id := sp.id
		if id < 0 {
			if len(ids) > 0 && ids[len(ids)-1] == unknownID {
				continue
			}
			id = unknownID
		}
		ids = append(ids, id)
	}
	l.ids = ids
	return ids
}

// segment returns the segmentation of s of highest total log-probability
// (SentencePiece unigram, Viterbi), in order; a character no piece spells
// is a span of its own scored t.unkScore. A whole word of the table (see
// wordAt) is a span scored 0, above any split of it into pieces.
func (t *table) segment(l *lattice, s string) []span {
	n := len(s)
	l.best = grow(l.best, n+1)
	l.from = grow(l.from, n+1)
	l.id = grow(l.id, n+1)
	for i := range l.best {
		l.best[i] = float32(math.Inf(-1))
	}
	l.best[0] = 0
	for i := 0; i < n; {
		_, size := utf8.DecodeRuneInString(s[i:])
		base := l.best[i]
		l.relax(i, i+size, -1, base+t.unkScore)
		if id, end := t.wordAt(l, s, i); id >= 0 {
			l.relax(i, end, id, base)
		}
		for end := i + 1; end <= n; end++ {
			id, ok := t.pieces[s[i:end]]
			if !ok {
				break
			}
			if id >= 0 && (end == n || utf8.RuneStart(s[end])) {
				l.relax(i, end, id, base+t.score[id])
			}
		}
		i += size
	}
	spans := l.spans[:0]
	for end := n; end > 0; end = int(l.from[end]) {
		spans = append(spans, span{l.from[end], int32(end), l.id[end]})
	}
	slices.Reverse(spans)
	l.spans = spans
	return spans
}

// wordAt returns the table's word that starts at s[i:] and where it ends,
// or -1: a boundary mark, then a run of ASCII letters that ends the word
// (no letter or digit follows), as written or in lower case.
func (t *table) wordAt(l *lattice, s string, i int) (int32, int) {
	if len(t.words) == 0 || !strings.HasPrefix(s[i:], space) {
		return -1, 0
	}
	start := i + len(space)
	end := start
	upper := false
	for end < len(s) && isASCIILetter(s[end]) {
		upper = upper || s[end] <= 'Z'
		end++
	}
	if end == start || end-start > 255 {
		return -1, 0
	}
	if end < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[end:]); unicode.IsLetter(r) || unicode.IsDigit(r) {
			return -1, 0
		}
	}
	if id, ok := t.words[s[start:end]]; ok {
		return id, end
	}
	if upper {
		l.lower = append(l.lower[:0], s[start:end]...)
		for k, c := range l.lower {
			if c <= 'Z' {
				l.lower[k] = c + 'a' - 'A'
			}
		}
		if id, ok := t.words[string(l.lower)]; ok {
			return id, end
		}
	}
	return -1, 0
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// relax records the piece id over s[start:end] when it ends a better
// segmentation of s[:end] than the best so far.
func (l *lattice) relax(start, end int, id int32, score float32) {
	if score > l.best[end] {
		l.best[end], l.from[end], l.id[end] = score, int32(start), id
	}
}

// grow returns s resized to n, reusing its array when it is large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

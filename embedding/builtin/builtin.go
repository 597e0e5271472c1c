// Package builtin is noema's default embedder: offline, deterministic, with
// no model files and no network. It maps text to a 384-dimensional vector by
// signed feature hashing of character n-grams and words.
//
// # What it captures
//
// Spelling and morphology, not meaning. "gradient checkpointing",
// "Gradient-Checkpoint" and "gradient checkpoints" land close together;
// "car" and "automobile" share no letters and land far apart. Use it to
// surface near-duplicate spellings and shared word stems; use a model
// backend (ollama, openai) for synonyms.
//
// # Algorithm (model "ngram-v1")
//
//  1. Fold the text: Unicode compatibility decomposition (NFKD), full case
//     folding, and removal of combining marks that follow a Latin letter
//     (so "Café" and "cafe" agree; marks in other scripts are kept).
//  2. Split it into words: maximal runs of letters, digits and combining
//     marks. Everything else separates words.
//  3. Features: every character 3-gram and 4-gram of " "+word+" " (the
//     spaces mark word boundaries), and every whole word ([WordWeight]).
//     Words containing Han, Hiragana or Katakana also contribute their
//     character 2-grams, since those scripts write many words in one run
//     without spaces and a 2-gram is their typical word length.
//  4. Each distinct feature is hashed (FNV-1a over its runes with a feature
//     tag and a fixed seed, then a 64-bit finalizer) to one of 384 buckets and
//     a sign, and adds sign × weight × (1 + ln tf) to its bucket, tf being the
//     feature's count in the text (sublinear term frequency).
//  5. The vector is L2-normalized.
//
// Text with no letters or digits (the empty string, punctuation only) has no
// features and yields the zero vector, without an error; vector.IsDegenerate
// reports it, and callers must not rank with it.
//
// The output is a pure function of the input and the version: the same text
// gives the same vector bit for bit on every run (across CPU architectures
// the last bits may differ, as math.Log may). Any change to the algorithm
// must change [Model], so that stored vectors are re-embedded; the golden
// test in testdata/ pins the output.
package builtin

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/ascii"
)

const (
	// Dimension is the length of every vector.
	Dimension = 384
	// Model is the algorithm's name and version.
	Model = "ngram-v1"
	// Name is the embedder's full name, as reported by [Embedder.Name].
	Name = "builtin/" + Model
	// WordWeight is the weight of a whole-word feature relative to one
	// character n-gram. A word shared by two texts adds this feature on top
	// of the n-grams it shares, so exact words beat mere shared fragments;
	// 1 keeps plurals and other inflections close (python/pythons ≈ 0.64).
	WordWeight = 1.0
)

// tagWord keeps the hash space of words apart from that of n-grams, whose
// tag is their length n.
const tagWord = 'w'

// seed is the fixed FNV-1a offset basis mixed with the version, so that
// "ngram-v1" vectors never change.
const seed uint64 = 14695981039346656037 ^ 0x6e6f656d61763031 // "noemav01"

// Embedder is the builtin embedder. The zero value is ready to use and it is
// safe for concurrent use. It must not be copied after first use.
type Embedder struct {
	scratch sync.Pool // of *scratch, reused across calls
}

var _ noema.Embedder = (*Embedder)(nil)

// New returns the builtin embedder.
func New() *Embedder { return &Embedder{} }

// Name returns "builtin/ngram-v1".
func (*Embedder) Name() string { return Name }

// Dimension returns 384.
func (*Embedder) Dimension() int { return Dimension }

// Spelling reports true: the embedder captures spelling, not meaning
// (see noema.IsSpellingModel).
func (*Embedder) Spelling() bool { return true }

// Embed returns one vector per text, in order. It never fails except when
// ctx is done, in which case it returns ctx's error and no vectors.

func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	s, _ := e.scratch.Get().(*scratch)
	if s == nil {
		s = newScratch()
	}
	defer e.scratch.Put(s)
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("builtin embed: %w", err)
		}
		out[i] = s.embed(t)
	}
	return out, nil
}

// Vector embeds one text. It is Embed without a context, for callers that
// embed a single short label.
func Vector(text string) []float32 { return newScratch().embed(text) }

// scratch holds the buffers reused across texts. A cases.Caser is
// stateful, so a scratch serves one goroutine at a time.
type scratch struct {
	fold  cases.Caser
	runes []rune
	grams []uint64 // n-gram feature hashes
	words []uint64 // word feature hashes
	acc   [Dimension]float64
}

func newScratch() *scratch { return &scratch{fold: cases.Fold()} }

func (s *scratch) embed(text string) []float32 {
	s.runes = appendFolded(s.runes[:0], s.fold, text)
	s.grams, s.words = s.grams[:0], s.words[:0]
	rs := s.runes
	for i := 0; i < len(rs); {
		if !isWordRune(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && isWordRune(rs[j]) {
			j++
		}
		s.addWord(rs[i:j])
		i = j
	}

	clear(s.acc[:])
	s.accumulate(s.grams, 1)
	s.accumulate(s.words, WordWeight)

	v := make([]float32, Dimension)
	var sum float64
	for _, x := range s.acc {
		sum += float64(x * x)
	}
	if sum == 0 {
		return v // no features, or (never seen) perfect cancellation
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range s.acc {
		v[i] = float32(x * inv)
	}
	return v
}

// addWord records the features of one word.
func (s *scratch) addWord(w []rune) {
	s.words = append(s.words, hashRunes(tagWord, w))
	// Padded word " w ", read through at() to avoid building it.
	n := len(w) + 2
	at := func(i int) rune {
		if i == 0 || i == n-1 {
			return ' '
		}
		return w[i-1]
	}
	sizes := []int{3, 4}
	if hasCJK(w) {
		sizes = []int{2, 3, 4}
	}
	for _, g := range sizes {
		tag := uint64(g)
		for i := 0; i+g <= n; i++ {
			h := seed ^ tag
			h *= fnvPrime
			for k := i; k < i+g; k++ {
				h ^= uint64(at(k))
				h *= fnvPrime
			}
			s.grams = append(s.grams, h)
		}
	}
}

// accumulate adds the features in hs, with sublinear term frequency, to the
// accumulator.
func (s *scratch) accumulate(hs []uint64, weight float64) {
	slices.Sort(hs)
	for i := 0; i < len(hs); {
		j := i + 1
		for j < len(hs) && hs[j] == hs[i] {
			j++
		}
		tf := 1.0
		if j-i > 1 {
			tf = 1 + math.Log(float64(j-i))
		}
		bucket, sign := place(hs[i])
		// The conversion forbids fusing the product into the sum (FMA), so
		// the result does not depend on the CPU's instruction set.
		s.acc[bucket] += float64(sign * weight * tf)
		i = j
	}
}

const fnvPrime = 1099511628211

// hashRunes is FNV-1a over a tag and the runes of w.
func hashRunes(tag uint64, w []rune) uint64 {
	h := seed ^ tag
	h *= fnvPrime
	for _, r := range w {
		h ^= uint64(r)
		h *= fnvPrime
	}
	return h
}

// place maps a feature hash to a bucket and a sign. The finalizer (from
// splitmix64) spreads FNV's weak low bits over the whole word first.
func place(h uint64) (int, float64) {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	bucket := int((h >> 32) * Dimension >> 32)
	if h&1 == 1 {
		return bucket, -1
	}
	return bucket, 1
}

// hasCJK reports whether w has a Han, Hiragana or Katakana rune.
func hasCJK(w []rune) bool {
	for _, r := range w {
		if r >= 0x2E80 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)) {
			return true
		}
	}
	return false
}

// isWordRune reports whether r belongs to a word.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// appendFolded appends the folded runes of text to dst (step 1 of the
// algorithm). ASCII text takes a fast path with the same result.
func appendFolded(dst []rune, fold cases.Caser, text string) []rune {
	if ascii.Is(text) {
		for i := 0; i < len(text); i++ {
			c := rune(text[i])
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
		return dst
	}
	folded := fold.String(norm.NFKD.String(text))
	latinBase := false
	for _, r := range folded {
		if unicode.Is(unicode.Mn, r) {
			if latinBase {
				continue // a diacritic on a Latin letter: café → cafe
			}
		} else {
			latinBase = unicode.Is(unicode.Latin, r)
		}
		dst = append(dst, r)
	}
	return dst
}

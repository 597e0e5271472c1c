package testkit

import (
	"context"
	"hash/fnv"
	"math"

	"github.com/noema-mem/noema"
)

// Words is an embedder ([noema.Embedder]) of bags of words: each word,
// lowercased, adds ±1 to one of 64 dimensions chosen by its hash, and the
// sum is L2-normalized. Texts sharing words point the same way, so a test
// can tell which notes a query's vector is nearest without a model; it
// passes the embedder conformance suite (embedding/embeddingtest).
type Words struct{}

var _ noema.Embedder = Words{}

// WordsDimension is the length of a [Words] vector.
const WordsDimension = 64

// Name returns "testkit/words".
func (Words) Name() string { return "testkit/words" }

// Dimension returns WordsDimension.
func (Words) Dimension() int { return WordsDimension }

// Embed returns the normalized bag of words of each text; a text without
// words is the zero vector.
func (Words) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, WordsDimension)
		for _, w := range words(t) {
			h := fnv.New64a()
			h.Write([]byte(w))
			x := h.Sum64()
			sign := float32(1)
			if x&(1<<63) != 0 {
				sign = -1
			}
			v[x%WordsDimension] += sign
		}
		norm := 0.0
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if norm > 0 {
			for k := range v {
				v[k] = float32(float64(v[k]) / math.Sqrt(norm))
			}
		}
		out[i] = v
	}
	return out, nil
}

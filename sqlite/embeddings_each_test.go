package sqlite_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
)

// TestEachEmbeddingAndEmbeddedAmong: for a few hashes (looked up in
// batches) and for most of a model's (one scan), EachEmbedding streams
// exactly the vectors Embeddings returns, once a hash, and EmbeddedAmong
// finds exactly the cached ones; another model's rows never leak in.
func TestEachEmbeddingAndEmbeddedAmong(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	const n = 3000
	var hashes []string
	var vecs [][]float32
	for i := range n {
		hashes = append(hashes, fmt.Sprintf("h%05d", i))
		vecs = append(vecs, []float32{float32(i), 1, -float32(i) / 2})
	}
	if err := db.Semantic().PutEmbeddings(ctx, "m", 3, hashes, vecs); err != nil {
		t.Fatal(err)
	}
	if err := db.Semantic().PutEmbeddings(ctx, "other", 3, hashes[:10], vecs[:10]); err != nil {
		t.Fatal(err)
	}
	for _, ask := range [][]string{
		{"h00001", "h00002", "h00002", "nope"},                          // batches, a repeat
		append(slices.Clone(hashes[:2500]), "nope1", "nope2", "h00007"), // the scan, a repeat
	} {
		want, err := db.Semantic().Embeddings(ctx, "m", ask)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]float32{}
		err = db.Semantic().EachEmbedding(ctx, "m", ask, func(h string, v []float32) error {
			if _, dup := got[h]; dup {
				t.Errorf("%s streamed twice", h)
			}
			got[h] = slices.Clone(v)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !maps.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%d hashes: EachEmbedding streamed %d vectors, Embeddings returned %d, or they differ", len(ask), len(got), len(want))
		}
		among, err := db.Semantic().EmbeddedAmong(ctx, "m", ask)
		if err != nil {
			t.Fatal(err)
		}
		if len(among) != len(want) {
			t.Errorf("%d hashes: EmbeddedAmong found %d, want %d", len(ask), len(among), len(want))
		}
		for h := range want {
			if !among[h] {
				t.Errorf("EmbeddedAmong misses %s", h)
			}
		}
	}
}

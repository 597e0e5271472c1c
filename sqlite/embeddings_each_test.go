package sqlite_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"
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

// TestConceptLookupsTakeAnyNumberOfIDs: find_similar_concepts widens its
// candidates until decay cannot change its top k — in a vault of old
// notes, tens of thousands of concepts — and asks for their names and
// notes at once; one SQLite statement holds at most 32,766 variables, so
// ConceptNotes and ConceptNames must look them up in parts (at 100k notes
// find_similar_concepts answered `internal: too many SQL variables`).
func TestConceptLookupsTakeAnyNumberOfIDs(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	put(t, db, note("a.md", 1, "Go"), note("b.md", 2, "Go", "Rust"))
	var ids []string
	rows, err := db.Read().Query(`SELECT id FROM concepts ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) != 2 {
		t.Fatalf("concepts %v, want go and rust", ids)
	}
	many := make([]string, 0, 40_002)
	for i := range 20_000 {
		many = append(many, fmt.Sprintf("c_missing%05d", i))
	}
	many = append(many, ids[0])
	for i := range 20_000 {
		many = append(many, fmt.Sprintf("c_absent%05d", i))
	}
	many = append(many, ids[1])
	notes := map[string][]string{}
	if err := db.Semantic().ConceptNotes(ctx, many, func(id, path string, _, _ time.Time) {
		notes[id] = append(notes[id], path)
	}); err != nil {
		t.Fatalf("ConceptNotes of %d ids: %v", len(many), err)
	}
	if len(notes[ids[0]]) != 2 || len(notes[ids[1]]) != 1 || len(notes) != 2 {
		t.Errorf("ConceptNotes of %d ids = %v; want go in a.md and b.md, rust in b.md", len(many), notes)
	}
	names := map[string]string{}
	if err := db.Semantic().ConceptNames(ctx, many, func(id, label string, _ []string) { names[id] = label }); err != nil {
		t.Fatalf("ConceptNames of %d ids: %v", len(many), err)
	}
	if names[ids[0]] != "Go" || names[ids[1]] != "Rust" || len(names) != 2 {
		t.Errorf("ConceptNames of %d ids = %v", len(many), names)
	}
}

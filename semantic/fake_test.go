package semantic_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/internal/testkit"
	"github.com/noema-mem/noema/semantic"
	"github.com/noema-mem/noema/vault"
)

// counting is testkit.Words counting the texts it embeds.
type counting struct {
	testkit.Words
	texts atomic.Int64
}

func (c *counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts.Add(int64(len(texts)))
	return c.Words.Embed(ctx, texts)
}

// fakeSemantic is a semantic service over the in-memory index: four
// concepts, two notes, embedded by a counting testkit.Words.
func fakeSemantic() (*semantic.Service, *testkit.Concepts, *testkit.Semantic, *counting) {
	reg := testkit.NewConcepts(vault.Key)
	reg.Put(noema.Concept{ID: "c_gc", Label: "Garbage Collection", Description: "automatic memory reclamation"})
	reg.Put(noema.Concept{ID: "c_pause", Label: "Garbage Collection Pauses", Description: "stop the world memory reclamation"})
	reg.Put(noema.Concept{ID: "c_tok", Label: "Tokenizer", Description: "splitting text into tokens"})
	reg.Put(noema.Concept{ID: "c_sched", Label: "Scheduler", Description: "kernel run queues"})
	ix := testkit.NewSemantic(reg)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	ix.AddNote(1, "gc.md", "GC", "# Tracing\nMark and sweep.\n\n# Pauses\nStop the world.\n", now, time.Time{})
	ix.AddNote(2, "tok.md", "Tokens", "Split on spaces.\n", now, time.Time{})
	e := &counting{}
	s := semantic.New(ix, e, decay.DefaultConfig(), nil)
	s.Now = func() time.Time { return now }
	return s, reg, ix, e
}

// TestFindSimilarOnFake ranks concepts by their embeddings over the fake
// index, and embeds each concept's text once: a second query embeds
// nothing, a new concept only itself.
func TestFindSimilarOnFake(t *testing.T) {
	ctx := context.Background()
	s, reg, _, e := fakeSemantic()
	similar := func(q string) *semantic.SimilarResult {
		t.Helper()
		res, err := s.FindSimilar(ctx, semantic.SimilarInput{Concept: q, Decay: new(bool)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := similar("garbage collection")
	if !res.Resolved || res.ConceptID != "c_gc" || len(res.Results) == 0 || res.Results[0].ID != "c_pause" {
		t.Fatalf("similar to garbage collection = %+v, want it resolved and the pauses nearest", res)
	}
	for _, r := range res.Results {
		if r.ID == "c_gc" {
			t.Errorf("the concept asked about is among its neighbours: %+v", r)
		}
	}
	embedded := e.texts.Load()
	if embedded != 4 {
		t.Errorf("the first query embedded %d texts, want the 4 concepts", embedded)
	}
	if res := similar("text into tokens"); res.Resolved || res.Results[0].ID != "c_tok" {
		t.Errorf("similar to free text = %+v, want it embedded and the tokenizer first", res)
	}
	if n := e.texts.Load() - embedded; n != 1 {
		t.Errorf("the second query embedded %d texts, want the query alone", n)
	}
	reg.Put(noema.Concept{ID: "c_lex", Label: "Lexer", Description: "splitting text into tokens and lexemes"})
	embedded = e.texts.Load()
	if res := similar("Tokenizer"); res.Results[0].ID != "c_lex" {
		t.Errorf("after adding Lexer, similar to Tokenizer = %+v, want Lexer first", res.Results)
	}
	if n := e.texts.Load() - embedded; n != 1 {
		t.Errorf("after adding a concept, %d texts were embedded, want the new one alone", n)
	}
}

// TestRefreshChunksOnFake cuts and embeds the notes' chunks into the fake
// index once: a second refresh finds nothing to do, a changed note is cut
// again and only its new text embedded.
func TestRefreshChunksOnFake(t *testing.T) {
	ctx := context.Background()
	s, _, ix, e := fakeSemantic()
	if err := s.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	total, embedded, err := ix.CountChunks(ctx, e.Name())
	if err != nil {
		t.Fatal(err)
	}
	if total < 2 || embedded != total {
		t.Fatalf("after a refresh, %d chunks of which %d embedded; want one or more a note, all embedded", total, embedded)
	}
	first := e.texts.Load()
	v1, _ := ix.SearchChunksVersion(ctx)
	if err := s.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	v2, _ := ix.SearchChunksVersion(ctx)
	if n := e.texts.Load(); n != first || v2 != v1 {
		t.Errorf("a second refresh embedded %d texts and stored chunks (version %d -> %d), want neither", n-first, v1, v2)
	}
	ix.AddNote(2, "tok.md", "Tokens", "Split on spaces and punctuation.\n", time.Now(), time.Time{})
	if err := s.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	if n := e.texts.Load() - first; n != 1 {
		t.Errorf("after editing a one-chunk note, %d texts were embedded, want 1", n)
	}
}

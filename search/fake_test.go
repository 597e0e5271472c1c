package search_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/internal/testkit"
	"github.com/noema-mem/noema/search"
	"github.com/noema-mem/noema/vault"
)

// fakeSearch is a search service over the in-memory search index: five
// notes, one the page of the concept Garbage Collection (alias GC), each
// embedded whole as one chunk by testkit.Words.
//
//	id  title               path                 age (days)  links
//	1   Garbage collection  runtime/gc.md        1           GC
//	2   Memory arenas       runtime/arenas.md    2
//	3   Weekly journal      journal/w1.md        400
//	4   Tokenizer           nlp/tokenizer.md     1
//	5   GC tuning           concepts/GC.md       3           (the page)
func fakeSearch(t *testing.T) (*search.Service, *testkit.Search) {
	t.Helper()
	ix := testkit.NewSearch(vault.Key)
	add := func(id int64, title, path string, age int, tags []string, body string, links ...string) {
		ix.AddNote(noema.SearchNote{ID: id, Path: path, Title: title, Modified: now.AddDate(0, 0, -age)}, tags, body, links...)
		vecs, err := testkit.Words{}.Embed(context.Background(), []string{title + "\n" + body})
		if err != nil {
			t.Fatal(err)
		}
		ix.SetChunks(id, testkit.Words{}, "h"+path, noema.ChunkVector{Start: 0, End: len(body), Vec: vecs[0]})
	}
	add(1, "Garbage collection", "runtime/gc.md", 1, []string{"runtime"}, "The garbage collector frees memory. Tracing garbage collection pauses the program.", "GC")
	add(2, "Memory arenas", "runtime/arenas.md", 2, []string{"runtime/alloc"}, "Arenas free memory in bulk without a collector.")
	add(3, "Weekly journal", "journal/w1.md", 400, nil, "Garbage day on Tuesday; collection of the recycling.")
	add(4, "Tokenizer", "nlp/tokenizer.md", 1, nil, "Splitting text into tokens.")
	add(5, "GC tuning", "concepts/GC.md", 3, nil, "Set GOGC to tune the collector.")
	ix.AddConcept("c_gc", "Garbage Collection", 5, "GC")
	s := search.New(ix, testkit.Words{}, decay.DefaultConfig())
	s.Now = func() time.Time { return now }
	return s, ix
}

func run(t *testing.T, s *search.Service, in search.Input) *search.Result {
	t.Helper()
	res, err := s.Search(context.Background(), in)
	if err != nil {
		t.Fatalf("search %+v: %v", in, err)
	}
	return res
}

// TestFulltextOnFake ranks full text over the fake index: the note with
// the words in its title and as a phrase first, the filters applied, an
// old note sinking under decay.
func TestFulltextOnFake(t *testing.T) {
	s, _ := fakeSearch(t)
	res := run(t, s, search.Input{Query: "garbage collection", Mode: search.ModeFulltext, Decay: off()})
	got := titles(res)
	if len(got) != 2 || got[0] != "Garbage collection" || !slices.Contains(got, "Weekly journal") {
		t.Fatalf("fulltext garbage collection = %q, want Garbage collection first, then the journal", got)
	}
	if h := res.Hits[0]; h.Ranks.Fulltext != 1 || !strings.Contains(h.Snippet, "«garbage»") {
		t.Errorf("first hit = %+v, want full-text rank 1 and the words marked", h)
	}
	if old := run(t, s, search.Input{Query: "collection", Mode: search.ModeFulltext}); titles(old)[len(old.Hits)-1] != "Weekly journal" || old.Hits[len(old.Hits)-1].Decay >= 0.01 {
		t.Errorf("with decay, collection = %q (%+v), want the 400-day journal last, nearly weightless", titles(old), old.Hits)
	}
	if got := titles(run(t, s, search.Input{Query: "garbage", Mode: search.ModeFulltext, Folder: "journal"})); !slices.Equal(got, []string{"Weekly journal"}) {
		t.Errorf("garbage in journal/ = %q, want the journal alone", got)
	}
	if got := titles(run(t, s, search.Input{Query: "memory", Mode: search.ModeFulltext, Tags: []string{"#Runtime"}})); !slices.Equal(got, []string{"Memory arenas", "Garbage collection"}) {
		t.Errorf("memory tagged runtime = %q, want the arenas (title) then garbage collection, runtime/alloc being under runtime", got)
	}
	if got := titles(run(t, s, search.Input{Query: "collect*", Mode: search.ModeFulltext, Decay: off()})); len(got) != 4 {
		t.Errorf("collect* = %q, want the four notes with a word starting collect", got)
	}
}

// TestConceptQueryOnFake answers [[X]] from the concept index: the notes
// linking the concept or its page, freshest first.
func TestConceptQueryOnFake(t *testing.T) {
	s, _ := fakeSearch(t)
	if got := titles(run(t, s, search.Input{Query: "[[gc]]"})); !slices.Equal(got, []string{"Garbage collection", "GC tuning"}) {
		t.Errorf("[[gc]] = %q, want the linking note, then the page", got)
	}
	if got := titles(run(t, s, search.Input{Query: "[[Garbage Collection]]", Folder: "concepts"})); !slices.Equal(got, []string{"GC tuning"}) {
		t.Errorf("[[Garbage Collection]] in concepts/ = %q, want the page alone", got)
	}
	res := run(t, s, search.Input{Query: "[[Tokenizer]]", Mode: search.ModeFulltext})
	if got := titles(res); !slices.Equal(got, []string{"Tokenizer"}) || len(res.Warnings) == 0 {
		t.Errorf("[[Tokenizer]] = %q (warnings %q), want its text searched with a warning that no concept has the name", got, res.Warnings)
	}
}

// TestSemanticOnFake ranks notes by their chunks' vectors: the nearest
// first, filters applied, and chunks stored after the first search found
// by the next.
func TestSemanticOnFake(t *testing.T) {
	s, ix := fakeSearch(t)
	res := run(t, s, search.Input{Query: "Tokenizer: splitting text into tokens", Mode: search.ModeSemantic, Decay: off()})
	if len(res.Hits) == 0 || res.Hits[0].Title != "Tokenizer" || res.Hits[0].Score < 0.99 || res.Hits[0].Ranks.Semantic != 1 {
		t.Fatalf("semantic = %+v, want Tokenizer first with cosine 1", res.Hits)
	}
	for _, h := range run(t, s, search.Input{Query: "splitting text into tokens", Mode: search.ModeSemantic, Folder: "runtime"}).Hits {
		if !strings.HasPrefix(h.URI, "memory://runtime/") {
			t.Errorf("semantic in runtime/ returned %s", h.URI)
		}
	}
	ix.AddNote(noema.SearchNote{ID: 6, Path: "nlp/lexer.md", Title: "Lexer", Modified: now}, nil, "A lexer emits lexemes.")
	vecs, _ := testkit.Words{}.Embed(context.Background(), []string{"lexer lexemes lexer"})
	ix.SetChunks(6, testkit.Words{}, "h6", noema.ChunkVector{End: 22, Vec: vecs[0]})
	if got := titles(run(t, s, search.Input{Query: "lexer lexemes lexer", Mode: search.ModeSemantic})); len(got) == 0 || got[0] != "Lexer" {
		t.Errorf("after embedding a new note, semantic = %q, want Lexer first", got)
	}
}

// TestHybridOnFake fuses full text, the chunk vectors and the concept
// list over the fake: the note found by all three leads, and the concept's
// page, which holds neither query word, is lifted in by the concept list.
func TestHybridOnFake(t *testing.T) {
	s, _ := fakeSearch(t)
	res := run(t, s, search.Input{Query: "garbage collection", Decay: off()})
	got := titles(res)
	if len(got) == 0 || got[0] != "Garbage collection" || res.Hits[0].Ranks.Fulltext != 1 || res.Hits[0].Ranks.Semantic == 0 {
		t.Fatalf("hybrid garbage collection = %q (%+v), want Garbage collection first, found by full text and vectors", got, res.Hits)
	}
	if !slices.Contains(got, "GC tuning") {
		t.Errorf("hybrid garbage collection = %q, want the concept's page lifted in", got)
	}
	if slices.Contains(got, "Tokenizer") {
		t.Errorf("hybrid garbage collection = %q, want no tokenizer", got)
	}
}

package search_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/search"
)

// heldVectors is an index whose chunk vectors load only once release is
// closed; started is closed when the load begins.
type heldVectors struct {
	noema.SearchIndex
	started, release chan struct{}
}

func (h *heldVectors) SearchChunkVectors(ctx context.Context, model string, ids []int64, fn func(noema.ChunkVector)) error {
	close(h.started)
	<-h.release
	return h.SearchIndex.SearchChunkVectors(ctx, model, ids, fn)
}

// TestWarmDoesNotHoldHybridSearches: from Warming on, while its load has
// not begun and while it loads the note vectors, a hybrid search answers
// at once without them and says so; a semantic
// search waits for them; once they are loaded, hybrid searches use them.
func TestWarmDoesNotHoldHybridSearches(t *testing.T) {
	e := newEnv(t)
	e.note("", "Cats", "", nil, "Felines purr and nap in the sun.")
	e.note("", "Databases", "", nil, "Relational databases use indexes.")
	e.embed()
	held := &heldVectors{SearchIndex: e.a.DB.Search(), started: make(chan struct{}), release: make(chan struct{})}
	svc := search.New(held, e.svc.Embedder, e.svc.Decay)
	svc.Now = e.svc.Now
	ctx := context.Background()
	type answer struct {
		res *search.Result
		err error
	}
	// From Warming on, before its load has even begun (a server's first
	// request may come first), a hybrid search does not wait.
	load := svc.Warming()
	res, err := svc.Search(ctx, search.Input{Query: "relatonal databse"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Warnings, search.VectorsLoading) || len(res.Hits) != 0 {
		t.Errorf("hybrid before the load began: %v, warnings %q; want no hits and the loading warning", titles(res), res.Warnings)
	}
	warmed := make(chan error, 1)
	go func() { warmed <- load(ctx) }()
	<-held.started

	// "relatonal databse" (typos): no full-text hit, so hybrid asks the semantic list.
	hybrid := make(chan answer, 1)
	go func() {
		res, err := svc.Search(ctx, search.Input{Query: "relatonal databse"})
		hybrid <- answer{res, err}
	}()
	select {
	case a := <-hybrid:
		if a.err != nil {
			t.Fatal(a.err)
		}
		if !slices.Contains(a.res.Warnings, search.VectorsLoading) || len(a.res.Hits) != 0 {
			t.Errorf("hybrid while loading: %v, warnings %q; want no hits and the loading warning", titles(a.res), a.res.Warnings)
		}
	case <-time.After(30 * time.Second):
		close(held.release)
		t.Fatal("a hybrid search waited for the note vectors to load")
	}

	semantic := make(chan answer, 1)
	go func() {
		res, err := svc.Search(ctx, search.Input{Query: "relatonal databse", Mode: "semantic"})
		semantic <- answer{res, err}
	}()
	select {
	case a := <-semantic:
		t.Fatalf("a semantic search answered before the vectors loaded: %v %v", a.res, a.err)
	case <-time.After(100 * time.Millisecond):
	}
	close(held.release)
	if err := <-warmed; err != nil {
		t.Fatal(err)
	}
	a := <-semantic
	if a.err != nil || len(a.res.Hits) == 0 || a.res.Hits[0].Title != "Databases" {
		t.Fatalf("semantic after the load: %+v %v", a.res, a.err)
	}
	res, err = svc.Search(ctx, search.Input{Query: "relatonal databse"})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(res.Warnings, search.VectorsLoading) || len(res.Hits) == 0 || res.Hits[0].Title != "Databases" {
		t.Errorf("hybrid after the load: %v, warnings %q", titles(res), res.Warnings)
	}
}

package search_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/search"
)

// countedVectors is an index that counts the notes whose chunk vectors
// are read from it.
type countedVectors struct {
	noema.SearchIndex
	mu    sync.Mutex
	notes int
}

func (c *countedVectors) SearchChunkVectors(ctx context.Context, model string, ids []int64, fn func(noema.ChunkVector)) error {
	c.mu.Lock()
	c.notes += len(ids)
	c.mu.Unlock()
	return c.SearchIndex.SearchChunkVectors(ctx, model, ids, fn)
}

// IndexID passes the index's identity on (the wrapper hides it otherwise).
func (c *countedVectors) IndexID(ctx context.Context) (string, error) {
	return c.SearchIndex.(noema.IndexIdentity).IndexID(ctx)
}

func (c *countedVectors) read() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.notes
}

// TestVectorsSnapshotIsTheIndex: a process that starts from the chunk
// vectors snapshot reads from the index only the notes that changed since
// it was written, and every semantic and hybrid search then answers
// exactly what a process that read every vector from the index answers —
// after notes were added, rewritten and deleted; a damaged snapshot, or
// one of another index, is read as absent (every note from the index) and
// written anew.
func TestVectorsSnapshotIsTheIndex(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	topics := []string{"relational databases and their indexes", "cats that purr in the sun", "goroutines and channels in Go",
		"the French revolution of 1789", "sourdough bread and its starter", "orbital mechanics of satellites"}
	for i := range 60 {
		body := ""
		for h := range 3 { // several chunks a note
			body += fmt.Sprintf("## Part %d\n\nNote %d on %s, part %d: %s.\n\n", h, i, topics[(i+h)%len(topics)], h, topics[(i*7+h)%len(topics)])
		}
		e.note("", fmt.Sprintf("Note %d", i), "", nil, body)
	}
	e.embed()
	file := filepath.Join(t.TempDir(), "chunk-vectors.snap")
	// warm starts a process of build that warms up (reading the snapshot
	// if it may) and returns it with the index it reads through.
	warm := func(build string) (*search.Service, *countedVectors) {
		idx := &countedVectors{SearchIndex: e.a.DB.Search()}
		svc := search.New(idx, e.svc.Embedder, e.svc.Decay)
		svc.Now, svc.VectorsFile = e.svc.Now, file
		search.SetSnapshotMinChunks(svc, 10)
		search.SetBuild(svc, build)
		if err := svc.Warm(ctx); err != nil {
			t.Fatal(err)
		}
		return svc, idx
	}
	queries := []string{"database index", "purring cats", "go channels", "revolution", "bread starter", "satellite orbit", "part 2"}
	same := func(label string, got *search.Service) {
		t.Helper()
		want := search.New(e.a.DB.Search(), e.svc.Embedder, e.svc.Decay) // no snapshot: every vector from the index
		want.Now = e.svc.Now
		for _, q := range queries {
			for _, mode := range []string{"semantic", "hybrid"} {
				a, err := got.Search(ctx, search.Input{Query: q, Mode: mode, Limit: 20})
				if err != nil {
					t.Fatal(err)
				}
				b, err := want.Search(ctx, search.Input{Query: q, Mode: mode, Limit: 20})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(a.Hits, b.Hits) {
					t.Fatalf("%s: %s %q: from the snapshot %v, from the index %v", label, mode, q, titles(a), titles(b))
				}
			}
		}
	}

	// No snapshot yet: the warm-up reads every note and writes one.
	first, idx := warm("build A")
	if n := idx.read(); n != 60 {
		t.Fatalf("the first load read %d notes from the index, want 60", n)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("no snapshot after the first load: %v", err)
	}
	same("written", first)

	// Another process, nothing changed: nothing read from the index, and
	// nothing written (the snapshot is current).
	before, _ := os.Stat(file)
	second, idx := warm("build A")
	if n := idx.read(); n != 0 {
		t.Fatalf("a start from a current snapshot read %d notes from the index, want 0", n)
	}
	if after, _ := os.Stat(file); !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("a current snapshot was written again")
	}
	same("current", second)

	// Notes added, rewritten and deleted since: only those are read.
	for i := range 3 {
		e.note("", fmt.Sprintf("Added %d", i), "", nil, "## New\n\nFresh words about "+topics[i]+".\n")
	}
	for _, i := range []int{4, 9} {
		if _, err := e.a.Notes.Write(ctx, notes.WriteInput{Title: fmt.Sprintf("Note %d", i), Overwrite: true, Content: "## Rewritten\n\nNow about " + topics[5] + " only.\n"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range []int{1, 2} {
		if _, err := e.a.Notes.Delete(ctx, fmt.Sprintf("Note %d", i), true); err != nil {
			t.Fatal(err)
		}
	}
	e.embed()
	third, idx := warm("build A")
	if n := idx.read(); n != 5 {
		t.Fatalf("a start from a stale snapshot read %d notes from the index, want the 5 added or rewritten", n)
	}
	same("stale", third)

	// Damaged: read as absent, every note read, the snapshot written anew.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{0, len(data) / 3, len(data) / 2, len(data) - 1} {
		bad := append([]byte(nil), data...)
		bad[at] ^= 0x40
		if err := os.WriteFile(file, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		damaged, idx := warm("build A")
		if n := idx.read(); n != 61 {
			t.Fatalf("byte %d damaged: %d notes read from the index, want all 61", at, n)
		}
		same(fmt.Sprintf("damaged at %d", at), damaged)
		if again, err := os.ReadFile(file); err != nil || len(again) == 0 || string(again) == string(bad) {
			t.Fatalf("byte %d damaged: the snapshot was not written anew (%v)", at, err)
		}
	}
	// Cut short.
	if err := os.WriteFile(file, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	short, idx := warm("build A")
	if n := idx.read(); n != 61 {
		t.Fatalf("a snapshot cut short: %d notes read from the index, want all 61", n)
	}
	same("cut short", short)

	// Another build whose arithmetic is this one's (an upgrade that
	// changed nothing in it): its sample matches, the snapshot is used.
	upgraded, idx := warm("build B")
	if n := idx.read(); n != 61 {
		t.Fatalf("another build of the same arithmetic read %d notes from the index, want its sample only (all 61 of them here)", n)
	}
	same("another build", upgraded)

	// A snapshot whose rows are not what Set makes of the index's vectors,
	// as another build's arithmetic would write it: that build ("A") trusts
	// its own file, another ("B") finds its sample differ and reads
	// everything from the index.
	perturbed, _ := warm("build A")
	search.PerturbVectors(perturbed)
	if err := perturbed.SaveVectors(ctx); err != nil {
		t.Fatal(err)
	}
	other, idx := warm("build B")
	if n := idx.read(); n != 61+61 {
		t.Fatalf("a snapshot of other arithmetic: %d notes read from the index, want its sample (all 61) and then all 61", n)
	}
	same("other arithmetic", other)
}

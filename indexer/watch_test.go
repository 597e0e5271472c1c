package indexer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/internal/treetest"
)

// TestWatcherFolderChangesAreLocal checks that folder changes seen by the
// watcher are indexed by what they touch, not by a walk of the whole vault
// (Scanned counts the files a full Sync walked), and that the index is then
// exactly what a full Sync makes of the folder: the Sync that follows each
// step finds nothing to change.
func TestWatcherFolderChangesAreLocal(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(root, rel, text string) { treetest.Write(t, root, rel, text) }
	for i := range 40 {
		write(dir, fmt.Sprintf("base/n%02d.md", i), fmt.Sprintf("[[Base %d]] [[Shared]]\n", i))
	}
	ix := open(t, dir)
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		scanned int
	)
	synced := make(chan struct{}, 64)
	go ix.Watch(ctx, 20*time.Millisecond, func(res *indexer.Result, err error) {
		if err != nil {
			t.Errorf("watcher sync: %v", err)
		}
		if res != nil {
			mu.Lock()
			scanned += res.Scanned
			mu.Unlock()
		}
		synced <- struct{}{}
	})
	time.Sleep(100 * time.Millisecond) // let the watcher register its folders

	indexed := func() []string {
		_, notes, err := ix.DB.Notes().ListNotes(ctx, noema.NoteQuery{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, n := range notes {
			paths = append(paths, n.Path)
		}
		return paths
	}
	// settle waits until the index holds want (and not gone), then checks
	// that a full Sync has nothing left to do.
	settle := func(step string, want, gone []string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			have := indexed()
			ok := true
			for _, p := range want {
				ok = ok && slices.Contains(have, p)
			}
			for _, p := range gone {
				ok = ok && !slices.Contains(have, p)
			}
			if ok {
				break
			}
			select {
			case <-synced:
			case <-time.After(100 * time.Millisecond):
			case <-deadline:
				t.Fatalf("%s: the watcher did not index it: have %v, want %v, gone %v", step, have, want, gone)
			}
		}
		time.Sleep(60 * time.Millisecond) // any sync still debouncing
		mu.Lock()
		if scanned != 0 {
			t.Errorf("%s: the watcher walked the whole vault (%d files scanned)", step, scanned)
		}
		scanned = 0
		mu.Unlock()
		res, err := ix.Sync(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Changed() {
			t.Errorf("%s: a full sync after the watcher still changed the index: %+v", step, res)
		}
	}

	// A folder made here, a note written in it at once, a folder below it.
	write(dir, "fresh/a.md", "[[Fresh]]\n")
	write(dir, "fresh/deep/b.md", "[[Fresh]] [[Deep]]\n")
	settle("new folder", []string{"fresh/a.md", "fresh/deep/b.md"}, nil)

	// A folder with notes (and a folder below) moved in from outside.
	write(outside, "moved/c.md", "[[Moved]]\n")
	write(outside, "moved/sub/d.md", "[[Moved]] [[Sub]]\n")
	write(outside, "moved/.hidden/e.md", "[[Hidden]]\n")
	write(outside, "moved/notes.txt", "not a note\n")
	if err := os.Rename(filepath.Join(outside, "moved"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	settle("folder moved in", []string{"moved/c.md", "moved/sub/d.md"}, []string{"moved/.hidden/e.md"})

	// A folder renamed inside the vault: its notes move with it.
	if err := os.Rename(filepath.Join(dir, "moved"), filepath.Join(dir, "renamed")); err != nil {
		t.Fatal(err)
	}
	settle("folder renamed", []string{"renamed/c.md", "renamed/sub/d.md"}, []string{"moved/c.md", "moved/sub/d.md"})

	// A folder moved out of the vault, another deleted: their notes go.
	if err := os.Rename(filepath.Join(dir, "renamed"), filepath.Join(outside, "away")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "fresh")); err != nil {
		t.Fatal(err)
	}
	settle("folders moved out and deleted", nil, []string{"renamed/c.md", "renamed/sub/d.md", "fresh/a.md", "fresh/deep/b.md"})

	// A name that shares a prefix with a folder is not inside it.
	write(dir, "base2.md", "[[Base two]]\n")
	settle("file beside", []string{"base2.md", "base/n00.md"}, nil)
	if err := os.Remove(filepath.Join(dir, "base2.md")); err != nil {
		t.Fatal(err)
	}
	settle("file beside removed", []string{"base/n00.md", "base/n39.md"}, []string{"base2.md"})
}

// TestWatcherLinkedNoteInNewFolder: a folder moved in with a symbolically
// linked note is left to a full Sync, whose rules say which links count.
func TestWatcherLinkedNoteInNewFolder(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "target.md"), []byte("[[Target]]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := open(t, dir)
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	results := make(chan *indexer.Result, 16)
	go ix.Watch(ctx, 20*time.Millisecond, func(res *indexer.Result, err error) {
		if err == nil {
			results <- res
		}
	})
	time.Sleep(100 * time.Millisecond)
	if err := os.Mkdir(filepath.Join(outside, "linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "target.md"), filepath.Join(outside, "linked", "alias.md")); err != nil {
		t.Skip("symbolic links:", err)
	}
	if err := os.Rename(filepath.Join(outside, "linked"), filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-results:
		if res.Scanned == 0 {
			t.Errorf("a folder with a linked note was not left to a full sync: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not sync")
	}
}

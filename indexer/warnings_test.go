package indexer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/internal/treetest"
)

// TestWarningsAcrossFilesFollowWrites: a sync that changes nothing reports
// the shared titles and dangling relations of the index as it is, also
// when a writer (SyncPaths) changed the index since the last sync — the
// warnings a sync may keep from the last one are those of an unchanged
// index only.
func TestWarningsAcrossFilesFollowWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	treetest.Write(t, dir, "b/Plan.md", "first plan\n")
	treetest.Write(t, dir, "r.md", "---\nrelations:\n  - type: needs\n    to: Ghost\n---\nbody\n")
	ix := open(t, dir)
	// Past the racy window, so that the next syncs read nothing again.
	time.Sleep(indexer.RacyWindow + 100*time.Millisecond)
	render := func(res *indexer.Result) string {
		s := ""
		for _, w := range res.Warnings {
			s += fmt.Sprintf("%s %s %s\n", w.Path, w.Code, w.Message)
		}
		return s
	}
	sync := func(wantUnchanged int) string {
		t.Helper()
		res, err := ix.Sync(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if wantUnchanged >= 0 && (res.Unchanged != wantUnchanged || res.Changed()) {
			t.Fatalf("sync: %+v, want %d unchanged and nothing else", res, wantUnchanged)
		}
		return render(res)
	}
	first := sync(-1)
	if first == "" {
		t.Fatal("no dangling relation reported")
	}
	if again := sync(2); again != first {
		t.Fatalf("a sync that changed nothing reports\n%s\nthe last one reported\n%s", again, first)
	}
	// A writer indexes a second Plan and the Ghost concept; the next sync
	// walks no change, but the index did change.
	treetest.Write(t, dir, "a/Plan.md", "second plan, about [[Ghost]]\n")
	time.Sleep(indexer.RacyWindow + 100*time.Millisecond)
	if _, err := ix.SyncPaths(ctx, []string{"a/Plan.md"}, ""); err != nil {
		t.Fatal(err)
	}
	got := sync(3)
	want := "a/Plan.md duplicate_title 2 notes have this title: a/Plan.md, b/Plan.md; the title and [[links]] to it mean a/Plan.md (the first by path); rename or merge the others\n"
	if got != want {
		t.Fatalf("after a write, a sync that changed nothing reports\n%s\nwant\n%s", got, want)
	}
	if again := sync(3); again != want {
		t.Fatalf("the sync after reports\n%s\nwant\n%s", again, want)
	}
	// And after a writer removes a Plan, its warning goes.
	if err := os.Remove(filepath.Join(dir, "a/Plan.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.SyncPaths(ctx, []string{"a/Plan.md"}, ""); err != nil {
		t.Fatal(err)
	}
	if got := sync(2); got != first {
		t.Fatalf("after the removal a sync reports\n%s\nwant\n%s", got, first)
	}
}

package indexer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/internal/treetest"
)

// TestSyncAfterAnotherProcessIndexed: while a sync runs, another process
// indexes a file the sync saw as new (as a writer or a server's watcher
// does). The sync must not fail on the row that now exists.
func TestSyncAfterAnotherProcessIndexed(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	for _, n := range []string{"a.md", "b.md"} {
		treetest.Write(t, dir, n, "about [["+n+" concept]]\n")
	}
	ix := open(t, dir)
	other := open(t, dir)
	ix.SetBatch(1)
	once := false
	ix.SetAfterCommit(func(point string) error {
		if point == "notes" && !once {
			once = true
			if _, err := other.SyncPaths(ctx, []string{"b.md"}, ""); err != nil {
				t.Errorf("other process: %v", err)
			}
		}
		return nil
	})
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatalf("sync failed after another process indexed a file: %v", err)
	}
	if got := indexedMentions(t, ix); len(got) != 2 {
		t.Errorf("mentions = %v", got)
	}
}

// TestSyncKeepsNoteIndexedAfterItsWalk: a note created after sync's walk
// and indexed by its writer before sync finishes stays indexed.
func TestSyncKeepsNoteIndexedAfterItsWalk(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	treetest.Write(t, dir, "old.md", "old\n")
	ix := open(t, dir)
	other := open(t, dir)
	ix.SetAfterWalk(func() {
		if err := os.WriteFile(filepath.Join(dir, "new.md"), []byte("new [[Fresh]]\n"), 0o644); err != nil {
			t.Error(err)
		}
		if _, err := other.SyncPaths(ctx, []string{"new.md"}, ""); err != nil {
			t.Error(err)
		}
	})
	res, err := ix.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 0 {
		t.Errorf("sync removed %d notes", res.Removed)
	}
	var n int
	if err := ix.DB.Read().QueryRow(`SELECT COUNT(*) FROM notes WHERE path = 'new.md'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("new.md indexed %d times (%v): dropped by the sync", n, err)
	}
}

// TestReindexKeepsIndexReadable: while a reindex runs, and after one is
// killed at any of its commits, readers see every note and concept.
func TestReindexKeepsIndexReadable(t *testing.T) {
	ctx := context.Background()
	dir, m := generate(t, 30)
	syncOnce(t, dir)
	want := expected(m)
	for k := 1; ; k++ {
		ix := open(t, dir)
		ix.SetBatch(4)
		reader := open(t, dir)
		calls := 0
		ix.SetAfterCommit(func(point string) error {
			calls++
			// What a reader in another process sees at this commit.
			var notes int
			if err := reader.DB.Read().QueryRow(`SELECT COUNT(*) FROM notes`).Scan(&notes); err != nil {
				t.Fatal(err)
			}
			if notes != len(m.Notes) {
				t.Errorf("commit %d (%s): a reader sees %d notes, want %d", calls, point, notes, len(m.Notes))
			}
			if calls == k {
				return errKilled
			}
			return nil
		})
		_, err := ix.Reindex(ctx, nil)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), errKilled.Error()) {
			t.Fatal(err)
		}
		ix.DB.Close()
		// Opening the index after the kill: a complete registry at once.
		after := open(t, dir)
		if _, err := after.Repair(ctx); err != nil {
			t.Fatal(err)
		}
		diffCounts(t, indexedMentions(t, after), want)
		if t.Failed() {
			t.Fatalf("killed after commit %d", k)
		}
		after.DB.Close()
		reader.DB.Close()
	}
}

// TestSyncCountsNoteIndexedMeanwhileUnchanged checks issue 21's "writes
// cost what they change" for a server's watcher: a note written and
// indexed by its writer after the sync read the index's states (a
// write_note while the watcher's sync walks) is found current in the
// sync's transaction and counted unchanged, so the sync reports no change
// and does not recompute the whole concept registry for it.
func TestSyncCountsNoteIndexedMeanwhileUnchanged(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	treetest.Write(t, dir, "old.md", "[[Old]]\n")
	ix := open(t, dir)
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	other := open(t, dir)
	// Written before the walk (the walk sees it), indexed by its writer
	// after the states were read.
	treetest.Write(t, dir, "new.md", "[[New]] and [[Old]]\n")
	ix.SetAfterWalk(func() {
		if _, err := other.SyncPaths(ctx, []string{"new.md"}, ""); err != nil {
			t.Errorf("writer: %v", err)
		}
	})
	res, err := ix.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed() || res.Added != 0 || res.Unchanged != 2 {
		t.Errorf("sync after the writer indexed new.md: %+v; want no change, 2 unchanged", res)
	}
	if got := indexedMentions(t, ix); got["new"] != 1 || got["old"] != 2 {
		t.Errorf("mentions = %v, want new 1, old 2", got)
	}
}

// TestSyncPathsStaleRead: two indexings of one path at once (a server's
// own write and the store's change it brings in) — the one that read the
// older file commits last. The index must hold the newer file, as a
// fresh reindex would (the team soak saw it hold the older one).
func TestSyncPathsStaleRead(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	treetest.Write(t, dir, "n.md", "older [[Old]]\n")
	ix := open(t, dir)
	other := open(t, dir)
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	once := false
	ix.SetBeforePathsWrite(func() {
		if once {
			return
		}
		once = true
		// After ix read the older file: a writer changes it and indexes it.
		treetest.Write(t, dir, "n.md", "newer [[New]]\n")
		if _, err := other.SyncPaths(ctx, []string{"n.md"}, ""); err != nil {
			t.Error(err)
		}
	})
	if _, err := ix.SyncPaths(ctx, []string{"n.md"}, ""); err != nil {
		t.Fatal(err)
	}
	if got := indexedMentions(t, ix); len(got) != 1 || got["new"] != 1 {
		t.Errorf("mentions after both indexed n.md: %v, want the newer file's [[New]] only", got)
	}
}

// TestSyncPathsChangedAtEveryRead: the file changes (and its writer
// indexes it) between every read SyncPaths makes and its transaction, more
// often than SyncPaths reads again outside the lock. The index must still
// hold the newest file: SyncPaths' last attempt reads the changed file
// under the lock instead of committing what it read (which the writer's
// own, earlier commit had already replaced).
func TestSyncPathsChangedAtEveryRead(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	treetest.Write(t, dir, "n.md", "version 0 [[V0]]\n")
	ix := open(t, dir)
	other := open(t, dir)
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	v := 0
	ix.SetBeforePathsWrite(func() {
		v++
		treetest.Write(t, dir, "n.md", fmt.Sprintf("version %d [[V%d]]\n", v, v))
		if _, err := other.SyncPaths(ctx, []string{"n.md"}, ""); err != nil {
			t.Error(err)
		}
	})
	if _, err := ix.SyncPaths(ctx, []string{"n.md"}, ""); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("v%d", v)
	if got := indexedMentions(t, ix); len(got) != 1 || got[want] != 1 {
		t.Errorf("mentions after %d changes during the sync: %v, want the newest file's [[%s]] only", v, got, want)
	}
}

package indexer_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/internal/noematest"
)

// TestSnapshotSyncFindsEveryChange: a sync that reads the note states
// from the snapshot the last one saved (with the notes changed since read
// again) finds every change to the files, each alone: an mtime, a size
// with the mtime put back, an inode (a rename over the note with its
// mtime put back), a deletion, a new note, a rename, and a write through
// the index between two syncs. After each the indexed state of every
// note is its file's.
func TestSnapshotSyncFindsEveryChange(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no ctime or inode on Windows")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	write := func(rel, content string, mtime time.Time) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{"a.md", "b.md", "c.md", "sub/d.md", "sub/e.md", "sub/f.md"} {
		write(rel, "About [[Alpha]] in "+rel+".\n", old)
	}
	ix := open(t, dir)
	var fromSnapshot []bool
	ix.SetStatesRead(func(s bool) { fromSnapshot = append(fromSnapshot, s) })
	sync := func(name string) *indexer.Result {
		t.Helper()
		res, err := ix.Sync(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(fromSnapshot); n > 1 && !fromSnapshot[n-1] {
			t.Errorf("%s: the sync read every note row, not the snapshot", name)
		}
		// Every note's indexed state is its file's.
		rows, err := ix.DB.Read().Query(`SELECT path, size, mtime_ns, ctime_ns, inode FROM notes`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var path string
			var size, mtime, ctime, inode int64
			if err := rows.Scan(&path, &size, &mtime, &ctime, &inode); err != nil {
				t.Fatal(err)
			}
			n++
			info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(path)))
			if err != nil {
				t.Errorf("%s: %s indexed, not on disk: %v", name, path, err)
				continue
			}
			st := info.Sys().(*syscall.Stat_t)
			if size != info.Size() || mtime != info.ModTime().UnixNano() || ctime != st.Ctim.Nano() || inode != int64(st.Ino) {
				t.Errorf("%s: %s indexed as size %d mtime %d ctime %d inode %d; the file has %d %d %d %d", name, path,
					size, mtime, ctime, inode, info.Size(), info.ModTime().UnixNano(), st.Ctim.Nano(), st.Ino)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if n != res.Scanned {
			t.Errorf("%s: %d notes indexed, %d files", name, n, res.Scanned)
		}
		return res
	}
	if res := sync("cold"); res.Added != 6 {
		t.Fatalf("cold sync = %+v", res)
	}
	time.Sleep(indexer.RacyWindow) // the files were read within the window: read again once
	sync("re-read")
	if res := sync("no-op"); res.Changed() || res.Unchanged != 6 {
		t.Errorf("no-op sync = %+v", res)
	}
	later := old.Add(time.Minute)
	for _, c := range []struct {
		name   string
		change func()
		check  func(*indexer.Result) bool
	}{
		// The note takes its times from the file (no front matter): a
		// rebuild would hold the new mtime, so the sync writes it.
		{"mtime only", func() { write("a.md", "About [[Alpha]] in a.md.\n", later) },
			func(r *indexer.Result) bool { return r.Updated == 1 }},
		{"size, mtime put back", func() { write("b.md", "About [[Beta]] in b.md, longer.\n", old) },
			func(r *indexer.Result) bool { return r.Updated == 1 }},
		{"inode, mtime put back", func() {
			write("sub/.d.tmp", "About [[Gamma]] in sub/d.md\n", old)
			if err := os.Rename(filepath.Join(dir, "sub/.d.tmp"), filepath.Join(dir, "sub/d.md")); err != nil {
				t.Fatal(err)
			}
		}, func(r *indexer.Result) bool { return r.Updated == 1 }},
		{"deleted", func() {
			if err := os.Remove(filepath.Join(dir, "c.md")); err != nil {
				t.Fatal(err)
			}
		}, func(r *indexer.Result) bool { return r.Removed == 1 && r.Added == 0 }},
		{"new", func() { write("sub/g.md", "About [[Delta]].\n", old) },
			func(r *indexer.Result) bool { return r.Added == 1 }},
		{"renamed", func() {
			if err := os.Rename(filepath.Join(dir, "sub/e.md"), filepath.Join(dir, "h.md")); err != nil {
				t.Fatal(err)
			}
		}, func(r *indexer.Result) bool { return r.Renamed == 1 && r.Removed == 0 }},
		{"written through the index between syncs", func() {
			write("sub/f.md", "About [[Epsilon]].\n", old)
			if err := ix.SyncWritten(ctx, []string{"sub/f.md"}, ""); err != nil {
				t.Fatal(err)
			}
			write("sub/f.md", "About [[Zeta]], again.\n", old)
		}, func(r *indexer.Result) bool { return r.Updated == 1 }},
	} {
		c.change()
		if res := sync(c.name); !c.check(res) {
			t.Errorf("%s: sync = %+v", c.name, res)
		}
		// The changed file is read again (its ctime is within RacyWindow
		// of its reading) and found the same.
		if res := sync(c.name + ", then a no-op"); res.Changed() {
			t.Errorf("%s, then a no-op: sync = %+v", c.name, res)
		}
	}
	if got := indexedMentions(t, ix); got["zeta"] != 1 || got["epsilon"] != 0 || got["gamma"] != 1 || got["beta"] != 1 {
		t.Errorf("mentions = %v", got)
	}
}

// TestSyncTimesFollowTheFile: a file rewritten with new content, indexed
// by another process (a server's watcher), then given its old mtime back
// (as an editor's `touch -r` or `cp -p` does): the next sync finds the
// content already indexed, and the note's times must still become the
// file's, as a rebuilt index's would (the soak's checkpoint found a note
// whose modified time was the in-between mtime).
func TestSyncTimesFollowTheFile(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "d.md")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	between := old.Add(30 * time.Minute)
	write := func(content string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	times := func(ix *indexer.Indexer) (created, modified int64) {
		t.Helper()
		if err := ix.DB.Read().QueryRow(`SELECT created_ns, modified_ns FROM notes WHERE path = 'd.md'`).Scan(&created, &modified); err != nil {
			t.Fatal(err)
		}
		return created, modified
	}
	write("# D\nstate: A, about [[Alpha]]\n", old)
	ix, watcher := open(t, dir), open(t, dir)
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	write("# D\nstate: B, about [[Alpha]]\n", between)
	if _, err := watcher.SyncPaths(ctx, []string{"d.md"}, ""); err != nil {
		t.Fatal(err)
	}
	if _, m := times(ix); m != between.UnixNano() {
		t.Fatalf("the watcher indexed modified %d, want %d", m, between.UnixNano())
	}
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Updated != 1 || res.Unchanged != 0 {
		t.Errorf("sync after the mtime was put back = %+v; want 1 updated", res)
	}
	// An index built from scratch over the same file.
	copyDir := filepath.Join(t.TempDir(), "copy")
	if err := os.MkdirAll(copyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(copyDir, "d.md")
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(cp, old, old); err != nil {
		t.Fatal(err)
	}
	rebuilt := open(t, copyDir)
	if _, err := rebuilt.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	const q = `SELECT 'note', path, created_ns, modified_ns FROM notes UNION ALL
		SELECT 'concept', key, created_ns, updated_ns FROM concepts ORDER BY 1, 2`
	if got, want := noematest.Rows(t, ix.DB.Read(), q), noematest.Rows(t, rebuilt.DB.Read(), q); got != want {
		t.Errorf("times after the sync:\n%s\nin an index built from scratch:\n%s", got, want)
	}
	if _, m := times(ix); m != old.UnixNano() {
		t.Errorf("modified %d, want the file's mtime %d", m, old.UnixNano())
	}
}

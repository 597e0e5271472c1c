package indexer_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestSameSizeRewriteKeepingMtime: a rewrite of the same size that puts the
// old mtime back (touch -r, cp -p, rsync -t) is re-indexed.
func TestSameSizeRewriteKeepingMtime(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no ctime or inode on Windows: the racy-clean rule alone applies")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	p := filepath.Join(dir, "n.md")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.WriteFile(p, []byte("About [[Alpha]].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	ix := open(t, dir)
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, content, concept string }{
		{"in place (cp -p)", "About [[Omega]].\n", "omega"},
		{"replaced by rename (rsync -t)", "About [[Sigma]].\n", "sigma"},
	} {
		if strings.Contains(tc.name, "rename") {
			tmp := filepath.Join(dir, ".n.md.rsync")
			if err := os.WriteFile(tmp, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(tmp, old, old); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		} else {
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
		res, err := ix.Sync(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Updated != 1 {
			t.Errorf("%s: sync = %+v, want the file re-indexed", tc.name, res)
		}
		if got := indexedMentions(t, ix); got[tc.concept] != 1 {
			t.Errorf("%s: mentions = %v", tc.name, got)
		}
	}
}

// TestSyncRemovesStaleTemps: a temporary file left by a killed writer is
// removed by the next sync once it is old enough; a fresh one is kept.
func TestSyncRemovesStaleTemps(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "sub", ".note.md.tmp-999999999-0123456789abcdef")
	fresh := filepath.Join(dir, ".other.md.tmp-999999999-fedcba9876543210")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	ix := open(t, dir)
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temp file kept: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh temp file removed: %v", err)
	}
}

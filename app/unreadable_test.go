package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/indexer"
)

// unreadableCase is a vault with a folder that becomes unreadable after a
// first sync; make makes it so and returns the folder's vault path, or
// skips the test.
type unreadableCase struct {
	name string
	// folder is the vault path of the folder made unreadable.
	folder func(t *testing.T) string
	// make makes the vault at root (whose app is closed) unreadable there
	// and returns where the vault is now.
	make func(t *testing.T, root, folder string) string
}

// TestSyncSkipsUnreadableFolder: a folder that cannot be read is skipped
// with a warning (in the sync's result, in status and in the log); the
// rest of the vault is indexed and the notes indexed from that folder
// stay. One unreadable folder made every sync fail ("walk vault: …
// permission denied").
//
// Two ways to make a folder unreadable: chmod 000 (which does not deny
// root, so that case is skipped when reads still succeed), and one that
// holds for any user — the vault moved deeper, so that a deep folder's
// path exceeds PATH_MAX and reading it fails with ENAMETOOLONG.
func TestSyncSkipsUnreadableFolder(t *testing.T) {
	deep := func(*testing.T) string {
		var parts []string
		for i := range 15 {
			parts = append(parts, string(rune('a'+i))+strings.Repeat("x", 240))
		}
		return strings.Join(parts, "/")
	}
	for _, c := range []unreadableCase{
		{"chmod 000", func(*testing.T) string { return "private" }, func(t *testing.T, root, folder string) string {
			dir := filepath.Join(root, folder)
			if err := os.Chmod(dir, 0); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
			if _, err := os.ReadDir(dir); err == nil {
				t.Skip("chmod 000 does not deny reads here (running as root); the path-length case covers the skip")
			}
			return root
		}},
		{"path too long", deep, func(t *testing.T, root, folder string) string {
			// Move the vault under folders long enough that root+folder
			// passes PATH_MAX (4096), while the root stays short of SQLite's
			// 512-byte limit on the index's path.
			parent := filepath.Dir(root)
			for i := 0; len(parent)+len("/vault/")+len(folder) < 4100; i++ {
				n := min(250, 4100-(len(parent)+len("/vault/")+len(folder)))
				parent = filepath.Join(parent, string(rune('p'+i))+strings.Repeat("y", n))
			}
			if len(parent)+len("/vault/.noema/index.db") >= 512 {
				t.Fatalf("the moved vault's index path is too long for SQLite: %d", len(parent))
			}
			if err := os.MkdirAll(parent, 0o755); err != nil {
				t.Fatal(err)
			}
			moved := filepath.Join(parent, "vault")
			if err := os.Rename(root, moved); err != nil {
				t.Fatal(err)
			}
			if _, err := os.ReadDir(filepath.Join(moved, folder)); err == nil {
				t.Fatal("the deep folder is still readable: this system's PATH_MAX is larger")
			}
			return moved
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			root := filepath.Join(t.TempDir(), "vault")
			folder := c.folder(t)
			for rel, text := range map[string]string{
				"Open.md":             "about [[Memory]]",
				folder + "/Secret.md": "about [[Secrets]]",
				"later/Also.md":       "about [[Later]]",
			} {
				if rel == "later/Also.md" {
					continue // written after the first sync
				}
				if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			a, err := app.Open(ctx, root, app.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res, err := a.Indexer.Sync(ctx, nil); err != nil || res.Added != 2 {
				t.Fatalf("first sync: %+v, %v", res, err)
			}
			a.Close()

			root = c.make(t, root, folder)
			os.MkdirAll(filepath.Join(root, "later"), 0o755)
			os.WriteFile(filepath.Join(root, "later", "Also.md"), []byte("about [[Later]]"), 0o644)
			var log bytes.Buffer
			a, err = app.Open(ctx, root, app.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			res, err := a.Indexer.Sync(ctx, nil)
			if err != nil {
				t.Fatalf("sync with an unreadable folder: %v", err)
			}
			if res.Added != 1 || res.Removed != 0 {
				t.Errorf("sync: added %d (want the new note), removed %d (want none: the unreadable folder's note stays)", res.Added, res.Removed)
			}
			want := func(ws []indexer.Warning) bool {
				for _, w := range ws {
					if w.Path == folder+"/" && w.Code == "unavailable" && strings.Contains(w.Message, "folder not readable") {
						return true
					}
				}
				return false
			}
			if !want(res.Warnings) {
				t.Errorf("sync warnings %+v: none names %s", res.Warnings, folder)
			}
			st, err := a.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !want(st.Warnings) || st.Notes != 3 {
				t.Errorf("status: %d notes (want 3), warnings %+v", st.Notes, st.Warnings)
			}
			if !strings.Contains(log.String(), "folder not readable") {
				t.Errorf("nothing logged: %s", log.String())
			}
		})
	}
}

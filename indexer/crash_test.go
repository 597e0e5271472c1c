package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
)

var errKilled = errors.New("killed at a commit point")

// TestKillAtEveryCommitPoint stops a sync or reindex right after each of
// its commits in turn — what a SIGKILL at that moment leaves, since a sync
// keeps nothing durable outside its transactions — and checks that the next
// sync gives exactly the index a clean reindex gives, the notes' text
// and the schema included. A cold sync in bulk indexes the text beside the
// writer and copies it in at its end, and creates some indexes only then
// (sqlite.TextLoad): a kill before that leaves notes without text and
// indexes missing, which opening the index marks for the next sync and
// creates.
func TestKillAtEveryCommitPoint(t *testing.T) {
	scenarios := []struct {
		name string
		// prepare builds the vault and index state the interrupted
		// operation starts from.
		prepare func(t *testing.T, dir string, m *corpus.Manifest)
		reindex bool
		bulk    int // the indexer's bulk threshold (0: the default)
	}{
		{"cold sync", func(*testing.T, string, *corpus.Manifest) {}, false, 0},
		{"cold sync in bulk", func(*testing.T, string, *corpus.Manifest) {}, false, 1},
		{"incremental sync", prepareChanges, false, 0},
		{"reindex", func(t *testing.T, dir string, _ *corpus.Manifest) { syncOnce(t, dir) }, true, 0},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			for k := 1; ; k++ {
				dir, m := generate(t, 24)
				sc.prepare(t, dir, m)
				ix := open(t, dir)
				ix.SetBatch(5)
				if sc.bulk > 0 {
					ix.SetBulk(sc.bulk)
				}
				var points []string
				ix.SetAfterCommit(func(point string) error {
					points = append(points, point)
					if len(points) == k {
						return errKilled
					}
					return nil
				})
				run := ix.Sync
				if sc.reindex {
					run = ix.Reindex
				}
				_, err := run(context.Background(), nil)
				if err == nil {
					if k == 1 {
						t.Fatal("no commit point was reached")
					}
					t.Logf("%d commit points: %v", k-1, points)
					return
				}
				if !errors.Is(err, errKilled) {
					t.Fatalf("k=%d: %v", k, err)
				}
				ix.DB.Close()

				after := open(t, dir)
				if _, err := after.Sync(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
				got := dump(t, after) + textDump(t, after)
				if _, err := after.Reindex(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
				if want := dump(t, after) + textDump(t, after); got != want {
					t.Fatalf("killed after commit %d (%s): the next sync's index differs from a clean reindex:\n%s",
						k, points[k-1], firstDiff(got, want))
				}
			}
		})
	}
}

// textDump renders every note's full-text row (none: NULL), by path, and
// checks that the schema is a new index's (a cold load in bulk drops
// indexes and creates them again).
func textDump(t *testing.T, ix *indexer.Indexer) string {
	t.Helper()
	const schema = `SELECT type, name, sql FROM sqlite_schema ORDER BY type, name`
	fresh := noematest.OpenIndex(t)
	if got, want := noematest.Rows(t, ix.DB.Read(), schema), noematest.Rows(t, fresh.Read(), schema); got != want {
		t.Fatalf("the schema is not a new index's:\n%s", firstDiff(got, want))
	}
	return noematest.Rows(t, ix.DB.Read(), `SELECT n.path, f.title, f.body, f.cjk FROM notes n
		LEFT JOIN notes_fts f ON f.rowid = n.id ORDER BY n.path`)
}

// TestOpenRepairsStaleRegistry: a command that opens the index after a sync
// was killed between its note and registry commits answers from a complete
// registry, without waiting for the next sync.
func TestOpenRepairsStaleRegistry(t *testing.T) {
	dir, m := generate(t, 30)
	ix := open(t, dir)
	ix.SetAfterCommit(func(point string) error {
		if point == "notes" {
			return errKilled
		}
		return nil
	})
	if _, err := ix.Sync(context.Background(), nil); !errors.Is(err, errKilled) {
		t.Fatalf("sync: %v", err)
	}
	ix.DB.Close()
	after := open(t, dir)
	if n := len(indexedMentions(t, after)); n != 0 {
		t.Fatalf("expected the interrupted state to have no registry yet, found %d concepts", n)
	}
	repaired, err := after.Repair(context.Background())
	if err != nil || !repaired {
		t.Fatalf("repair = %v, %v", repaired, err)
	}
	diffCounts(t, indexedMentions(t, after), expected(m))
	if repaired, err := after.Repair(context.Background()); err != nil || repaired {
		t.Fatalf("second repair = %v, %v; want nothing to do", repaired, err)
	}
}

// prepareChanges indexes the vault, then edits, deletes, renames and adds
// files behind the index's back.
func prepareChanges(t *testing.T, dir string, m *corpus.Manifest) {
	t.Helper()
	syncOnce(t, dir)
	write := func(rel, content string) { treetest.Write(t, dir, rel, content) }
	for i := range 10 {
		write(m.Notes[i].Path, fmt.Sprintf("# edited %d\n\nNow about [[Edited Concept %d]] and [[Shared Edit]].\n", i, i%3))
	}
	for i := 10; i < 15; i++ {
		if err := os.Remove(filepath.Join(dir, m.Notes[i].Path)); err != nil {
			t.Fatal(err)
		}
	}
	for i := 15; i < 20; i++ {
		if err := os.MkdirAll(filepath.Join(dir, "moved"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, m.Notes[i].Path), filepath.Join(dir, "moved", fmt.Sprintf("m%d.md", i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 12 {
		write(fmt.Sprintf("new/n%d.md", i), fmt.Sprintf("---\naliases: [New Alias %d]\n---\nLinks [[Shared Edit]] and [[Fresh %d]].\n", i, i))
	}
}

func syncOnce(t *testing.T, dir string) {
	t.Helper()
	ix := open(t, dir)
	defer ix.DB.Close()
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

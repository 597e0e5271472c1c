package storecopy_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/pgtest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/postgres"
	"github.com/noema-mem/noema/storecopy"
	"github.com/noema-mem/noema/vault"
)

var ctx = context.Background()

// The PostgreSQL store is read in one query a side.
var _ storecopy.FileWalker = (*postgres.Store)(nil)

// newPostgres returns the store of vault "work" in a fresh, migrated
// database on the test server.
func newPostgres(tb testing.TB) *postgres.Store {
	tb.Helper()
	dsn := pgtest.NewDatabase(tb)
	if _, err := postgres.Migrate(ctx, dsn); err != nil {
		tb.Fatal(err)
	}
	s, err := postgres.OpenStore(ctx, pgtest.StoreURL(tb, dsn, "work"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// folder opens dir as a folder store.
func folder(tb testing.TB, dir string) *vault.Store {
	tb.Helper()
	v, err := vault.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return v.Store()
}

// generate writes a corpus vault of n notes in nested folders (some with
// Unicode names) into a new folder and returns it.
func generate(tb testing.TB, n int) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "vault")
	if _, err := corpus.Generate(ctx, dir, corpus.Options{Seed: 22, Notes: n, Folders: 9}); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// checksums returns every file of s with its checksum.
func checksums(t *testing.T, s storecopy.Source) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := s.ListFiles(ctx, func(fi noema.FileInfo) error {
		f, err := s.ReadFile(ctx, fi.Path)
		if err != nil {
			return err
		}
		out[fi.Path] = f.Checksum
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func copyOK(t *testing.T, src storecopy.Source, dst storecopy.Target, opts storecopy.Options) *storecopy.Plan {
	t.Helper()
	p, err := storecopy.Copy(ctx, src, dst, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// counts is a plan's counts, for comparing.
type counts struct{ created, replaced, deleted, unchanged, kept int }

func countsOf(p *storecopy.Plan) counts {
	return counts{p.Created, p.Replaced, p.Deleted, p.Unchanged, p.Kept}
}

// TestRoundTrip pushes a generated vault onto PostgreSQL and pulls it into
// a new folder: every note byte for byte, nothing else; a second push
// changes nothing; after edits, a push makes exactly those changes.
func TestRoundTrip(t *testing.T) {
	dir := generate(t, 300)
	want := treetest.Files(t, dir)
	if len(want) != 300 {
		t.Fatalf("the corpus wrote %d files", len(want))
	}
	unicode := false
	for p := range want {
		unicode = unicode || strings.ContainsFunc(p, func(r rune) bool { return r > 0x7f })
	}
	if !unicode || !slices.ContainsFunc(slices.Collect(maps.Keys(want)), func(p string) bool { return strings.Count(p, "/") >= 2 }) {
		t.Fatal("the corpus has no Unicode path or no nested folder: the test would prove less than it says")
	}
	src, db := folder(t, dir), newPostgres(t)

	if got := countsOf(copyOK(t, src, db, storecopy.Options{})); got != (counts{created: 300}) {
		t.Fatalf("push onto an empty store: %+v", got)
	}
	pulled := filepath.Join(t.TempDir(), "pulled")
	if got := countsOf(copyOK(t, db, folder(t, pulled), storecopy.Options{})); got != (counts{created: 300}) {
		t.Fatalf("pull into a new folder: %+v", got)
	}
	if got := treetest.Files(t, pulled); !maps.Equal(got, want) {
		t.Fatalf("the pulled folder differs from the pushed one: %d files, want %d", len(got), len(want))
	}

	head, err := db.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again := copyOK(t, src, db, storecopy.Options{Delete: true})
	if again.Changes() != 0 || again.Unchanged != 300 || len(again.Steps) != 0 {
		t.Fatalf("a second push: %+v", countsOf(again))
	}
	if h, _ := db.Head(ctx); h != head {
		t.Fatalf("a second push moved the feed from %d to %d", head, h)
	}

	// Edit the folder: two changed, two deleted, two new (one in a new
	// folder with a Unicode name).
	paths := slices.Sorted(maps.Keys(want))
	for _, p := range paths[:2] {
		appendTo(t, filepath.Join(dir, p), "\nedited\n")
	}
	for _, p := range paths[2:4] {
		if err := os.Remove(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "new.md"), "# new\n")
	writeFile(t, filepath.Join(dir, "nouveau/Été/Café.md"), "crème brûlée\r\n")

	kept := copyOK(t, src, db, storecopy.Options{})
	wantSteps := []storecopy.Step{
		{Path: paths[0], Action: storecopy.Replace}, {Path: paths[1], Action: storecopy.Replace},
		{Path: paths[2], Action: storecopy.Keep}, {Path: paths[3], Action: storecopy.Keep},
		{Path: "new.md", Action: storecopy.Create}, {Path: "nouveau/Été/Café.md", Action: storecopy.Create},
	}
	if got := countsOf(kept); got != (counts{created: 2, replaced: 2, unchanged: 296, kept: 2}) || !sameSteps(kept.Steps, wantSteps) {
		t.Fatalf("a push without Delete after edits: %+v %+v", got, kept.Steps)
	}
	deleted := copyOK(t, src, db, storecopy.Options{Delete: true})
	wantSteps = []storecopy.Step{{Path: paths[2], Action: storecopy.Delete}, {Path: paths[3], Action: storecopy.Delete}}
	if got := countsOf(deleted); got != (counts{deleted: 2, unchanged: 300}) || !sameSteps(deleted.Steps, wantSteps) {
		t.Fatalf("a push with Delete: %+v %+v", got, deleted.Steps)
	}
	if got, want := checksums(t, db), checksums(t, src); !maps.Equal(got, want) {
		t.Fatalf("the store after the pushes differs from the folder")
	}

	// Pull the edits into the earlier copy.
	if got := countsOf(copyOK(t, db, folder(t, pulled), storecopy.Options{Delete: true})); got != (counts{created: 2, replaced: 2, deleted: 2, unchanged: 296}) {
		t.Fatalf("pull of the edits: %+v", got)
	}
	if got, want := treetest.Files(t, pulled), treetest.Files(t, dir); !maps.Equal(got, want) {
		t.Fatal("the folder pulled again differs from the edited one")
	}
}

// sameSteps reports whether got holds want's steps, in any order.
func sameSteps(got, want []storecopy.Step) bool {
	cmp := func(a, b storecopy.Step) int { return strings.Compare(a.Path, b.Path) }
	return slices.Equal(slices.SortedFunc(slices.Values(got), cmp), slices.SortedFunc(slices.Values(want), cmp))
}

// TestConcurrentChangeAborts: a file of the target changed between the
// plan and the apply aborts the whole copy with checksum_mismatch, on both
// kinds of target, and the target is as the concurrent writer left it.
func TestConcurrentChangeAborts(t *testing.T) {
	targets := []struct {
		name string
		open func(t *testing.T) storecopy.Target
	}{
		{"postgres", func(t *testing.T) storecopy.Target { return newPostgres(t) }},
		{"folder", func(t *testing.T) storecopy.Target { return folder(t, t.TempDir()) }},
	}
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			src := folder(t, generate(t, 40))
			dst := tc.open(t)
			copyOK(t, src, dst, storecopy.Options{})
			// The source changes three files and gains one.
			var edited []string
			err := src.ListFiles(ctx, func(fi noema.FileInfo) error {
				if len(edited) < 3 {
					edited = append(edited, fi.Path)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range edited {
				f, err := src.ReadFile(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := src.WriteFile(ctx, p, append(f.Data, "\nsource\n"...), f.Checksum); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := src.WriteFile(ctx, "zz new.md", []byte("new"), noema.Absent); err != nil {
				t.Fatal(err)
			}
			plan, err := storecopy.Prepare(ctx, src, dst, storecopy.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if plan.Replaced != 3 || plan.Created != 1 {
				t.Fatalf("plan: %+v", countsOf(plan))
			}
			// Another writer edits the last file the plan replaces.
			other, err := dst.ReadFile(ctx, edited[2])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := dst.(noema.FileWriter).WriteFile(ctx, edited[2], []byte("theirs"), other.Checksum); err != nil {
				t.Fatal(err)
			}
			before := checksums(t, dst)
			_, err = plan.Apply(ctx, dst)
			if noema.ErrorCode(err) != noema.ECHECKSUM {
				t.Fatalf("apply after a concurrent change: %v, want checksum_mismatch", err)
			}
			if e, ok := errors.AsType[*noema.Error](err); !ok || e.Details["path"] != edited[2] {
				t.Fatalf("the error does not name %s: %v", edited[2], err)
			}
			if got := checksums(t, dst); !maps.Equal(got, before) {
				t.Fatal("a copy that failed changed the target")
			}
		})
	}
}

// TestDryRun: Prepare writes nothing on either side.
func TestDryRun(t *testing.T) {
	dir := generate(t, 50)
	src, db := folder(t, dir), newPostgres(t)
	before := treetest.Files(t, dir)
	plan, err := storecopy.Prepare(ctx, src, db, storecopy.Options{Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Created != 50 || len(plan.Steps) != 50 || len(plan.Changeset().Changes) != 50 {
		t.Fatalf("plan: %+v", countsOf(plan))
	}
	if head, _ := db.Head(ctx); head != 0 {
		t.Fatalf("a plan moved the target's feed to %d", head)
	}
	if got := checksums(t, db); len(got) != 0 {
		t.Fatalf("a plan wrote %d files", len(got))
	}
	if got := treetest.Files(t, dir); !maps.Equal(got, before) {
		t.Fatal("a plan changed the source")
	}
}

// TestEmptyAndEdgeFiles: an empty note and one with CR LF line ends and
// no final newline keep their bytes both ways.
func TestEmptyAndEdgeFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "empty.md"), "")
	writeFile(t, filepath.Join(dir, "crlf.md"), "a\r\nb")
	db := newPostgres(t)
	copyOK(t, folder(t, dir), db, storecopy.Options{})
	out := filepath.Join(t.TempDir(), "out")
	copyOK(t, db, folder(t, out), storecopy.Options{})
	if got, want := treetest.Files(t, out), treetest.Files(t, dir); !maps.Equal(got, want) {
		t.Fatalf("pulled %q, want %q", got, want)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

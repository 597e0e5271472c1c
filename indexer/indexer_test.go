package indexer_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/sqlite"
	"github.com/noema-mem/noema/vault"
)

func open(tb testing.TB, dir string) *indexer.Indexer { return noematest.OpenIndexer(tb, dir) }

func generate(tb testing.TB, notes int) (string, *corpus.Manifest) {
	return noematest.Corpus(tb, corpus.Options{Seed: 7, Notes: notes})
}

// dump renders the graph the index holds, deterministically.
func dump(t *testing.T, ix *indexer.Indexer) string {
	t.Helper()
	return noematest.Rows(t, ix.DB.Read(),
		`SELECT path, title, tags, aliases, hash, created_ns, modified_ns FROM notes ORDER BY path`,
		`SELECT id, key, label, aliases, description, metadata, (SELECT path FROM notes WHERE id = page_note_id), created_ns, updated_ns FROM concepts ORDER BY id`,
		`SELECT key, concept_id, text, is_label FROM concept_keys ORDER BY key`,
		`SELECT n.path, m.concept_id, m.count FROM mentions m JOIN notes n ON n.id = m.note_id ORDER BY n.path, m.concept_id`,
		`SELECT r.id, n.path, r.type, r.to_ref, r.weight, r.metadata FROM relations r JOIN notes n ON n.id = r.note_id ORDER BY r.id`)
}

// expected computes concept keys and mention counts from the manifest.
func expected(m *corpus.Manifest) map[string]int {
	want := map[string]int{}
	for _, n := range m.Notes {
		for _, target := range n.Targets() {
			want[vault.Key(target)]++
		}
	}
	return want
}

func indexedMentions(t *testing.T, ix *indexer.Indexer) map[string]int {
	t.Helper()
	got := map[string]int{}
	noematest.EachRow(t, ix.DB.Read(), `SELECT c.key, SUM(m.count) FROM mentions m JOIN concepts c ON c.id = m.concept_id GROUP BY c.key`, func(rows *sql.Rows) error {
		var k string
		var n int
		err := rows.Scan(&k, &n)
		got[k] = n
		return err
	})
	return got
}

func diffCounts(t *testing.T, got, want map[string]int) {
	t.Helper()
	keys := slices.AppendSeq(slices.Collect(maps.Keys(want)), maps.Keys(got))
	slices.Sort(keys)
	keys = slices.Compact(keys)
	bad := 0
	for _, k := range keys {
		if got[k] != want[k] {
			if bad < 10 {
				t.Errorf("concept %q: %d mentions indexed, files say %d", k, got[k], want[k])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d concepts differ", bad, len(keys))
	}
}

func TestSyncMatchesFiles(t *testing.T) {
	ctx := context.Background()
	dir, m := generate(t, 300)
	ix := open(t, dir)
	res, err := ix.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 300 || res.Skipped != 0 {
		t.Fatalf("first sync = %+v", res)
	}
	diffCounts(t, indexedMentions(t, ix), expected(m))

	// A no-op sync touches nothing.
	res, err = ix.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed() || res.Unchanged != 300 {
		t.Fatalf("no-op sync = %+v", res)
	}
	before := dump(t, ix)

	// Rebuild: the identical graph.
	if _, err := ix.Reindex(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if after := dump(t, ix); after != before {
		t.Errorf("reindex changed the graph:\n%s", firstDiff(before, after))
	}
}

func TestSyncFollowsChanges(t *testing.T) {
	ctx := context.Background()
	dir, m := generate(t, 60)
	ix := open(t, dir)
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Record an access on the note we are about to rename.
	renamed := m.Notes[1].Path
	if err := ix.DB.Write(ctx, func(tx *sqlite.Tx) error { return sqlite.RecordAccess(tx, renamed) }); err != nil {
		t.Fatal(err)
	}
	// Edit one note behind the index's back, delete one, rename one.
	edited := filepath.Join(dir, m.Notes[0].Path)
	if err := os.WriteFile(edited, []byte("# rewritten\n\nOnly [[Brand New Concept]] now.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, m.Notes[2].Path)); err != nil {
		t.Fatal(err)
	}
	newPath := "moved/renamed-note.md"
	if err := os.MkdirAll(filepath.Join(dir, "moved"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, renamed), filepath.Join(dir, newPath)); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Updated != 1 || res.Removed != 1 || res.Renamed != 1 || res.Added != 0 {
		t.Fatalf("sync after changes = %+v", res)
	}
	want := map[string]int{}
	for i, n := range m.Notes {
		if i == 0 || i == 2 {
			continue
		}
		for _, target := range n.Targets() {
			want[vault.Key(target)]++
		}
	}
	want["brand new concept"] = 1
	diffCounts(t, indexedMentions(t, ix), want)

	var accessCount int
	if err := ix.DB.Read().QueryRow(`SELECT count FROM access WHERE path = ?`, newPath).Scan(&accessCount); err != nil || accessCount != 1 {
		t.Errorf("access history after rename: count=%d err=%v", accessCount, err)
	}
}

func TestBadFilesAreSkippedAndKept(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name, content string) { treetest.Write(t, dir, name, content) }
	write("good.md", "links [[Alpha]]\n")
	write("later-bad.md", "links [[Beta]]\n")
	ix := open(t, dir)
	ix.MaxNoteBytes = 1 << 20
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Now break things.
	write("later-bad.md", "---\ntitle: [unclosed\n---\n[[Gamma]]\n")
	write("binary.md", "bad \xff\xfe utf8 [[Delta]]\n")
	write("huge.md", strings.Repeat("x", 2<<20))
	write("long-link.md", "[["+strings.Repeat("y", 10000)+"]] and [[Epsilon]]\n")
	write(".hidden/secret.md", "[[Hidden]]\n")
	res, err := ix.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	for _, w := range res.Warnings {
		codes[w.Path] = w.Code
	}
	wantCodes := map[string]string{"later-bad.md": "invalid_argument", "binary.md": "invalid_argument", "huge.md": "too_large"}
	for p, c := range wantCodes {
		if codes[p] != c {
			t.Errorf("warning for %s = %q, want %q (all: %+v)", p, codes[p], c, res.Warnings)
		}
	}
	got := indexedMentions(t, ix)
	// Beta stays: the broken file's last good version is not lost.
	want := map[string]int{"alpha": 1, "beta": 1, "epsilon": 1}
	diffCounts(t, got, want)
}

func TestWatcherIndexesChanges(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	ix := open(t, dir)
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	synced := make(chan struct{}, 16)
	go ix.Watch(ctx, 20*time.Millisecond, func(*indexer.Result, error) { synced <- struct{}{} })
	time.Sleep(100 * time.Millisecond) // let the watcher register its folders
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "w.md"), []byte("[[Watched]]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "top.md"), []byte("[[Watched]] [[Top]]\n"), 0o644)
	deadline := time.After(10 * time.Second)
	for {
		got := indexedMentions(t, ix)
		if got["watched"] == 2 && got["top"] == 1 {
			return
		}
		select {
		case <-synced:
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatalf("watcher did not index the new files: %v", got)
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d", len(al), len(bl))
}

func TestFileDisappearsMidSync(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, n := range []string{"keep.md", "known.md", "new.md"} {
		os.WriteFile(filepath.Join(dir, n), []byte("[["+n+" concept]]\n"), 0o644)
	}
	ix := open(t, dir)
	os.Remove(filepath.Join(dir, "new.md"))
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// known.md changes, new.md appears; both vanish after the walk saw them.
	os.WriteFile(filepath.Join(dir, "known.md"), []byte("[[Changed]]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "new.md"), []byte("[[New]]\n"), 0o644)
	ix.SetAfterWalk(func() {
		os.Remove(filepath.Join(dir, "known.md"))
		os.Remove(filepath.Join(dir, "new.md"))
	})
	res, err := ix.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != 2 || res.Removed != 1 || len(res.Warnings) != 2 || res.Warnings[0].Code != "not_found" {
		t.Fatalf("sync = %+v", res)
	}
	diffCounts(t, indexedMentions(t, ix), map[string]int{"keep.md concept": 1})
}

// TestIncrementalRegistryMatchesFull makes random edits through SyncPaths
// (the path note operations take) and checks after each one that a full
// recompute of the concept registry would change nothing.
func TestIncrementalRegistryMatchesFull(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := open(t, dir)
	r := rand.New(rand.NewPCG(7, 11))
	words := []string{"Alpha", "beta", "Gamma Ray", "gamma-ray", "Delta", "epsilon", "Zeta", "Note Three", "note_seven"}
	names := []string{"note one", "note two", "Note Three", "note four", "Note Five", "note six", "note seven"}
	for step := range 300 {
		name := names[r.IntN(len(names))]
		rel := vault.Slug(name) + ".md"
		var content string
		switch r.IntN(10) {
		case 0:
			os.Remove(filepath.Join(dir, rel))
		case 1:
			content = fmt.Sprintf("---\naliases: [%s]\n---\n[[%s]]\n", words[r.IntN(len(words))], words[r.IntN(len(words))])
		case 2:
			content = fmt.Sprintf("---\nconcept: %s\n---\nA page.\n", words[r.IntN(len(words))])
		case 3:
			content = fmt.Sprintf("---\nmodified: 2026-0%d-01\n---\n[[%s]]\n", 1+r.IntN(9), words[r.IntN(len(words))])
		default:
			var links []string
			for range r.IntN(4) {
				links = append(links, "[["+words[r.IntN(len(words))]+"]]")
			}
			content = strings.Join(links, " ") + "\n"
		}
		if content != "" {
			treetest.Write(t, dir, rel, content)
		}
		if _, err := ix.SyncPaths(ctx, []string{rel}, ""); err != nil {
			t.Fatal(err)
		}
		incremental := noematest.ConceptTables(t, ix.DB)
		if full := noematest.Recomputed(t, ix.DB, vault.Key); full != incremental {
			t.Fatalf("step %d (%s = %q): incremental registry differs from a full recompute:\n%s", step, rel, content, firstDiff(full, incremental))
		}
	}
}

// The metadata JSON of ordinary front matter is what indexes already hold.
func TestRecordMetadataJSON(t *testing.T) {
	src := "---\nconcept: X\nmetadata:\n  b: 1\n  a: [x, 2024-03-01, 1.5, true]\n  c: {d: null, e: \"q\"}\n  1: one\n" +
		"relations:\n  - type: t\n    to: Y\n    metadata: {w: 2, k: [a]}\n---\nbody\n"
	info, err := os.Stat(treetest.Write(t, t.TempDir(), "x.md", src))
	if err != nil {
		t.Fatal(err)
	}
	n, err := vault.Parse("x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rec := indexer.Record(n, info)
	if got, want := rec.Page.Metadata, `{"1":"one","a":["x","2024-03-01",1.5,true],"b":1,"c":{"d":null,"e":"q"}}`; got != want {
		t.Errorf("page metadata = %s, want %s", got, want)
	}
	if len(rec.Relations) != 1 {
		t.Fatalf("relations = %+v", rec.Relations)
	}
	if got, want := rec.Relations[0].Metadata, `{"k":["a"],"w":2}`; got != want {
		t.Errorf("relation metadata = %s, want %s", got, want)
	}
}

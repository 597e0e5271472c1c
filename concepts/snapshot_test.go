package concepts_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/noematest"
)

// TestNamesSnapshot checks that find_concepts' names snapshot never gives
// a wrong answer: a server started after concepts were added, renamed,
// given aliases or deleted since the snapshot, from a snapshot damaged or
// cut short, or from another index's snapshot, answers exactly what a
// service reading every name from the index answers; and that a current
// snapshot is what the start reads.
func TestNamesSnapshot(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	for i := range 30 {
		write(t, a, fmt.Sprintf("N%d", i), fmt.Sprintf("[[Gradient Check %d]] [[Topic %c%c]] [[Config]]", i, 'a'+i%26, 'a'+i/26))
	}
	file := filepath.Join(a.Vault.Root, app.IndexDir, app.NamesFile)
	if err := a.Concepts.SaveNames(ctx); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("SaveNames wrote no snapshot: %v", err)
	}
	queries := []string{"gradient check 7", "configuration", "topic ab", "gradient checkpointing", "grad chk", "Kubernetes", "k8s", "topic zz"}
	find := func(s *concepts.Service, q string) string {
		t.Helper()
		res, err := s.Find(ctx, concepts.FindInput{Query: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%+v", *res)
	}
	// check is a server's start: a new service over the same index,
	// warmed; fromSnap and findFromSnap are whether it must have read its
	// names and their find index from the snapshot.
	check := func(step string, fromSnap, findFromSnap bool) {
		t.Helper()
		s := concepts.New(a.Vault, a.DB.Concepts(), a.Indexer)
		s.NamesFile = file
		if err := s.Warm(ctx, nil); err != nil {
			t.Fatalf("%s: Warm: %v", step, err)
		}
		if s.NamesFromSnapshot() != fromSnap || s.FindIndexFromSnapshot() != findFromSnap {
			t.Errorf("%s: names read from the snapshot = %v, their find index = %v, want %v and %v", step, s.NamesFromSnapshot(), s.FindIndexFromSnapshot(), fromSnap, findFromSnap)
		}
		fresh := concepts.New(a.Vault, a.DB.Concepts(), a.Indexer)
		for _, q := range queries {
			if got, want := find(s, q), find(fresh, q); got != want {
				t.Errorf("%s: find %q:\n got %s\nwant %s", step, q, got, want)
			}
		}
	}
	check("current snapshot", true, true)
	// A find_concepts before the warm-up reads the snapshot too (the
	// first call of a server started a moment ago).
	first := concepts.New(a.Vault, a.DB.Concepts(), a.Indexer)
	first.NamesFile = file
	find(first, "grad chk")
	if !first.NamesFromSnapshot() {
		t.Error("a find_concepts before the warm-up read every name from the index, not the snapshot")
	}

	write(t, a, "New 1", "[[Gradient Checkpointing]] [[Kubernetes]]")
	check("concepts added since", true, true)
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Topic ab", AddAliases: []string{"k8s"}}); err != nil {
		t.Fatal(err)
	}
	check("an alias added since", true, true)
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Topic za", Label: "Configuration Zone"}); err != nil {
		t.Fatal(err)
	}
	check("a concept renamed since", true, true)
	if _, err := a.Notes.Delete(ctx, "New 1", true); err != nil {
		t.Fatal(err)
	}
	// A deletion reads every name again, and that start writes the
	// snapshot anew: the next start reads it.
	check("a concept deleted since", false, false)
	check("the snapshot the last start wrote", true, true)

	damage := func(step string, data []byte) {
		t.Helper()
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		check(step, false, false)
		if _, err := os.ReadFile(file); err != nil {
			t.Fatalf("%s: no snapshot written again: %v", step, err)
		}
		check(step+", then the snapshot written again", true, true)
	}
	cur, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), cur...)
	flipped[len(flipped)/2] ^= 0x20
	damage("a byte changed", flipped)
	damage("cut short", cur[:len(cur)*2/3])
	damage("empty", nil)
	damage("a snapshot of the index before", saved)

	// Another index (a vault with the same notes, indexed on its own)
	// has another identity: its snapshot is not read.
	b := noematest.App(t)
	for i := range 30 {
		write(t, b, fmt.Sprintf("N%d", i), fmt.Sprintf("[[Gradient Check %d]] [[Topic %c%c]] [[Config]]", i, 'a'+i%26, 'a'+i/26))
	}
	if err := b.Concepts.SaveNames(ctx); err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(filepath.Join(b.Vault.Root, app.IndexDir, app.NamesFile))
	if err != nil {
		t.Fatal(err)
	}
	damage("another index's snapshot", other)

	// Another build of noema reads the names but builds the find index
	// anew (its analysis of names may differ), and writes it for itself.
	restore := concepts.SetCodeID("another build")
	s := concepts.New(a.Vault, a.DB.Concepts(), a.Indexer)
	s.NamesFile = file
	if err := s.Warm(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !s.NamesFromSnapshot() || s.FindIndexFromSnapshot() {
		t.Errorf("another build: names from the snapshot = %v (want true), find index = %v (want false)", s.NamesFromSnapshot(), s.FindIndexFromSnapshot())
	}
	check("another build, once it wrote the snapshot", true, true)
	restore()
	check("this build again", true, false)
	check("this build again, once it wrote the snapshot", true, true)

	// SaveNames leaves a current snapshot alone.
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Concepts.SaveNames(ctx); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(file); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("SaveNames rewrote a current snapshot (%v)", err)
	}
}

// TestNamesSnapshotKeptWhenCurrent: SaveNames leaves a current snapshot
// as it is, however many concepts it holds. Its header was read from the
// file's first 2 KB with the counts bounded by those bytes, so above ~680
// concepts it never read, and every sync reloaded every name, rebuilt the
// find index and wrote the file again (a quarter of a no-op sync at 25k
// concepts).
func TestNamesSnapshotKeptWhenCurrent(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	for n := range 3 {
		var b strings.Builder
		for i := range 500 {
			fmt.Fprintf(&b, "[[Concept %d-%d]] ", n, i)
		}
		write(t, a, fmt.Sprintf("Many %d", n), b.String())
	}
	file := filepath.Join(a.Vault.Root, app.IndexDir, app.NamesFile)
	if err := a.Concepts.SaveNames(ctx); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(file)
	if err != nil {
		t.Fatalf("SaveNames wrote no snapshot: %v", err)
	}
	if before.Size() <= 2048 {
		t.Fatalf("the snapshot of 1,500 concepts is %d bytes; the test needs one past the header's first read", before.Size())
	}
	if err := a.Concepts.SaveNames(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("SaveNames wrote a current snapshot of 1,500 concepts again")
	}
	write(t, a, "One more", "[[Concept new]]")
	if err := a.Concepts.SaveNames(ctx); err != nil {
		t.Fatal(err)
	}
	if again, err := os.Stat(file); err != nil || os.SameFile(after, again) {
		t.Errorf("SaveNames kept a snapshot a new concept made stale (%v)", err)
	}
}

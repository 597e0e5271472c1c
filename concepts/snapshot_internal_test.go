package concepts

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/noema-mem/noema/internal/benchdata"
)

// snapshotMatcher is a matcher of n concepts, some with aliases, some
// with names outside ASCII, at revision rev.
func snapshotMatcher(n int, rev int64) *matcher {
	m := &matcher{rev: rev, deleted: rev / 3}
	for g := range n {
		m.ids = append(m.ids, fmt.Sprintf("c_%08x_%d", g*2654435761, rev))
		m.labels = append(m.labels, fmt.Sprintf("Label %d – Größe 検索 %d", g, rev))
		var al []string
		for k := range g % 3 {
			al = append(al, fmt.Sprintf("alias %d.%d", g, k))
		}
		if al == nil {
			al = []string{}
		}
		m.aliases = append(m.aliases, al)
	}
	return m
}

// sameNames reports whether a and b hold the same names at the same
// revision.
func sameNames(a, b *matcher) bool {
	return a.rev == b.rev && a.deleted == b.deleted && slices.Equal(a.ids, b.ids) &&
		slices.Equal(a.labels, b.labels) && slices.EqualFunc(a.aliases, b.aliases, func(x, y []string) bool {
		return x != nil && y != nil && slices.Equal(x, y) // JSON's [] for no alias
	}) && slices.Equal(a.texts, b.texts) && slices.Equal(a.groups, b.groups)
}

// TestSnapshotRoundTripAndDamage checks that a snapshot reads back as the
// names it was made of (empty, one concept, many), and that every prefix
// of it, and every single-bit change, is refused.
func TestSnapshotRoundTripAndDamage(t *testing.T) {
	for _, n := range []int{0, 1, 200} {
		m := snapshotMatcher(n, 7)
		m.index()
		if n%2 == 0 { // with a find index, and without
			m.findIndex()
		}
		data := encodeNames(m, "index-A", "build-1")
		got, h, err := decodeNames(data, "build-1")
		if err != nil {
			t.Fatalf("%d concepts: %v", n, err)
		}
		if h.indexID != "index-A" || !sameNames(got, m) {
			t.Fatalf("%d concepts: read back %+v (%q), want %+v", n, got, h.indexID, m)
		}
		if n%2 == 0 {
			if !got.findLoaded || !reflect.DeepEqual(got.findIndex(), m.findIndex()) {
				t.Fatalf("%d concepts: the find index did not read back the same", n)
			}
			if other, _, err := decodeNames(data, "build-2"); err != nil || other.findLoaded {
				t.Fatalf("%d concepts: another build took the find index (%v)", n, err)
			}
		} else if got.findLoaded {
			t.Fatalf("%d concepts: a find index read from a snapshot that has none", n)
		}
		for cut := range len(data) {
			if _, _, err := decodeNames(data[:cut], "build-1"); err == nil {
				t.Fatalf("%d concepts: the first %d of %d bytes were read as a snapshot", n, cut, len(data))
			}
		}
		for i := range len(data) {
			for bit := range 8 {
				d := append([]byte(nil), data...)
				d[i] ^= 1 << bit
				if _, _, err := decodeNames(d, "build-1"); err == nil {
					t.Fatalf("%d concepts: bit %d of byte %d changed was read as a snapshot", n, bit, i)
				}
			}
		}
	}
}

// FuzzDecodeNames checks that no input makes the snapshot reader panic or
// allocate beyond its size, and that what it accepts reads back the same
// once written again.
func FuzzDecodeNames(f *testing.F) {
	withIndex := snapshotMatcher(3, 2)
	withIndex.index()
	withIndex.findIndex()
	f.Add(encodeNames(snapshotMatcher(3, 2), "id", "build"))
	f.Add(encodeNames(withIndex, "id", "build"))
	f.Add([]byte(snapshotMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, h, err := decodeNames(data, "build")
		if err != nil {
			return
		}
		again, h2, err := decodeNames(encodeNames(m, h.indexID, h.codeID), "build")
		if err != nil || h2.indexID != h.indexID || !sameNames(again, m) || again.findLoaded != m.findLoaded {
			t.Fatalf("accepted %q, which does not read back the same once written (%v)", data, err)
		}
	})
}

// snapshotWriterEnv names the file the child process of
// TestSnapshotWriteKilled writes snapshots to until it is killed.
const snapshotWriterEnv = "NOEMA_TEST_SNAPSHOT_WRITER"

// TestSnapshotWriteKilled kills, at random moments, a process writing
// snapshots (two different ones in turn) over one file: what is left at
// the file's path is always one of them whole, never a mix or a prefix.
func TestSnapshotWriteKilled(t *testing.T) {
	a, b := snapshotMatcher(20000, 1), snapshotMatcher(20000, 2)
	if path := os.Getenv(snapshotWriterEnv); path != "" {
		for i := 0; ; i++ {
			m := a
			if i%2 == 1 {
				m = b
			}
			if err := writeSnapshotFile(path, encodeNames(m, "id", "")); err != nil {
				t.Fatal(err)
			}
			if i == 0 { // tell the parent the writes are under way
				if err := os.WriteFile(path+".started", nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	a.index()
	b.index()
	path := filepath.Join(t.TempDir(), "names.snap")
	seen := map[int64]int{}
	for round := range 12 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSnapshotWriteKilled$")
		cmd.Env = append(os.Environ(), snapshotWriterEnv+"="+path)
		os.Remove(path + ".started")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Once it writes (a process starts slowly under -race or load),
		// kill it at a random moment of the writes that follow.
		for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(path + ".started"); err == nil {
				break
			}
			if time.Since(start) > time.Minute {
				cmd.Process.Kill()
				t.Fatal("the writer wrote no snapshot within a minute")
			}
		}
		time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := decodeNames(data, "")
		if err != nil {
			t.Fatalf("round %d: the snapshot left by a killed writer is not whole: %v", round, err)
		}
		if !sameNames(m, a) && !sameNames(m, b) {
			t.Fatalf("round %d: the snapshot left by a killed writer is neither of those written", round)
		}
		seen[m.rev]++
	}
	t.Logf("what the killed writers left (revision: rounds): %v", seen)
}

// BenchmarkDecodeNames reads the snapshot of a million label concepts, with
// their find index (a
// server's start at issue 21's scale reads this instead of the registry).
func BenchmarkDecodeNames(b *testing.B) {
	m := &matcher{}
	for g, l := range benchdata.Labels(1_000_000) {
		m.ids = append(m.ids, fmt.Sprintf("c_%016x", g*2654435761))
		m.labels = append(m.labels, l)
		m.aliases = append(m.aliases, []string{})
	}
	m.index()
	m.findIndex()
	data := encodeNames(m, "id", "build")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := decodeNames(data, "build"); err != nil {
			b.Fatal(err)
		}
	}
}

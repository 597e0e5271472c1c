package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/pgtest"
)

// newStore returns a store of vault name in a fresh, migrated database.
func newStore(t *testing.T, name string) *Store {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	if _, err := Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	s, err := db.Vault(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestApplyIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, "work")
	a, b := []byte("# A\n"), []byte("# B\n")
	if _, err := s.Apply(ctx, []Change{{Path: "a.md", Before: Absent, After: a}, {Path: "b.md", Before: Absent, After: b}}); err != nil {
		t.Fatal(err)
	}
	// Creating an existing file, or replacing one planned from other bytes,
	// stops the whole changeset with checksum_mismatch.
	for _, bad := range [][]Change{
		{{Path: "c.md", Before: Absent, After: []byte("c")}, {Path: "a.md", Before: Absent, After: []byte("a2")}},
		{{Path: "a.md", Before: checksum(a), After: []byte("a2")}, {Path: "b.md", Before: checksum([]byte("other")), Delete: true}},
	} {
		_, err := s.Apply(ctx, bad)
		if noema.ErrorCode(err) != noema.ECHECKSUM {
			t.Fatalf("conflicting changeset: %v, want %s", err, noema.ECHECKSUM)
		}
	}
	if f, err := s.Read(ctx, "a.md"); err != nil || string(f.Data) != string(a) || f.Version != 1 {
		t.Fatalf("a.md after refused changesets: %+v %v", f, err)
	}
	if _, err := s.Read(ctx, "c.md"); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Fatalf("c.md of a refused changeset: %v", err)
	}
	// A move is a deletion and a creation in one changeset.
	seq, err := s.Apply(ctx, []Change{{Path: "b.md", Before: checksum(b), Delete: true}, {Path: "x/b.md", Before: Absent, After: b}})
	if err != nil {
		t.Fatal(err)
	}
	if seq != 4 {
		t.Fatalf("sequence after 4 changes is %d", seq)
	}
	var paths []string
	if err := s.List(ctx, func(f File) error { paths = append(paths, f.Path); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(paths) != "[a.md x/b.md]" {
		t.Fatalf("files after the move: %v", paths)
	}
	// Re-creating a deleted path works from Absent, and its version goes on.
	if _, err := s.Apply(ctx, []Change{{Path: "b.md", Before: Absent, After: []byte("again")}}); err != nil {
		t.Fatal(err)
	}
	if f, _ := s.Read(ctx, "b.md"); f == nil || f.Version != 3 {
		t.Fatalf("re-created b.md: %+v", f)
	}
}

func TestChangesFollowTheSequence(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, "work")
	write := func(path string, before string, data []byte, del bool) {
		t.Helper()
		if _, err := s.Apply(ctx, []Change{{Path: path, Before: before, After: data, Delete: del}}); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", Absent, []byte("1"), false)
	write("b.md", Absent, []byte("2"), false)
	write("a.md", checksum([]byte("1")), []byte("3"), false)
	write("b.md", checksum([]byte("2")), nil, true)
	all, err := s.Changes(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%v", feed(all)); got != "[3:a.md 4:b.md(deleted)]" {
		t.Fatalf("feed from 0: %s", got)
	}
	since3, err := s.Changes(ctx, 3, 100)
	if err != nil || fmt.Sprint(feed(since3)) != "[4:b.md(deleted)]" {
		t.Fatalf("feed since 3: %v %v", feed(since3), err)
	}
	if page, _ := s.Changes(ctx, 0, 1); len(page) != 1 || page[0].Seq != 3 {
		t.Fatalf("a page of one: %v", feed(page))
	}
	// Another vault in the same database has its own files and numbers.
	other, err := s.db.Vault(ctx, "home")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := other.Changes(ctx, 0, 100); len(got) != 0 {
		t.Fatalf("a new vault's feed: %v", feed(got))
	}
	if _, err := other.Read(ctx, "a.md"); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Fatalf("another vault's file: %v", err)
	}
}

// TestOneOfTwoEditsWins: two writers that read the same version and both
// replace it — exactly one succeeds and the other sees checksum_mismatch,
// over 100 pairs.
func TestOneOfTwoEditsWins(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, "work")
	data := []byte("v0")
	if _, err := s.Apply(ctx, []Change{{Path: "n.md", Before: Absent, After: data}}); err != nil {
		t.Fatal(err)
	}
	for round := range 100 {
		before := checksum(data)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[w] = s.Apply(ctx, []Change{{Path: "n.md", Before: before, After: fmt.Appendf(nil, "r%d w%d", round, w)}})
			}()
		}
		wg.Wait()
		won := -1
		for w, err := range errs {
			switch {
			case err == nil:
				if won >= 0 {
					t.Fatalf("round %d: both edits of one version succeeded", round)
				}
				won = w
			case noema.ErrorCode(err) != noema.ECHECKSUM:
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won < 0 {
			t.Fatalf("round %d: neither edit succeeded: %v", round, errs)
		}
		f, err := s.Read(ctx, "n.md")
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("r%d w%d", round, won); string(f.Data) != want {
			t.Fatalf("round %d: the file holds %q, the winner wrote %q", round, f.Data, want)
		}
		data = f.Data
	}
}

func feed(es []Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = fmt.Sprintf("%d:%s", e.Seq, e.Path)
		if e.Deleted {
			out[i] += "(deleted)"
		}
	}
	return out
}

// TestWaitSeesAnotherServersWrite: a second pool on the same database (a
// second server) is woken by the first one's commit through NOTIFY, and
// still notices writes while its listening connection is being killed.
func TestWaitSeesAnotherServersWrite(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, "work")
	other, err := Open(ctx, s.db.pool.Config().ConnString(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	o, err := other.Vault(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	var slowest time.Duration
	for i := range 20 {
		got := make(chan int64, 1)
		go func() {
			seq, err := o.Wait(ctx, int64(i))
			if err != nil {
				t.Error(err)
			}
			got <- seq
		}()
		time.Sleep(20 * time.Millisecond) // let the waiter block
		start := time.Now()
		if _, err := s.Apply(ctx, []Change{{Path: fmt.Sprintf("n%d.md", i), Before: Absent, After: []byte("x")}}); err != nil {
			t.Fatal(err)
		}
		if seq := <-got; seq != int64(i+1) {
			t.Fatalf("woke at %d, want %d", seq, i+1)
		}
		slowest = max(slowest, time.Since(start))
	}
	if slowest >= PollInterval {
		t.Fatalf("the slowest wake-up took %s: notifications did not arrive, only polling", slowest)
	}
	// Kill every listening connection: waiters fall back on polling and the
	// listener reconnects by itself.
	if _, err := s.db.pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(ctx, []Change{{Path: "after-kill.md", Before: Absent, After: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 3*PollInterval)
	defer cancel()
	if seq, err := o.Wait(wctx, 20); err != nil || seq != 21 {
		t.Fatalf("after the listener was killed: %d %v", seq, err)
	}
}

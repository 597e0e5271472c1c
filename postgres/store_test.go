package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/pgtest"
	"github.com/noema-mem/noema/internal/storetest"
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

// TestStore runs the conformance suite of noema.Store, which the folder
// store runs too.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) noema.Store { return newStore(t, "work") })
}

func write(t *testing.T, s *Store, path, data, expect string) noema.Change {
	t.Helper()
	c, err := s.WriteFile(context.Background(), path, []byte(data), expect)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestVaultsApart(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, "work")
	write(t, s, "a.md", "1", noema.Absent)
	write(t, s, "a.md", "2", noema.Checksum([]byte("1")))
	other, err := s.db.Vault(ctx, "home")
	if err != nil {
		t.Fatal(err)
	}
	if head, _ := other.Head(ctx); head != 0 {
		t.Fatalf("a new vault's head is %d", head)
	}
	if _, err := other.ReadFile(ctx, "a.md"); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Fatalf("another vault's file: %v", err)
	}
	c := write(t, other, "a.md", "home", noema.Absent)
	if c.Seq != 1 {
		t.Fatalf("the second vault's first change is numbered %d", c.Seq)
	}
	if f, _ := s.ReadFile(ctx, "a.md"); f == nil || string(f.Data) != "2" {
		t.Fatalf("the first vault's file after the second wrote its own: %+v", f)
	}
	for _, bad := range []string{"", " ", "a\tb"} {
		if _, err := s.db.Vault(ctx, bad); noema.ErrorCode(err) != noema.EINVALID {
			t.Errorf("vault %q: %v", bad, err)
		}
	}
}

// TestOneOfTwoEditsWins: two writers that read the same version and both
// replace it at once — exactly one succeeds and the other sees
// checksum_mismatch, over 100 pairs.
func TestOneOfTwoEditsWins(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, "work")
	data := "v0"
	write(t, s, "n.md", data, noema.Absent)
	for round := range 100 {
		before := noema.Checksum([]byte(data))
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[w] = s.WriteFile(ctx, "n.md", fmt.Appendf(nil, "r%d w%d", round, w), before)
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
		f, err := s.ReadFile(ctx, "n.md")
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("r%d w%d", round, won); string(f.Data) != want {
			t.Fatalf("round %d: the file holds %q, the winner wrote %q", round, f.Data, want)
		}
		data = string(f.Data)
	}
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
		write(t, s, fmt.Sprintf("n%d.md", i), "x", noema.Absent)
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
	write(t, s, "after-kill.md", "x", noema.Absent)
	wctx, cancel := context.WithTimeout(ctx, 3*PollInterval)
	defer cancel()
	if seq, err := o.Wait(wctx, 20); err != nil || seq != 21 {
		t.Fatalf("after the listener was killed: %d %v", seq, err)
	}
}

func TestAccessLog(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, "work")
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	in := []noema.Access{{Path: "a.md", At: at, Server: "one"}, {Path: "b.md", At: at.Add(time.Second), Server: "two"}}
	if err := s.RecordAccesses(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordAccesses(ctx, in[:1]); err != nil {
		t.Fatal(err)
	}
	got, err := s.AccessesSince(ctx, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Path != "a.md" || !got[1].At.Equal(in[1].At) || got[1].Server != "two" || got[2].ID <= got[1].ID {
		t.Fatalf("accesses: %+v", got)
	}
	rest, err := s.AccessesSince(ctx, got[0].ID, 1)
	if err != nil || len(rest) != 1 || rest[0].ID != got[1].ID {
		t.Fatalf("a page after the first: %+v %v", rest, err)
	}
	other, err := s.db.Vault(ctx, "home")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := other.AccessesSince(ctx, 0, 10); len(got) != 0 {
		t.Fatalf("another vault's accesses: %+v", got)
	}
}

// TestOperationLog runs the conformance suite of noema.OperationLog, which
// the folder's log runs too.
func TestOperationLog(t *testing.T) {
	storetest.RunOperationLog(t, func(t *testing.T, limits noema.OperationLimits) storetest.OperationStore {
		s := newStore(t, "work")
		s.OperationLimits = limits
		return s
	})
}

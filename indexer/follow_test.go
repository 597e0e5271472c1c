package indexer_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/vault"
)

// countingStore counts the files a follower reads from its store.
type countingStore struct {
	noema.Store
	reads atomic.Int64
}

func (s *countingStore) ReadFile(ctx context.Context, path string) (*noema.File, error) {
	s.reads.Add(1)
	return s.Store.ReadFile(ctx, path)
}

// TestFollowerLeavesOwnWritesAlone: the changes a working copy's own
// Writer makes come back through the feed as changes the folder holds —
// the follower reads none of them from the store. (Before it read the
// folder's checksum without the write lock and so, for a write whose
// store call had returned but whose file was not yet in the folder, read
// the file from the store and applied a changeset bound to fail: 47 of
// 120 writes in one run.)
func TestFollowerLeavesOwnWritesAlone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	upVault, err := vault.Open(filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	up := &countingStore{Store: upVault.Store()}
	ix := open(t, filepath.Join(t.TempDir(), "copy"))
	f := indexer.NewFollower(ix, up, "test store")
	ix.Vault.SetUpstream(up, f.Behind)
	if err := f.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	const writes = 60
	for i := range writes {
		err := ix.Vault.Locked(ctx, func(w *vault.Writer) error {
			return w.WriteFile(fmt.Sprintf("n%d.md", i), fmt.Appendf(nil, "# Note %d\n", i), false)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	head, err := up.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); f.State().Seq < head; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the follower is at %d of %d after 10 s", f.State().Seq, head)
		}
	}
	if n := up.reads.Load(); n != 0 {
		t.Fatalf("the follower read %d of this server's own %d writes back from the store", n, writes)
	}
	cancel()
	<-done
}

// TestFollowerLeavesOwnRewritesAlone: this server rewrites one note many
// times; the feed names it at versions the folder has already passed, and
// the store holds what the folder holds. The follower must change nothing
// — before, it planned a change from the folder's version to the same
// bytes, which failed whenever the next rewrite came first, and after
// three such failures it paused following with a growing backoff (up to
// 10 s) while other servers' writes waited.
func TestFollowerLeavesOwnRewritesAlone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	upVault, err := vault.Open(filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	up := slowFeed{upVault.Store()}
	ix := open(t, filepath.Join(t.TempDir(), "copy"))
	f := indexer.NewFollower(ix, up, "test store")
	ix.Vault.SetUpstream(up, f.Behind)
	var written atomic.Int64 // writes of a file's new bytes in the folder
	ix.Vault.WriteFault = func(string) error { written.Add(1); return nil }
	if err := f.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	const writes = 200
	content := []byte("# Rewritten\n")
	if err := ix.Vault.Locked(ctx, func(w *vault.Writer) error { return w.WriteFile("n.md", content, false) }); err != nil {
		t.Fatal(err)
	}
	for i := range writes {
		next := fmt.Appendf(bytes.Clone(content), "line %d\n", i)
		if err := ix.Vault.Locked(ctx, func(w *vault.Writer) error { return w.ReplaceFile("n.md", content, next) }); err != nil {
			t.Fatal(err)
		}
		content = next
	}
	head, err := up.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); f.State().Seq < head; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the follower is at %d of %d after 10 s", f.State().Seq, head)
		}
	}
	if n := written.Load(); n != writes+1 {
		t.Fatalf("the folder's file was written %d times for this server's %d writes: the follower wrote it %d times", n, writes+1, n-writes-1)
	}
	cancel()
	<-done
}

// slowFeed answers ChangesSince after a pause, as a database across a
// network does: this server's next write comes meanwhile.
type slowFeed struct{ noema.Store }

func (s slowFeed) ChangesSince(ctx context.Context, since int64, limit int) ([]noema.Change, error) {
	changes, err := s.Store.ChangesSince(ctx, since, limit)
	time.Sleep(3 * time.Millisecond)
	return changes, err
}

// TestFollowerRetriesLosingToLocalWriters: while the follower brings
// another server's change of a file, this server's own writers change that
// file first, again and again. That is no failure of the store: the
// follower tries again at once instead of pausing as for an unreachable
// store (200 ms doubling), so the other server's change arrives as soon
// as the local writers let it — before, four lost rounds cost 3 s.
func TestFollowerRetriesLosingToLocalWriters(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	upVault, err := vault.Open(filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	ix := open(t, filepath.Join(t.TempDir(), "copy"))
	up := &racingStore{Store: upVault.Store(), local: ix.Vault, losses: 16}
	f := indexer.NewFollower(ix, up, "test store")
	ix.Vault.SetUpstream(up, f.Behind)
	if err := ix.Vault.Locked(ctx, func(w *vault.Writer) error { return w.WriteFile("n.md", []byte("# N\n"), false) }); err != nil {
		t.Fatal(err)
	}
	if err := f.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	// Another server's change, which the folder must follow.
	if _, err := upVault.Store().WriteFile(ctx, "n.md", []byte("# N\nanother server\n"), noema.Checksum([]byte("# N\n"))); err != nil {
		t.Fatal(err)
	}
	up.racing.Store(true)
	began := time.Now()
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	for {
		data, _, err := ix.Vault.ReadFile("n.md")
		if err == nil && string(data) == "# N\nanother server\n" {
			break
		}
		if time.Since(began) > 10*time.Second {
			t.Fatal("the other server's change did not arrive within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if took := time.Since(began); took > time.Second {
		t.Fatalf("the other server's change arrived after %v: the follower paused as for an unreachable store", took)
	}
	cancel()
	<-done
}

// racingStore stands for this server's writers winning the race with the
// follower: for the first losses reads of a file's bytes, it changes that
// file in the folder (the folder only) before it answers.
type racingStore struct {
	noema.Store
	local  *vault.Vault
	racing atomic.Bool
	losses int
	n      atomic.Int64
}

func (s *racingStore) ReadFile(ctx context.Context, path string) (*noema.File, error) {
	if s.racing.Load() && s.n.Add(1) <= int64(s.losses) {
		err := s.local.LockedLocal(ctx, func(w *vault.Writer) error {
			cur, _, err := s.local.ReadFile(path)
			if err != nil {
				return err
			}
			return w.ReplaceFile(path, cur, fmt.Appendf(bytes.Clone(cur), "local %d\n", s.n.Load()))
		})
		if err != nil {
			return nil, err
		}
	}
	return s.Store.ReadFile(ctx, path)
}

// TestFollowerIndexesWhatARefusedWriteBroughtIn: a write planned on a
// folder that had not yet followed the store is refused by the store; the
// vault brings the store's version into the folder (its refresh) and runs
// the write again, which now fails its own check — so nothing indexes the
// version the folder took, and when the follower later meets the store's
// change in the feed the folder already holds it. The follower must index
// it: before, the index kept the older version until the next restart (the
// team soak: a restarted server's index one version behind its folder).
func TestFollowerIndexesWhatARefusedWriteBroughtIn(t *testing.T) {
	ctx := context.Background()
	upVault, err := vault.Open(filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	up := upVault.Store()
	dir := filepath.Join(t.TempDir(), "copy")
	ix := open(t, dir)
	f := indexer.NewFollower(ix, up, "test store")
	ix.Vault.SetUpstream(up, f.Behind)
	if err := f.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	v1 := []byte("version 1 [[One]]\n")
	if err := ix.Vault.Locked(ctx, func(w *vault.Writer) error { return w.WriteFile("n.md", v1, false) }); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.SyncPaths(ctx, []string{"n.md"}, ""); err != nil {
		t.Fatal(err)
	}
	if err := f.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	// Another server changes the note in the store; this folder has not
	// followed yet.
	v2 := []byte("version 2 [[Two]]\n")
	if err := upVault.Locked(ctx, func(w *vault.Writer) error { return w.ReplaceFile("n.md", v1, v2) }); err != nil {
		t.Fatal(err)
	}
	// This server's edit expects version 1: refused, after the folder took
	// version 2.
	err = ix.Vault.Locked(ctx, func(w *vault.Writer) error {
		return w.ReplaceFile("n.md", v1, []byte("version 3 [[Three]]\n"))
	})
	if noema.ErrorCode(err) != noema.ECHECKSUM {
		t.Fatalf("an edit expecting the folder's older version: %v, want checksum_mismatch", err)
	}
	if got, _ := ix.Vault.FileChecksum("n.md"); got != noema.Checksum(v2) {
		t.Fatalf("the folder holds %s after the refused edit, want the store's version 2", got)
	}
	if err := f.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if got := indexedMentions(t, ix); len(got) != 1 || got["two"] != 1 {
		t.Errorf("mentions once the follower caught up: %v, want version 2's [[Two]] only", got)
	}
}

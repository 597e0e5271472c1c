package vault

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/noema-mem/noema"
)

func openStore(t *testing.T, dir string) *Store {
	t.Helper()
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return v.Store()
}

func since(t *testing.T, s *Store, n int64) []noema.Change {
	t.Helper()
	out, err := s.ChangesSince(context.Background(), n, 0)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFeedAcrossProcesses: a second Vault of the same folder (another
// process) reads what the first recorded, numbers after it, and its Wait
// wakes for the first's writes.
func TestFeedAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := openStore(t, dir), openStore(t, dir)
	c1, err := a.WriteFile(ctx, "a.md", []byte("a"), noema.Absent)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := b.WriteFile(ctx, "b.md", []byte("b"), noema.Absent)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Seq != c1.Seq+1 {
		t.Errorf("second process numbered %d after %d", c2.Seq, c1.Seq)
	}
	if got := since(t, a, 0); len(got) != 2 || got[1] != c2 {
		t.Errorf("first process reads %+v", got)
	}
	woke := make(chan int64, 1)
	go func() {
		h, _ := b.Wait(ctx, c2.Seq)
		woke <- h
	}()
	c3, err := a.WriteFile(ctx, "a.md", []byte("a2"), noema.Checksum([]byte("a")))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case h := <-woke:
		if h != c3.Seq {
			t.Errorf("Wait returned %d, want %d", h, c3.Seq)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the other process's Wait never woke")
	}
}

// TestFeedTornRecord: a record a crash cut short is dropped, and the next
// record starts on a line of its own.
func TestFeedTornRecord(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, dir)
	c1, err := s.WriteFile(ctx, "a.md", []byte("a"), noema.Absent)
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, ".noema", FeedFile)
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"seq":99,"path":"torn`)
	f.Close()
	s = openStore(t, dir) // a new process
	c2, err := s.WriteFile(ctx, "b.md", []byte("b"), noema.Absent)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Seq != c1.Seq+1 {
		t.Errorf("numbered %d after %d", c2.Seq, c1.Seq)
	}
	if got := since(t, openStore(t, dir), 0); len(got) != 2 || got[0] != c1 || got[1] != c2 {
		t.Errorf("log reads %+v", got)
	}
}

// TestFeedFolds: a log past twice its paths keeps each path's latest
// change, and still answers since its base.
func TestFeedFolds(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir())
	old := []byte("0")
	var first noema.Change
	for i := 1; i <= 1100; i++ {
		data := []byte(strconv.Itoa(i))
		c, err := s.WriteFile(ctx, "a.md", data, expectOf(i, old))
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			first = c
		}
		old = data
	}
	if _, err := s.WriteFile(ctx, "b.md", []byte("b"), noema.Absent); err != nil {
		t.Fatal(err)
	}
	got := since(t, s, first.Seq-1)
	if len(got) > 1050 {
		t.Errorf("log not folded: %d entries", len(got))
	}
	last := got[len(got)-1]
	if last.Path != "b.md" || got[len(got)-2].Path != "a.md" || got[len(got)-2].Checksum != noema.Checksum(old) {
		t.Errorf("latest entries %+v", got[len(got)-2:])
	}
}

// expectOf is noema.Absent for the first write, else old's checksum.
func expectOf(i int, old []byte) string {
	if i == 1 {
		return noema.Absent
	}
	return noema.Checksum(old)
}

// TestFeedRecordsWriterAndRecovery: what a Writer changes is in the feed,
// and so is a changeset that Recover finishes after a crash (and nothing
// of one rolled back in the process that failed).
func TestFeedRecordsWriterAndRecovery(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = v.Locked(ctx, func(w *Writer) error {
		if err := w.WriteFile("a.md", []byte("a"), false); err != nil {
			return err
		}
		return w.Rename("a.md", "b.md")
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []noema.Change{writeChange("a.md", []byte("a")), deleteChange("a.md"), writeChange("b.md", []byte("a"))}
	got := since(t, v.Store(), 0)
	if len(got) != len(want) {
		t.Fatalf("feed %+v", got)
	}
	for i := range got {
		if got[i].Seq = 0; got[i] != want[i] {
			t.Errorf("change %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	head, err := v.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v.FaultHook = func(i int) error {
		if i == 1 {
			return os.ErrDeadlineExceeded // a crash after the first rename
		}
		return nil
	}
	cs := &noema.Changeset{}
	cs.Replace("b.md", []byte("a"), []byte("b"))
	cs.Create("c.md", []byte("c"))
	if err := v.Locked(ctx, func(w *Writer) error { return w.Apply(ctx, cs) }); err == nil {
		t.Fatal("the crash did not stop Apply")
	}
	if got := since(t, v.Store(), head); len(got) != 0 {
		t.Errorf("an unfinished changeset is in the feed: %+v", got)
	}
	v2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := v2.Recover(ctx); err != nil || rec == nil || rec.Action != RolledForward {
		t.Fatalf("Recover = %+v, %v", rec, err)
	}
	got = since(t, v2.Store(), head)
	if len(got) != 2 || got[0].Path != "b.md" || got[0].Checksum != noema.Checksum([]byte("b")) || got[1].Path != "c.md" {
		t.Errorf("recovered changes in the feed: %+v", got)
	}
}

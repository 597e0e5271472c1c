package vault_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// workingCopy returns a vault that is the working copy of another folder
// store (standing in for a team's database), that store, and the paths the
// Behind callback heard of.
func workingCopy(t *testing.T) (*vault.Vault, *vault.Vault, *[]string) {
	t.Helper()
	wc, err := vault.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	up, err := vault.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var behind []string
	wc.SetUpstream(up.Store(), func(paths []string, err error) { behind = append(behind, paths...) })
	return wc, up, &behind
}

func fileIs(t *testing.T, v *vault.Vault, rel, want string) {
	t.Helper()
	data, _, err := v.ReadFile(rel)
	switch {
	case want == "" && noema.ErrorCode(err) == noema.ENOTFOUND:
	case err != nil:
		t.Fatalf("%s in %s: %v", rel, v.Root, err)
	case string(data) != want:
		t.Fatalf("%s in %s holds %q, want %q", rel, v.Root, data, want)
	}
}

func TestWorkingCopyWritesUpstreamFirst(t *testing.T) {
	ctx := context.Background()
	wc, up, behind := workingCopy(t)
	lock := func(fn func(w *vault.Writer) error) error { return wc.Locked(ctx, fn) }

	// Each kind of change reaches the upstream and the folder.
	if err := lock(func(w *vault.Writer) error { return w.WriteFile("a.md", []byte("a1"), false) }); err != nil {
		t.Fatal(err)
	}
	fileIs(t, up, "a.md", "a1")
	fileIs(t, wc, "a.md", "a1")
	if err := lock(func(w *vault.Writer) error { return w.ReplaceFile("a.md", []byte("a1"), []byte("a2")) }); err != nil {
		t.Fatal(err)
	}
	if err := lock(func(w *vault.Writer) error { return w.Rename("a.md", "f/b.md") }); err != nil {
		t.Fatal(err)
	}
	fileIs(t, up, "a.md", "")
	fileIs(t, up, "f/b.md", "a2")
	fileIs(t, wc, "f/b.md", "a2")
	cs := &noema.Changeset{}
	cs.Replace("f/b.md", []byte("a2"), []byte("b3"))
	cs.Create("c.md", []byte("c1"))
	if err := lock(func(w *vault.Writer) error { return w.Apply(ctx, cs) }); err != nil {
		t.Fatal(err)
	}
	fileIs(t, up, "f/b.md", "b3")
	fileIs(t, up, "c.md", "c1")
	if err := lock(func(w *vault.Writer) error { return w.Remove("c.md") }); err != nil {
		t.Fatal(err)
	}
	fileIs(t, up, "c.md", "")
	fileIs(t, wc, "c.md", "")

	// Another server changed the file first: the compare happens upstream,
	// and neither store changes.
	if _, err := up.Store().WriteFile(ctx, "f/b.md", []byte("theirs"), noema.Checksum([]byte("b3"))); err != nil {
		t.Fatal(err)
	}
	err := lock(func(w *vault.Writer) error { return w.ReplaceFile("f/b.md", []byte("b3"), []byte("mine")) })
	if noema.ErrorCode(err) != noema.ECHECKSUM {
		t.Fatalf("an edit of a version another server replaced: %v", err)
	}
	stale := &noema.Changeset{}
	stale.Replace("f/b.md", []byte("b3"), []byte("mine"))
	stale.Create("d.md", []byte("d"))
	err = lock(func(w *vault.Writer) error { return w.Apply(ctx, stale) })
	if noema.ErrorCode(err) != noema.ECHECKSUM {
		t.Fatalf("a changeset planned from a replaced version: %v", err)
	}
	fileIs(t, up, "f/b.md", "theirs")
	fileIs(t, up, "d.md", "")
	// The refusal brought the folder up to the upstream's version
	// (TestWorkingCopyBehindItsUpstream).
	fileIs(t, wc, "f/b.md", "theirs")
	fileIs(t, wc, "d.md", "")
	if err := lock(func(w *vault.Writer) error { return w.WriteFile("x.md", []byte("x"), false) }); err != nil {
		t.Fatal(err)
	}
	if _, err := up.Store().WriteFile(ctx, "y.md", []byte("taken upstream"), noema.Absent); err != nil {
		t.Fatal(err)
	}
	err = lock(func(w *vault.Writer) error { return w.WriteFile("y.md", []byte("mine"), false) })
	if noema.ErrorCode(err) != noema.ECONFLICT {
		t.Fatalf("a creation of a path another server took: %v", err)
	}
	fileIs(t, wc, "y.md", "")

	// What brings the folder up to date writes the folder only.
	if err := wc.LockedLocal(ctx, func(w *vault.Writer) error { return w.ReplaceFile("f/b.md", []byte("theirs"), []byte("local")) }); err != nil {
		t.Fatal(err)
	}
	fileIs(t, wc, "f/b.md", "local")
	fileIs(t, up, "f/b.md", "theirs")
	if len(*behind) != 0 {
		t.Fatalf("behind heard of %v", *behind)
	}
}

// TestWorkingCopyFailureAfterUpstream: a change the upstream made is a
// change made; the folder's failure to take it goes to Behind.
func TestWorkingCopyFailureAfterUpstream(t *testing.T) {
	ctx := context.Background()
	wc, up, behind := workingCopy(t)
	wc.WriteFault = func(string) error { return syscall.ENOSPC }
	if err := wc.Locked(ctx, func(w *vault.Writer) error { return w.WriteFile("a.md", []byte("a"), false) }); err != nil {
		t.Fatalf("a write the upstream took reported %v", err)
	}
	fileIs(t, up, "a.md", "a")
	fileIs(t, wc, "a.md", "")
	if !slices.Equal(*behind, []string{"a.md"}) {
		t.Fatalf("behind heard of %v", *behind)
	}
	// A changeset stages its files in the folder before it goes upstream:
	// a full disk then stops it before anything is written anywhere.
	cs := &noema.Changeset{}
	cs.Create("b.md", []byte("b"))
	err := wc.Locked(ctx, func(w *vault.Writer) error { return w.Apply(ctx, cs) })
	if noema.ErrorCode(err) != noema.ENOSPACE {
		t.Fatalf("a changeset on a full disk: %v", err)
	}
	fileIs(t, up, "b.md", "")
	// Nothing was left behind in the folder but the journal-free state.
	if _, err := os.Stat(filepath.Join(wc.Root, ".noema", vault.JournalFile)); err == nil {
		t.Fatal("a journal was left")
	}
}

// TestWorkingCopyBehindItsUpstream: a folder that has not yet followed
// another server's change of a file. A read-modify-write that expected
// nothing (an append) succeeds on the upstream's version, as it would in a
// folder of its own; one that expected the version it read still fails;
// a function that already changed something is not run again.
func TestWorkingCopyBehindItsUpstream(t *testing.T) {
	ctx := context.Background()
	wc, up, behind := workingCopy(t)
	if err := wc.Locked(ctx, func(w *vault.Writer) error { return w.WriteFile("n.md", []byte("1\n"), false) }); err != nil {
		t.Fatal(err)
	}
	other := func(from, to string) { // another server's write, not yet followed
		t.Helper()
		if _, err := up.Store().WriteFile(ctx, "n.md", []byte(to), noema.Checksum([]byte(from))); err != nil {
			t.Fatal(err)
		}
	}
	// edit appends line to n.md as the folder holds it, failing as
	// notes' edits do when the caller expected another checksum.
	runs := 0
	edit := func(line, expect string) func(w *vault.Writer) error {
		return func(w *vault.Writer) error {
			runs++
			old, _, err := wc.ReadFile("n.md")
			if err != nil {
				return err
			}
			if expect != "" && expect != noema.Checksum(old) {
				return noema.Errorf(noema.ECHECKSUM, "n.md changed since it was read")
			}
			return w.ReplaceFile("n.md", old, append(old, line...))
		}
	}

	other("1\n", "1\n2\n")
	if err := wc.Locked(ctx, edit("3\n", "")); err != nil {
		t.Fatalf("an append to a file another server changed a moment ago: %v", err)
	}
	fileIs(t, up, "n.md", "1\n2\n3\n")
	fileIs(t, wc, "n.md", "1\n2\n3\n")
	if runs != 2 {
		t.Fatalf("the edit ran %d times, want 2", runs)
	}

	read := noema.Checksum([]byte("1\n2\n3\n"))
	other("1\n2\n3\n", "1\n2\n3\n4\n")
	err := wc.Locked(ctx, edit("5\n", read))
	if noema.ErrorCode(err) != noema.ECHECKSUM {
		t.Fatalf("an edit of the version read, which another server replaced: %v", err)
	}
	fileIs(t, up, "n.md", "1\n2\n3\n4\n")
	fileIs(t, wc, "n.md", "1\n2\n3\n4\n")

	runs = 0
	other("1\n2\n3\n4\n", "1\n2\n3\n4\n6\n")
	err = wc.Locked(ctx, func(w *vault.Writer) error {
		if err := w.WriteFile(fmt.Sprintf("first-%d.md", runs), []byte("x"), false); err != nil {
			return err
		}
		return edit("7\n", "")(w)
	})
	if noema.ErrorCode(err) != noema.ECHECKSUM || runs != 1 {
		t.Fatalf("a function that wrote before it met a replaced version: %v, ran %d times", err, runs)
	}
	fileIs(t, up, "first-0.md", "x")
	fileIs(t, up, "first-1.md", "")
	if len(*behind) != 0 {
		t.Fatalf("behind heard of %v", *behind)
	}
}

// TestSyncFS: the one sync a working copy's follower makes before it
// records its place in the feed succeeds on the vault's folder.
func TestSyncFS(t *testing.T) {
	v, err := vault.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := v.SyncFS(); err != nil {
		t.Fatal(err)
	}
}

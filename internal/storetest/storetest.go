// Package storetest is the conformance suite of [noema.Store]: every
// promise of the port, as a test any store runs against itself. The folder
// store (package vault) runs it; a database store runs the same.
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) noema.Store { return open(t) })
//	}
//
// newStore must return an empty store of its own for each call.
package storetest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/noema-mem/noema"
)

// Run runs the suite, each promise a subtest on a new store.
func Run(t *testing.T, newStore func(t *testing.T) noema.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s noema.Store)
	}{
		{"ReadMissing", readMissing},
		{"CreateOnly", createOnly},
		{"CompareAndSwap", compareAndSwap},
		{"Delete", deleteFile},
		{"Move", move},
		{"List", list},
		{"ChangesetAllOrNothing", changesetAllOrNothing},
		{"ChangesetConflictAbortsAll", changesetConflict},
		{"ChangesetInvalid", changesetInvalid},
		{"FeedOrder", feedOrder},
		{"FeedSince", feedSince},
		{"FeedWait", feedWait},
		{"BadPaths", badPaths},
		{"DoneContext", doneContext},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

var ctx = context.Background()

// wantCode fails t unless err carries code.
func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := noema.ErrorCode(err); got != code {
		t.Errorf("%s: error %v (code %q), want %q", what, err, got, code)
	}
}

// ok fails t now on an error.
func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func okWrite(t *testing.T, s noema.Store, path string, data []byte, expect string) noema.Change {
	t.Helper()
	c, err := s.WriteFile(ctx, path, data, expect)
	ok(t, err)
	return c
}

func okDelete(t *testing.T, s noema.Store, path, expect string) noema.Change {
	t.Helper()
	c, err := s.DeleteFile(ctx, path, expect)
	ok(t, err)
	return c
}

func okMove(t *testing.T, s noema.Store, from, to, expect string) []noema.Change {
	t.Helper()
	c, err := s.MoveFile(ctx, from, to, expect)
	ok(t, err)
	return c
}

func okApply(t *testing.T, s noema.Store, cs *noema.Changeset) []noema.Change {
	t.Helper()
	c, err := s.ApplyChangeset(ctx, cs)
	ok(t, err)
	return c
}

func okSince(t *testing.T, s noema.Store, since int64, limit int) []noema.Change {
	t.Helper()
	c, err := s.ChangesSince(ctx, since, limit)
	ok(t, err)
	return c
}

func okHead(t *testing.T, s noema.Store) int64 {
	t.Helper()
	h, err := s.Head(ctx)
	ok(t, err)
	return h
}

// content fails t unless the file at path holds want.
func content(t *testing.T, s noema.Store, path, want string) {
	t.Helper()
	f, err := s.ReadFile(ctx, path)
	if err != nil {
		t.Errorf("read %s: %v, want %q", path, err, want)
		return
	}
	if string(f.Data) != want || f.Checksum != noema.Checksum([]byte(want)) || f.Path != path || f.Size != int64(len(want)) {
		t.Errorf("read %s = %q (path %q, size %d, checksum %s), want %q", path, f.Data, f.Path, f.Size, f.Checksum, want)
	}
}

// absent fails t unless there is no file at path.
func absent(t *testing.T, s noema.Store, path string) {
	t.Helper()
	_, err := s.ReadFile(ctx, path)
	wantCode(t, "read "+path, err, noema.ENOTFOUND)
}

// currentChecksum is the "checksum" detail of a coded error.
func currentChecksum(err error) any {
	if e, ok := errors.AsType[*noema.Error](err); ok {
		return e.Details["checksum"]
	}
	return nil
}

func sum(s string) string { return noema.Checksum([]byte(s)) }

func readMissing(t *testing.T, s noema.Store) {
	absent(t, s, "nothing.md")
	absent(t, s, "no/such/folder.md")
}

func createOnly(t *testing.T, s noema.Store) {
	c := okWrite(t, s, "deep/folder/a.md", []byte("one"), noema.Absent)
	if c.Path != "deep/folder/a.md" || c.Kind != noema.ChangeWrite || c.Checksum != sum("one") {
		t.Errorf("change = %+v", c)
	}
	content(t, s, "deep/folder/a.md", "one")
	_, err := s.WriteFile(ctx, "deep/folder/a.md", []byte("two"), noema.Absent)
	wantCode(t, "create over an existing file", err, noema.ECONFLICT)
	content(t, s, "deep/folder/a.md", "one")
	okWrite(t, s, "empty.md", nil, noema.Absent)
	content(t, s, "empty.md", "")
}

func compareAndSwap(t *testing.T, s noema.Store) {
	okWrite(t, s, "a.md", []byte("one"), noema.Absent)
	c := okWrite(t, s, "a.md", []byte("two"), sum("one"))
	if c.Checksum != sum("two") || c.Kind != noema.ChangeWrite {
		t.Errorf("change = %+v", c)
	}
	content(t, s, "a.md", "two")
	// Of two writers that read "two", exactly one wins.
	_, err1 := s.WriteFile(ctx, "a.md", []byte("three"), sum("two"))
	_, err2 := s.WriteFile(ctx, "a.md", []byte("four"), sum("two"))
	if err1 != nil {
		t.Fatal(err1)
	}
	wantCode(t, "stale write", err2, noema.ECHECKSUM)
	if got := currentChecksum(err2); got != sum("three") {
		t.Errorf("stale write's checksum detail = %v, want the current %s", got, sum("three"))
	}
	content(t, s, "a.md", "three")
	// A file that is gone is not as expected either.
	_, err := s.WriteFile(ctx, "gone.md", []byte("x"), sum("x"))
	wantCode(t, "write expecting a missing file", err, noema.ECHECKSUM)
	if got := currentChecksum(err); got != noema.Absent {
		t.Errorf("missing file's checksum detail = %v, want %s", got, noema.Absent)
	}
	absent(t, s, "gone.md")
	_, err = s.WriteFile(ctx, "a.md", []byte("x"), "")
	wantCode(t, "write expecting nothing", err, noema.EINVALID)
	content(t, s, "a.md", "three")
}

func deleteFile(t *testing.T, s noema.Store) {
	okWrite(t, s, "a.md", []byte("one"), noema.Absent)
	_, err := s.DeleteFile(ctx, "a.md", sum("other"))
	wantCode(t, "stale delete", err, noema.ECHECKSUM)
	content(t, s, "a.md", "one")
	c := okDelete(t, s, "a.md", sum("one"))
	if c.Path != "a.md" || c.Kind != noema.ChangeDelete || c.Checksum != noema.Absent {
		t.Errorf("change = %+v", c)
	}
	absent(t, s, "a.md")
	_, err = s.DeleteFile(ctx, "a.md", sum("one"))
	wantCode(t, "delete of a missing file", err, noema.ECHECKSUM)
	// Created again after its deletion.
	okWrite(t, s, "a.md", []byte("again"), noema.Absent)
	content(t, s, "a.md", "again")
}

func move(t *testing.T, s noema.Store) {
	okWrite(t, s, "a.md", []byte("one"), noema.Absent)
	okWrite(t, s, "b.md", []byte("two"), noema.Absent)
	_, err := s.MoveFile(ctx, "a.md", "b.md", sum("one"))
	wantCode(t, "move onto a taken path", err, noema.ECONFLICT)
	_, err = s.MoveFile(ctx, "a.md", "c.md", sum("two"))
	wantCode(t, "stale move", err, noema.ECHECKSUM)
	_, err = s.MoveFile(ctx, "a.md", "a.md", sum("one"))
	wantCode(t, "move onto itself", err, noema.EINVALID)
	content(t, s, "a.md", "one")
	content(t, s, "b.md", "two")
	absent(t, s, "c.md")
	changes := okMove(t, s, "a.md", "new/folder/c.md", sum("one"))
	absent(t, s, "a.md")
	content(t, s, "new/folder/c.md", "one")
	last := latest(changes)
	if want := map[string]noema.Change{
		"a.md":            {Path: "a.md", Kind: noema.ChangeDelete, Checksum: noema.Absent},
		"new/folder/c.md": {Path: "new/folder/c.md", Kind: noema.ChangeWrite, Checksum: sum("one")},
	}; !maps.Equal(last, want) {
		t.Errorf("move's changes = %+v", changes)
	}
	_, err = s.MoveFile(ctx, "a.md", "d.md", sum("one"))
	wantCode(t, "move of a missing file", err, noema.ECHECKSUM)
}

// latest is each path's last change, without sequence numbers.
func latest(changes []noema.Change) map[string]noema.Change {
	out := map[string]noema.Change{}
	for _, c := range changes {
		c.Seq = 0
		out[c.Path] = c
	}
	return out
}

// files lists s as path -> size.
func files(t *testing.T, s noema.Store) ([]string, map[string]int64) {
	t.Helper()
	var paths []string
	sizes := map[string]int64{}
	err := s.ListFiles(ctx, func(f noema.FileInfo) error {
		paths = append(paths, f.Path)
		sizes[f.Path] = f.Size
		if f.Modified.IsZero() {
			t.Errorf("%s has no modification time", f.Path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths, sizes
}

func list(t *testing.T, s noema.Store) {
	if paths, _ := files(t, s); len(paths) != 0 {
		t.Errorf("empty store lists %v", paths)
	}
	for _, p := range []string{"b.md", "a/z.md", "a.md", "a b.md", "c/d/e.md"} {
		okWrite(t, s, p, []byte(p), noema.Absent)
	}
	okDelete(t, s, "b.md", sum("b.md"))
	paths, sizes := files(t, s)
	want := []string{"a b.md", "a.md", "a/z.md", "c/d/e.md"}
	if !slices.Equal(paths, want) {
		t.Errorf("ListFiles = %v, want %v (byte-wise path order)", paths, want)
	}
	if sizes["c/d/e.md"] != int64(len("c/d/e.md")) {
		t.Errorf("sizes = %v", sizes)
	}
	stop := errors.New("stop")
	n := 0
	err := s.ListFiles(ctx, func(noema.FileInfo) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("ListFiles stopped by fn: %v after %d files", err, n)
	}
}

// seed writes a.md, b.md and c.md.
func seed(t *testing.T, s noema.Store) {
	t.Helper()
	for _, p := range []string{"a.md", "b.md", "c.md"} {
		okWrite(t, s, p, []byte(p), noema.Absent)
	}
}

func changesetAllOrNothing(t *testing.T, s noema.Store) {
	seed(t, s)
	cs := &noema.Changeset{}
	cs.Replace("a.md", []byte("a.md"), []byte("A"))
	cs.Remove("b.md", []byte("b.md"))
	cs.Create("new/d.md", []byte("D"))
	changes := okApply(t, s, cs)
	content(t, s, "a.md", "A")
	absent(t, s, "b.md")
	content(t, s, "c.md", "c.md")
	content(t, s, "new/d.md", "D")
	want := []noema.Change{
		{Path: "a.md", Kind: noema.ChangeWrite, Checksum: sum("A")},
		{Path: "b.md", Kind: noema.ChangeDelete, Checksum: noema.Absent},
		{Path: "new/d.md", Kind: noema.ChangeWrite, Checksum: sum("D")},
	}
	if len(changes) != len(want) {
		t.Fatalf("changes = %+v", changes)
	}
	for i, c := range changes {
		if i > 0 && c.Seq <= changes[i-1].Seq {
			t.Errorf("sequence numbers not increasing: %+v", changes)
		}
		c.Seq = 0
		if c != want[i] {
			t.Errorf("change %d = %+v, want %+v (plan order)", i, c, want[i])
		}
	}
	if got := okApply(t, s, &noema.Changeset{}); len(got) != 0 {
		t.Errorf("empty changeset: %+v", got)
	}
}

func changesetConflict(t *testing.T, s noema.Store) {
	seed(t, s)
	head := okHead(t, s)
	for _, tc := range []struct {
		name string
		plan func(cs *noema.Changeset)
		path string
	}{
		{"a stale file last", func(cs *noema.Changeset) {
			cs.Replace("a.md", []byte("a.md"), []byte("A"))
			cs.Create("new.md", []byte("N"))
			cs.Replace("c.md", []byte("stale"), []byte("C"))
		}, "c.md"},
		{"a creation over a file", func(cs *noema.Changeset) {
			cs.Remove("a.md", []byte("a.md"))
			cs.Create("b.md", []byte("B"))
		}, "b.md"},
		{"a deletion of a missing file", func(cs *noema.Changeset) {
			cs.Replace("a.md", []byte("a.md"), []byte("A"))
			cs.Remove("gone.md", []byte("gone"))
		}, "gone.md"},
	} {
		cs := &noema.Changeset{}
		tc.plan(cs)
		_, err := s.ApplyChangeset(ctx, cs)
		wantCode(t, tc.name, err, noema.ECHECKSUM)
		if e, ok := errors.AsType[*noema.Error](err); ok && e.Details["path"] != tc.path {
			t.Errorf("%s: details %v, want path %s", tc.name, e.Details, tc.path)
		}
		content(t, s, "a.md", "a.md")
		content(t, s, "b.md", "b.md")
		content(t, s, "c.md", "c.md")
		absent(t, s, "new.md")
	}
	if got := okSince(t, s, head, 0); len(got) != 0 {
		t.Errorf("failed changesets recorded changes: %+v", got)
	}
}

func changesetInvalid(t *testing.T, s noema.Store) {
	seed(t, s)
	twice := &noema.Changeset{}
	twice.Replace("a.md", []byte("a.md"), []byte("1"))
	twice.Replace("a.md", []byte("a.md"), []byte("2"))
	_, err := s.ApplyChangeset(ctx, twice)
	wantCode(t, "a path listed twice", err, noema.EINVALID)
	absentDelete := &noema.Changeset{Changes: []noema.FileChange{{Path: "a.md", Before: noema.Absent, Delete: true}}}
	_, err = s.ApplyChangeset(ctx, absentDelete)
	wantCode(t, "a deletion planned from absent", err, noema.EINVALID)
	bad := &noema.Changeset{}
	bad.Replace("a.md", []byte("a.md"), []byte("A"))
	bad.Create("../out.md", []byte("x"))
	_, err = s.ApplyChangeset(ctx, bad)
	wantCode(t, "a path out of the store", err, noema.EINVALID)
	content(t, s, "a.md", "a.md")
}

func feedOrder(t *testing.T, s noema.Store) {
	start := okHead(t, s)
	okWrite(t, s, "a.md", []byte("1"), noema.Absent)
	okWrite(t, s, "b.md", []byte("2"), noema.Absent)
	okWrite(t, s, "a.md", []byte("3"), sum("1"))
	okMove(t, s, "b.md", "c.md", sum("2"))
	_, err := s.WriteFile(ctx, "a.md", []byte("lost"), sum("1")) // fails: records nothing
	wantCode(t, "stale write", err, noema.ECHECKSUM)
	okDelete(t, s, "c.md", sum("2"))
	changes := okSince(t, s, start, 0)
	for i, c := range changes {
		if c.Seq <= start || (i > 0 && c.Seq <= changes[i-1].Seq) {
			t.Errorf("sequence numbers not increasing above %d: %+v", start, changes)
			break
		}
	}
	want := map[string]noema.Change{
		"a.md": {Path: "a.md", Kind: noema.ChangeWrite, Checksum: sum("3")},
		"b.md": {Path: "b.md", Kind: noema.ChangeDelete, Checksum: noema.Absent},
		"c.md": {Path: "c.md", Kind: noema.ChangeDelete, Checksum: noema.Absent},
	}
	if got := latest(changes); !maps.Equal(got, want) {
		t.Errorf("latest changes = %+v, want %+v (from %+v)", got, want, changes)
	}
	if head := okHead(t, s); len(changes) == 0 || head != changes[len(changes)-1].Seq {
		t.Errorf("Head = %d, last change %+v", head, changes)
	}
}

func feedSince(t *testing.T, s noema.Store) {
	start := okHead(t, s)
	var seqs []int64
	for _, p := range []string{"a.md", "b.md", "c.md", "d.md"} {
		c := okWrite(t, s, p, []byte(p), noema.Absent)
		seqs = append(seqs, c.Seq)
	}
	after := okSince(t, s, seqs[1], 0)
	if got := paths(after); !slices.Equal(got, []string{"c.md", "d.md"}) {
		t.Errorf("changes since the second write = %v", got)
	}
	limited := okSince(t, s, start, 3)
	if got := paths(limited); !slices.Equal(got, []string{"a.md", "b.md", "c.md"}) {
		t.Errorf("first 3 changes = %v", got)
	}
	rest := okSince(t, s, limited[len(limited)-1].Seq, 3)
	if got := paths(rest); !slices.Equal(got, []string{"d.md"}) {
		t.Errorf("the page after = %v", got)
	}
	if got := okSince(t, s, seqs[3], 0); len(got) != 0 {
		t.Errorf("changes since the head = %+v", got)
	}
	_, err := s.ChangesSince(ctx, seqs[3]+1000, 0)
	if !errors.Is(err, noema.ErrFeedReset) {
		t.Errorf("changes since beyond the head: %v, want ErrFeedReset", err)
	}
	wantCode(t, "changes since beyond the head", err, noema.ENOTFOUND)
}

func paths(changes []noema.Change) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Path
	}
	return out
}

func feedWait(t *testing.T, s noema.Store) {
	head := okHead(t, s)
	done := make(chan int64, 1)
	go func() {
		got, err := s.Wait(ctx, head)
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	c := okWrite(t, s, "a.md", []byte("a"), noema.Absent)
	if got := <-done; got < c.Seq {
		t.Errorf("Wait returned %d, before the write's %d", got, c.Seq)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Wait(cctx, c.Seq); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait with a done context: %v", err)
	}
}

func badPaths(t *testing.T, s noema.Store) {
	seed(t, s)
	for _, p := range []string{"", "/abs.md", "../out.md", "a/../../out.md", ".noema/x.md", ".hidden.md", "dir/.x.md", "nul\x00.md", "back\\slash.md", "not-a-note.txt", "bad\xff.md"} {
		_, err := s.ReadFile(ctx, p)
		wantCode(t, "read "+p, err, noema.EINVALID)
		_, err = s.WriteFile(ctx, p, []byte("x"), noema.Absent)
		wantCode(t, "create "+p, err, noema.EINVALID)
		_, err = s.DeleteFile(ctx, p, sum("x"))
		wantCode(t, "delete "+p, err, noema.EINVALID)
		_, err = s.MoveFile(ctx, "a.md", p, sum("a.md"))
		wantCode(t, "move to "+p, err, noema.EINVALID)
		_, err = s.MoveFile(ctx, p, "z.md", sum("x"))
		wantCode(t, "move from "+p, err, noema.EINVALID)
	}
	content(t, s, "a.md", "a.md")
}

func doneContext(t *testing.T, s noema.Store) {
	seed(t, s)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := s.WriteFile(cctx, "new.md", []byte("x"), noema.Absent)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("write with a done context: %v", err)
	}
	cs := &noema.Changeset{}
	cs.Create("new.md", []byte("x"))
	if _, err := s.ApplyChangeset(cctx, cs); !errors.Is(err, context.Canceled) {
		t.Errorf("changeset with a done context: %v", err)
	}
	if _, err := s.DeleteFile(cctx, "a.md", sum("a.md")); !errors.Is(err, context.Canceled) {
		t.Errorf("delete with a done context: %v", err)
	}
	absent(t, s, "new.md")
	content(t, s, "a.md", "a.md")
}

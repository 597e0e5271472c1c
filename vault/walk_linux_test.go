package vault

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/noema-mem/noema/internal/notepath"
	"github.com/noema-mem/noema/internal/treetest"
	"golang.org/x/sys/unix"
)

// walkRecord renders what a walk reports: every note with the stat sync
// compares (size, mtime, mode, ctime, inode), every temporary-file
// candidate and every unreadable folder, in order.
func walkRecord(t *testing.T, v *Vault, walk func(context.Context, func(string, fs.FileInfo) error, func(string, fs.DirEntry, int), func(string, error)) error, skip string) string {
	t.Helper()
	var b strings.Builder
	err := walk(context.Background(), func(rel string, info fs.FileInfo) error {
		var ctime, ino int64
		switch st := info.Sys().(type) {
		case *syscall.Stat_t:
			ctime, ino = st.Ctim.Nano(), int64(st.Ino)
		default:
			id, ok := info.(interface{ Identity() (int64, int64) })
			if !ok {
				t.Fatalf("%s: no ctime or inode in %T", rel, info)
			}
			ctime, ino = id.Identity()
		}
		fmt.Fprintf(&b, "note %s %d %d %v %d %d %s\n", rel, info.Size(), info.ModTime().UnixNano(), info.Mode(), ctime, ino, info.Name())
		if rel == skip {
			return fs.SkipDir
		}
		return nil
	}, func(p string, d fs.DirEntry, pid int) {
		fmt.Fprintf(&b, "temp %s %s %d\n", p, d.Name(), pid)
	}, func(rel string, err error) {
		fmt.Fprintf(&b, "unreadable %s\n", rel)
	})
	fmt.Fprintf(&b, "err %v\n", err)
	return b.String()
}

// TestFastWalkIsWalkDir: the Linux walk (one open per folder, stats
// relative to it, in parallel for large folders) reports exactly what the
// portable filepath.WalkDir walk reports, in the same order, on a tree
// with every kind of entry either treats specially.
func TestFastWalkIsWalkDir(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) { treetest.Write(t, dir, rel, content) }
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	// Names whose order differs between comparing names and comparing
	// whole paths ("a" < "a b.md" < "a.md", "a/" first).
	// Names whose first eight bytes are equal, or one's eight bytes the
	// other whole: the sort's keys tie, or end early.
	for _, rel := range []string{"long shared prefix 10.md", "long shared prefix 2.md", "long shared prefix.md", "long sha.md",
		"long sha/x.md", "long shared/y.md", "12345678", "12345678.md", "1234567.md"} {
		write(rel, "# "+rel+"\n")
	}
	for _, rel := range []string{"a.md", "a b.md", "A.md", "a/z.md", "a/b/c.md", "ab/x.md", "a-/y.md", "é.md", "notes.txt", "x.MD", "sub/.hidden.md"} {
		write(rel, "# "+rel+"\n")
	}
	// A folder whose stats are read in several parts, with a file of each size.
	for i := range 3*statPart + 7 {
		write(fmt.Sprintf("big/n%05d.md", i), strings.Repeat("x", i))
	}
	write(".noema/index.md", "not a note")
	write(".obsidian/x.md", "not a note")
	// Temporary files, one of them old.
	write(".a.md.tmp-123-0123456789abcdef", "temp")
	write("sub/.b.md.tmp-99999999-fedcba9876543210", "temp")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "sub/.b.md.tmp-99999999-fedcba9876543210"), old, old)
	// Symbolic links: to a note inside, to a dot-folder, outside, dangling,
	// to a folder, and a link to a note under a linked folder.
	link("a.md", "link.md")
	link("../a.md", "sub/uplink.md")
	link(".noema/index.md", "todot.md")
	link(filepath.Join(t.TempDir(), "nowhere.md"), "outside.md")
	link("missing.md", "dangling.md")
	link("a", "linkdir")
	link("big", "big.md")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, skip := range []string{"", "a/b/c.md", fmt.Sprintf("big/n%05d.md", statPart+7), "a b.md"} {
		want := walkRecord(t, v, v.walkDir, skip)
		got := walkRecord(t, v, v.walk, skip)
		if got != want {
			t.Fatalf("skip %q: the fast walk differs from WalkDir:\n%s", skip, lineDiff(got, want))
		}
		checkWalkOrder(t, v)
		if skip == "" && (!strings.Contains(got, fmt.Sprintf("note big/n%05d.md %d ", 3*statPart+6, 3*statPart+6)) || !strings.Contains(got, "temp ")) {
			t.Fatalf("the walk missed notes or temporary files:\n%.2000s", got)
		}
	}
	// A folder that cannot be read is reported and skipped by both (root
	// reads any folder, so this part needs another user).
	if os.Geteuid() != 0 {
		if err := os.Chmod(filepath.Join(dir, "a"), 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(filepath.Join(dir, "a"), 0o755)
		want := walkRecord(t, v, v.walkDir, "")
		if got := walkRecord(t, v, v.walk, ""); got != want || !strings.Contains(got, "unreadable a\n") {
			t.Fatalf("unreadable folder: the fast walk differs from WalkDir:\n%s", lineDiff(got, want))
		}
	}
	// A cancelled walk stops with the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := v.walk(ctx, func(string, fs.FileInfo) error { return nil }, nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled walk: %v", err)
	}
}

// TestWalkOfManyFoldersIsWalkDir: folders read side by side and ahead of
// the visit still give walkDir's notes in walkDir's order — nested
// folders, empty ones, folders of folders only, a dot-folder deep down,
// folders larger than one read part — and a walk stopped part-way (fn's
// SkipAll, SkipDir deep down, an error, a cancelled context) leaves no
// folder open.
func TestWalkOfManyFoldersIsWalkDir(t *testing.T) {
	dir := t.TempDir()
	n := 0
	for a := range 7 {
		for b := range a % 4 {
			for c := range (a + b) % 3 {
				rel := fmt.Sprintf("f%d/g%d/h%d", a, b, c)
				for i := range ((a+1)*(b+1)*(c+1)*23)%(2*statPart+3) + 1 {
					treetest.Write(t, dir, fmt.Sprintf("%s/n%d.md", rel, i), strings.Repeat("y", i%50))
					n++
				}
			}
			treetest.Write(t, dir, fmt.Sprintf("f%d/g%d.md", a, b), "beside its folder")
		}
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("empty%d/inner", a)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	treetest.Write(t, dir, "f3/g1/.hidden/h/x.md", "not a note")
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(ents)
	}
	if n < 4*statPart {
		t.Fatalf("%d notes: too few to read in parts", n)
	}
	before := fds()
	for _, skip := range []string{"", "f6/g1/h0/n300.md", "f3/g1.md", "f1/g0/h0/n0.md", "f5/g0/h1/n37.md", "f3/g2/h1/n3.md"} {
		want := walkRecord(t, v, v.walkDir, skip)
		if skip != "" && !strings.Contains(want, "note "+skip+" ") {
			t.Fatalf("no note %s to skip at", skip)
		}
		got := walkRecord(t, v, v.walk, skip)
		if got != want {
			t.Fatalf("skip %q: the walk differs from WalkDir:\n%s", skip, lineDiff(got, want))
		}
		checkWalkOrder(t, v)
		if skip == "" && strings.Count(got, "\nnote ")+1 < n {
			t.Fatalf("the walk found %d notes, want %d", strings.Count(got, "\nnote ")+1, n)
		}
	}
	stopAt := func(i int, stop func() error) error {
		seen := 0
		return v.walk(context.Background(), func(string, fs.FileInfo) error {
			if seen++; seen == i {
				return stop()
			}
			return nil
		}, nil, nil)
	}
	if err := stopAt(10, func() error { return fs.SkipAll }); err != nil {
		t.Fatalf("SkipAll: %v", err)
	}
	boom := errors.New("boom")
	if err := stopAt(n/2, func() error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("fn's error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	seen := 0
	err = v.walk(ctx, func(string, fs.FileInfo) error {
		if seen++; seen == 5 {
			cancel()
		}
		return nil
	}, nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled walk: %v", err)
	}
	if after := fds(); after != before {
		t.Fatalf("%d descriptors open after the walks, %d before", after, before)
	}
}

// checkWalkOrder fails unless the walk gives the notes of v in
// notepath.Compare's order, which sync merges the walk with the indexed
// notes in.
func checkWalkOrder(t *testing.T, v *Vault) {
	t.Helper()
	prev := ""
	err := v.walk(context.Background(), func(rel string, _ fs.FileInfo) error {
		if prev != "" && notepath.Compare(prev, rel) >= 0 {
			return fmt.Errorf("the walk gave %s after %s, out of notepath.Compare's order", rel, prev)
		}
		prev = rel
		return nil
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
}

// lineDiff shows the first line where got and want differ.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// TestParseDirents: the kernel's folder records are read as os.ReadDir
// reads them — "." and "..", deleted records (inode 0) and entries gone
// before their lstat skipped, an entry of unknown type (file systems
// without d_type) lstat'ed for it — and a truncated record or a name
// without its NUL byte is an error.
func TestParseDirents(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, "unknown.md", "x")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	record := func(ino uint64, typ byte, name string) []byte {
		n := (19 + len(name) + 1 + 7) &^ 7
		b := make([]byte, n)
		binary.NativeEndian.PutUint64(b, ino)
		binary.NativeEndian.PutUint16(b[16:], uint16(n))
		b[18] = typ
		copy(b[19:], name)
		return b
	}
	var b []byte
	for _, r := range []struct {
		ino  uint64
		typ  byte
		name string
	}{
		{1, unix.DT_DIR, "."}, {1, unix.DT_DIR, ".."}, {5, unix.DT_REG, "a.md"},
		{0, unix.DT_REG, "deleted.md"}, {6, unix.DT_UNKNOWN, "unknown.md"},
		{7, unix.DT_UNKNOWN, "gone.md"}, {8, unix.DT_UNKNOWN, "sub"},
		{9, unix.DT_LNK, "l.md"}, {10, unix.DT_FIFO, "fifo"}, {11, unix.DT_DIR, "a-very-long-folder-name-of-many-bytes"},
	} {
		b = append(b, record(r.ino, r.typ, r.name)...)
	}
	// Read in two calls' records, as two getdents calls give them.
	half := 0
	for half < len(b)/2 {
		half += int(binary.NativeEndian.Uint16(b[half+16:]))
	}
	nb, got, err := parseDirents(fd, dir, "p/", b[:half], nil, nil)
	if err == nil {
		nb, got, err = parseDirents(fd, dir, "p/", b[half:], nb, got)
	}
	if err != nil {
		t.Fatal(err)
	}
	names := string(nb)
	type entry struct {
		path, name string
		typ        fs.FileMode
	}
	var gotEntries []entry
	for _, d := range got {
		f := &folder{rel: "p", names: names}
		if names[d.at+d.n] != 0 {
			t.Errorf("%q: no NUL byte after the name", f.name(&d))
		}
		gotEntries = append(gotEntries, entry{f.path(&d), f.name(&d), d.typ})
	}
	want := []entry{{"p/a.md", "a.md", 0}, {"p/unknown.md", "unknown.md", 0}, {"p/sub", "sub", fs.ModeDir}, {"p/l.md", "l.md", fs.ModeSymlink},
		{"p/fifo", "fifo", fs.ModeNamedPipe}, {"p/a-very-long-folder-name-of-many-bytes", "a-very-long-folder-name-of-many-bytes", fs.ModeDir}}
	if !slices.Equal(gotEntries, want) {
		t.Errorf("parseDirents:\n got %v\nwant %v", gotEntries, want)
	}
	// The names hold the entries' paths only: not the deleted record's,
	// nor the one gone before its lstat.
	if wantNames := "p/a.md\x00p/unknown.md\x00p/sub\x00p/l.md\x00p/fifo\x00p/a-very-long-folder-name-of-many-bytes\x00"; names != wantNames {
		t.Errorf("names %q, want %q", names, wantNames)
	}
	if _, _, err := parseDirents(fd, dir, "", b[:len(b)-3], nil, nil); err == nil {
		t.Error("a truncated record was read")
	}
	unterminated := record(12, unix.DT_REG, "12345")[:24] // reclen 24: the name fills it, no NUL
	binary.NativeEndian.PutUint16(unterminated[16:], 24)
	if _, _, err := parseDirents(fd, dir, "", unterminated, nil, nil); err == nil {
		t.Error("a name without its NUL byte was read")
	}
}

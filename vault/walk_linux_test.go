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
	for _, rel := range []string{"a.md", "a b.md", "A.md", "a/z.md", "a/b/c.md", "ab/x.md", "a-/y.md", "é.md", "notes.txt", "x.MD", "sub/.hidden.md"} {
		write(rel, "# "+rel+"\n")
	}
	// A folder large enough for the parallel stats, with a file of each size.
	for i := range 3 * parallelStats {
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
	for _, skip := range []string{"", "a/b/c.md", fmt.Sprintf("big/n%05d.md", parallelStats+7), "a b.md"} {
		want := walkRecord(t, v, v.walkDir, skip)
		got := walkRecord(t, v, v.walk, skip)
		if got != want {
			t.Fatalf("skip %q: the fast walk differs from WalkDir:\n%s", skip, lineDiff(got, want))
		}
		if skip == "" && (!strings.Contains(got, "note big/n01535.md 1535 ") || !strings.Contains(got, "temp ")) {
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
	got, err := parseDirents(fd, dir, string(b), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []dirent{{"a.md", 0}, {"unknown.md", 0}, {"sub", fs.ModeDir}, {"l.md", fs.ModeSymlink},
		{"fifo", fs.ModeNamedPipe}, {"a-very-long-folder-name-of-many-bytes", fs.ModeDir}}
	if !slices.Equal(got, want) {
		t.Errorf("parseDirents:\n got %v\nwant %v", got, want)
	}
	if _, err := parseDirents(fd, dir, string(b[:len(b)-3]), nil); err == nil {
		t.Error("a truncated record was read")
	}
	unterminated := record(12, unix.DT_REG, "12345")[:24] // reclen 24: the name fills it, no NUL
	binary.NativeEndian.PutUint16(unterminated[16:], 24)
	if _, err := parseDirents(fd, dir, string(unterminated), nil); err == nil {
		t.Error("a name without its NUL byte was read")
	}
}

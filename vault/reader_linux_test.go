package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/treetest"
)

// TestReaderIsReadFile: a Reader gives what ReadFile gives — content,
// file information and errors with their codes — for every kind of path a
// sync may ask for: notes in folders, links to notes inside the vault and
// to dot-folders or outside, a FIFO, a folder, a missing file, names
// ReadFile refuses.
func TestReaderIsReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) { treetest.Write(t, dir, rel, content) }
	write("a.md", "# A\n")
	write("sub/deep/b.md", strings.Repeat("long line\n", 20000))
	write("empty.md", "")
	write(`back\slash.md`, "x")
	write("C:drive.md", "x")
	write(".noema/secret.md", "no")
	write("real/c.md", "via a linked folder")
	if err := os.Symlink("real", filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	for target, name := range map[string]string{"a.md": "link.md", ".noema/secret.md": "todot.md", "/etc/hostname": "abs.md", "../outside.md": "up.md", "missing.md": "dangling.md"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := v.NewReader()
	defer r.Close()
	render := func(data []byte, info os.FileInfo, err error) string {
		if err != nil {
			return fmt.Sprintf("error %s: %s", noema.ErrorCode(err), err)
		}
		var ctime, ino int64
		switch st := info.Sys().(type) {
		case *syscall.Stat_t:
			ctime, ino = st.Ctim.Nano(), int64(st.Ino)
		default:
			ctime, ino = info.(interface{ Identity() (int64, int64) }).Identity()
		}
		return fmt.Sprintf("%d bytes %q… %s %d %v %d %d", len(data), data[:min(len(data), 8)], info.Name(), info.Size(), info.ModTime().UnixNano(), ctime, ino)
	}
	for _, rel := range []string{"a.md", "sub/deep/b.md", "empty.md", `back\slash.md`, "C:drive.md", ".noema/secret.md",
		"linked/c.md", "real/c.md", "link.md", "todot.md", "abs.md", "up.md", "dangling.md", "fifo.md", "sub", "missing.md", "sub/../a.md"} {
		want := render(v.ReadFile(rel))
		if got := render(r.ReadFile(rel)); got != want {
			t.Errorf("%s: Reader gives\n%s\nReadFile gives\n%s", rel, got, want)
		}
	}
	// The notes are read by the Reader itself, the rest by ReadFile.
	for rel, fast := range map[string]bool{"a.md": true, "sub/deep/b.md": true, "empty.md": true, "real/c.md": true,
		"linked/c.md": false, "link.md": false, "fifo.md": false, "sub": false, `back\slash.md`: false, "sub/../a.md": false} {
		if _, _, ok := r.read(rel); ok != fast {
			t.Errorf("%s: read by the Reader itself: %v, want %v", rel, ok, fast)
		}
	}
	if got := render(r.ReadFile("sub/deep/b.md")); !strings.HasPrefix(got, "200000 bytes") {
		t.Errorf("b.md: %s", got)
	}
}

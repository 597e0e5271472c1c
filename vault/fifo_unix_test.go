//go:build unix

package vault

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/noema-mem/noema"
)

// noHang runs fn and fails the test when it does not return within a few
// seconds (the goroutine is then left blocked: the test fails instead of
// hanging).
func noHang(t *testing.T, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Errorf("%s blocked", what)
		return nil
	}
}

// A FIFO (or any other file that is not a regular file) named like a note
// is refused with invalid_argument by every operation, without blocking,
// and is left alone.
func TestNonRegularFiles(t *testing.T) {
	v := mustOpen(t)
	writeRaw(t, v, "a.md", "A")
	if err := syscall.Mkfifo(filepath.Join(v.Root, "fifo.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	symlink(t, "fifo.md", filepath.Join(v.Root, "tofifo.md"))

	for _, rel := range []string{"fifo.md", "tofifo.md"} {
		err := noHang(t, "ReadFile("+rel+")", func() error { _, _, err := v.ReadFile(rel); return err })
		wantCode(t, "ReadFile("+rel+")", err, noema.EINVALID)
		if err != nil && !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadFile(%s) = %v, want \"not a regular file\"", rel, err)
		}
		err = noHang(t, "ReplaceFile("+rel+")", func() error { return unlocked(v).ReplaceFile(rel, nil, []byte("x")) })
		wantCode(t, "ReplaceFile("+rel+")", err, noema.EINVALID)
		err = noHang(t, "RemoveIfUnchanged("+rel+")", func() error { return unlocked(v).RemoveIfUnchanged(rel, nil) })
		wantCode(t, "RemoveIfUnchanged("+rel+")", err, noema.EINVALID)
		err = noHang(t, "WriteFile("+rel+")", func() error { return unlocked(v).WriteFile(rel, []byte("x"), true) })
		wantCode(t, "WriteFile("+rel+")", err, noema.EINVALID)
		err = noHang(t, "WriteFile("+rel+", create)", func() error { return unlocked(v).WriteFile(rel, []byte("x"), false) })
		wantCode(t, "WriteFile("+rel+", create)", err, noema.EINVALID)
		err = noHang(t, "Remove("+rel+")", func() error { return unlocked(v).Remove(rel) })
		wantCode(t, "Remove("+rel+")", err, noema.EINVALID)
		err = noHang(t, "Rename("+rel+")", func() error { return unlocked(v).Rename(rel, "moved.md") })
		wantCode(t, "Rename("+rel+")", err, noema.EINVALID)
	}
	if fi, err := os.Lstat(filepath.Join(v.Root, "fifo.md")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("fifo.md after the refused operations: %v, %v", fi, err)
	}
	if _, err := os.Lstat(filepath.Join(v.Root, "moved.md")); err == nil {
		t.Errorf("the FIFO was moved")
	}
	// Walk lists neither the FIFO nor the link to it.
	var got []string
	v.Walk(t.Context(), func(rel string, _ os.FileInfo) error { got = append(got, rel); return nil })
	if len(got) != 1 || got[0] != "a.md" {
		t.Errorf("Walk = %q", got)
	}

	// The open itself cannot block either, should a FIFO appear between
	// the type check and the open.
	if openNonblock == 0 {
		t.Fatal("openNonblock is 0 on a unix system")
	}
	root, err := os.OpenRoot(v.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	err = noHang(t, "non-blocking open of a FIFO", func() error {
		f, err := root.OpenFile("fifo.md", os.O_RDONLY|openNonblock, 0)
		if err == nil {
			f.Close()
		}
		return err
	})
	if err != nil {
		t.Errorf("non-blocking open: %v", err)
	}
}

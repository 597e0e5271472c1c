package vault_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

func TestReplaceFileIsCompareAndSwap(t *testing.T) {
	v, err := vault.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	err = v.Locked(context.Background(), func(w *vault.Writer) error {
		if err := w.WriteFile("n.md", []byte("one"), false); err != nil {
			t.Fatal(err)
		}
		if err := w.ReplaceFile("n.md", []byte("one"), []byte("two")); err != nil {
			t.Fatal(err)
		}
		// Stale expectations change nothing.
		err := w.ReplaceFile("n.md", []byte("one"), []byte("three"))
		if noema.ErrorCode(err) != noema.ECHECKSUM {
			t.Fatalf("stale replace: %v", err)
		}
		if err := w.RemoveIfUnchanged("n.md", []byte("one")); noema.ErrorCode(err) != noema.ECHECKSUM {
			t.Fatalf("stale remove: %v", err)
		}
		if b, _ := os.ReadFile(filepath.Join(v.Root, "n.md")); string(b) != "two" {
			t.Fatalf("content = %q", b)
		}
		return w.RemoveIfUnchanged("n.md", []byte("two"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(v.Root, "n.md")); !os.IsNotExist(err) {
		t.Fatalf("file still there: %v", err)
	}
}

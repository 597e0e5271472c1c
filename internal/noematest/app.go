package noematest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/internal/benchdata"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/notes"
)

// Sync syncs a's vault into its index (not a rebuild) and returns the
// result; an error fails the test.
func Sync(tb testing.TB, a *app.App) *indexer.Result {
	tb.Helper()
	res, err := a.Sync(context.Background(), false, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// OpenSynced opens the vault at dir with opts (see OpenApp) and syncs it.
func OpenSynced(tb testing.TB, dir string, opts app.Options) *app.App {
	tb.Helper()
	a := OpenApp(tb, dir, opts)
	Sync(tb, a)
	return a
}

// AppWith opens a fresh vault holding files (content by slash-separated
// path) with the default options and syncs it.
func AppWith(tb testing.TB, files map[string]string) *app.App {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "vault")
	treetest.WriteAll(tb, dir, files)
	return OpenSynced(tb, dir, app.Options{})
}

// LabelVault writes a vault whose concepts are labels (benchdata.WriteVault:
// perNote links to a note) in a temporary folder, opens it with the
// default options and syncs it.
func LabelVault(tb testing.TB, labels []string, perNote int) *app.App {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "vault")
	if err := benchdata.WriteVault(dir, labels, perNote); err != nil {
		tb.Fatal(err)
	}
	return OpenSynced(tb, dir, app.Options{})
}

// WriteNote writes a note through a's notes service; an error fails the
// test.
func WriteNote(tb testing.TB, a *app.App, in notes.WriteInput) *notes.WriteResult {
	tb.Helper()
	res, err := a.Notes.Write(context.Background(), in)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// ReadFile returns the content of the file at the slash-separated path rel
// in a's vault, or of the page a memory:// URI names; an error fails the
// test.
func ReadFile(tb testing.TB, a *app.App, rel string) string {
	tb.Helper()
	if uri, ok := strings.CutPrefix(rel, "memory://"); ok {
		rel = uri + ".md"
	}
	b, err := os.ReadFile(filepath.Join(a.Vault.Root, filepath.FromSlash(rel)))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

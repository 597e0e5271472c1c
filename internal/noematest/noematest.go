// Package noematest holds test helpers shared by noema's packages.
package noematest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/noema-mem/noema/app"
)

// OpenApp opens a fresh vault in a temporary folder (or dir, when given),
// closed when the test ends.
func OpenApp(tb testing.TB, dir string, opts app.Options) *app.App {
	tb.Helper()
	if dir == "" {
		dir = filepath.Join(tb.TempDir(), "vault")
	}
	a, err := app.Open(context.Background(), dir, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close() })
	return a
}

// App opens a fresh vault with the default options in a temporary folder
// (see OpenApp).
func App(tb testing.TB) *app.App {
	tb.Helper()
	return OpenApp(tb, "", app.Options{})
}

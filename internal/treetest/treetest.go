// Package treetest snapshots folders of files for tests that compare a
// vault before and after an operation (crash-recovery tests in vault and
// concepts). It imports nothing of noema's, so packages with fuzz targets
// can use it without linking SQLite.
package treetest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Files returns every file under dir except .noema/, by relative path.
func Files(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".noema" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// NotesOnly keeps the *.md files that are not dot-files.
func NotesOnly(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if strings.HasSuffix(k, ".md") && !strings.HasPrefix(filepath.Base(k), ".") {
			out[k] = v
		}
	}
	return out
}

// Same reports whether two snapshots are equal.
func Same(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Describe renders a snapshot, sorted by path.
func Describe(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: %q\n", k, m[k])
	}
	return b.String()
}

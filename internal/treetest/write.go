package treetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes content to the file at the slash-separated path rel under
// dir, creating its folders, and returns the file's path.
func Write(tb testing.TB, dir, rel, content string) string {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// WriteAll writes every file of files (content by slash-separated path)
// under dir, as Write does.
func WriteAll(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for rel, content := range files {
		Write(tb, dir, rel, content)
	}
}

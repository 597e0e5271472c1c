package indexer_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
)

// TestDuplicateTitles: two files with one title are reported by sync and
// status, naming both, and the title keeps meaning the first by path — a
// second file never switches it silently.
func TestDuplicateTitles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := noematest.OpenApp(t, dir, app.Options{})
	write := func(rel, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b/Plan.md", "first plan\n")
	res, err := a.Sync(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Fatalf("one plan: warnings %+v", res.Warnings)
	}
	write("a/Plan.md", "second plan\n")
	res, err = a.Sync(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Code != "duplicate_title" || res.Warnings[0].Path != "a/Plan.md" ||
		!strings.Contains(res.Warnings[0].Message, "a/Plan.md, b/Plan.md") {
		t.Fatalf("two plans: warnings %+v", res.Warnings)
	}
	st, err := a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Warnings) != 1 || st.Warnings[0].Code != "duplicate_title" {
		t.Errorf("status warnings %+v", st.Warnings)
	}
	if path, err := a.Notes.Resolve(ctx, "Plan"); err != nil || path != "a/Plan.md" {
		t.Errorf("Plan resolves to %q, %v; want a/Plan.md (first by path)", path, err)
	}
	write("Links.md", "see [[Plan]]\n")
	if _, err := a.Sync(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	if c, err := a.Concepts.Get(ctx, "Plan"); err != nil || c.Page != "memory://a/Plan" {
		t.Errorf("the page of [[Plan]] = %+v, %v; want memory://a/Plan", c, err)
	}
	// Written through noema, the duplicate goes away from status at once.
	if _, err := a.Notes.Delete(ctx, "a/Plan.md", true); err != nil {
		t.Fatal(err)
	}
	if st, _ = a.Status(ctx); len(st.Warnings) != 0 {
		t.Errorf("after delete: status warnings %+v", st.Warnings)
	}
}

package app_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema/app"
)

// TestCloseWaitsForBackground checks that Close returns only once every
// goroutine Start began has returned: Serve, the watcher and the embedding
// refreshes. It stops them in the middle of their work (the first sync
// done, the watcher running, a refresh under way) and then reads every
// goroutine's stack: none may still be in this package's background work.
func TestCloseWaitsForBackground(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		name := filepath.Join(dir, "n"+string(rune('a'+i%26))+string(rune('a'+i/26))+".md")
		if err := os.WriteFile(name, []byte("[[Alpha]] and [[Beta]] and [[Gamma]]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 5 {
		a, err := app.Open(context.Background(), dir, app.Options{})
		if err != nil {
			t.Fatal(err)
		}
		a.Start(context.Background())
		// Let the first sync finish (or, some rounds, not).
		deadline := time.Now().Add(10 * time.Second)
		for round%2 == 0 && (a.Role() == "" || a.Progress().FinishedAt.IsZero()) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if left := backgroundGoroutines(); len(left) > 0 {
			t.Fatalf("round %d: Close returned while %d background goroutines still ran:\n%s", round, len(left), strings.Join(left, "\n\n"))
		}
	}
}

// backgroundGoroutines returns the stacks of the goroutines running the
// App's background work.
func backgroundGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "app.(*App).Serve") || strings.Contains(g, "app.(*App).index") ||
			strings.Contains(g, "app.(*App).Start") || strings.Contains(g, "indexer.(*Indexer).Watch") {
			out = append(out, g)
		}
	}
	return out
}

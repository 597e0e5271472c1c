package app_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/search"
)

// TestFirstAnswerDoesNotWaitForSync: a server answers a search and a read
// while its first sync cannot write (another process holds the index's
// write lock, as a long sync or reindex of another process does), and the
// sync completes once the lock is free. Issue 21: the first answer never
// waits for a sync.
func TestFirstAnswerDoesNotWaitForSync(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	write := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			p := filepath.Join(dir, fmt.Sprintf("n%03d.md", i))
			if err := os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\nzebra crossing %d, about [[Alpha]]\n", i, i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(0, 100)
	first, err := app.Open(ctx, dir, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Sync(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	first.Close()
	write(100, 300) // arrived while no server ran: the next first sync has work

	// Another process's long write transaction.
	other, err := sql.Open("sqlite", "file:"+filepath.Join(dir, app.IndexDir, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	held := true
	release := func() {
		if held {
			held = false
			if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
				t.Error(err)
			}
		}
	}
	defer release()

	a, err := app.Open(ctx, dir, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Start(ctx)
	for deadline := time.Now().Add(10 * time.Second); !a.Progress().Running; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first sync did not start")
		}
	}
	start := time.Now()
	res, err := a.Search.Search(ctx, search.Input{Query: "zebra"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatalf("search during the first sync found nothing: %+v", res)
	}
	if _, err := a.Notes.Read(ctx, "n007"); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if p := a.Progress(); !p.Running || !p.FinishedAt.IsZero() {
		t.Fatalf("the first sync finished while another process held the write lock: %+v", p)
	}
	if took > 3*time.Second {
		t.Fatalf("the answers took %v while the first sync waited for the lock", took)
	}
	release()
	for deadline := time.Now().Add(60 * time.Second); a.Progress().FinishedAt.IsZero(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first sync did not finish after the lock was released")
		}
	}
	if p := a.Progress(); p.LastError != "" || p.LastResult == nil || p.LastResult.Added != 200 {
		t.Fatalf("first sync: %+v (result %+v)", p, p.LastResult)
	}
}

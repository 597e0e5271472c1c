package notes_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/sqlite"
)

// holdWriteLock takes SQLite's write lock on the index from a connection of
// its own, as another process writing a large note would, until release.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if released {
			return
		}
		released = true
		if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.Error(err)
		}
		conn.Close()
		db.Close()
	}
	t.Cleanup(release)
	return release
}

func accessCount(t *testing.T, db *sql.DB, path string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COALESCE(SUM(count), 0) FROM access WHERE path = ?`, path).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReadDoesNotWaitForWriter: read_note records an access, a write; while
// another connection holds the write lock the read still returns at once,
// and the access is recorded once the lock is released.
func TestReadDoesNotWaitForWriter(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	w := noematest.WriteNote(t, a, notes.WriteInput{Title: "Busy", Content: "text"})
	if _, err := a.Notes.Read(ctx, w.Path); err != nil { // recorded inline: the lock is free
		t.Fatal(err)
	}
	if n := accessCount(t, a.DB.Read(), w.Path); n != 1 {
		t.Fatalf("access count after an uncontended read = %d, want 1", n)
	}

	release := holdWriteLock(t, a.DB.Path())
	for range 3 {
		start := time.Now()
		if _, err := a.Notes.Read(ctx, w.Path); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Fatalf("read took %v while another connection held the write lock", d)
		}
	}
	release()
	deadline := time.Now().Add(10 * time.Second)
	for accessCount(t, a.DB.Read(), w.Path) != 4 {
		if time.Now().After(deadline) {
			t.Fatalf("access count = %d 10 s after the lock was released, want 4", accessCount(t, a.DB.Read(), w.Path))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCloseRecordsQueuedAccess: a command that reads one note while another
// process writes, then exits, still records its read: Close waits for the
// lock (within sqlite.AccessCloseWait).
func TestCloseRecordsQueuedAccess(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "vault")
	a, err := app.Open(ctx, dir, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := noematest.WriteNote(t, a, notes.WriteInput{Title: "Queued", Content: "text"})
	release := holdWriteLock(t, a.DB.Path())
	if _, err := a.Notes.Read(ctx, w.Path); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, release)
	start := time.Now()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > sqlite.AccessCloseWait {
		t.Errorf("Close took %v", d)
	}
	db, err := sqlite.Open(ctx, a.DB.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := accessCount(t, db.Read(), w.Path); n != 1 {
		t.Fatalf("access count after Close = %d, want 1", n)
	}
}

package app_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/sqlite"
)

// TestReadDuringLongWrite checks that reading a note never waits for
// another process's sync: while one App holds the index's write lock (as
// a sync of a huge note does, for as long as it takes), a second App — a
// `noema note read` — opens the same vault and reads a note. It must be
// done while the lock is still held; before, opening the index took the
// write lock to check its migrations and waited out the sync. (The access
// the read records is queued; Close writes it, waiting at most
// sqlite.AccessCloseWait.)
func TestReadDuringLongWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Other.md"), []byte("About [[Alpha]].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	syncer, err := app.Open(ctx, dir, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer syncer.Close()
	if _, err := syncer.Sync(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	writeDone := make(chan error, 1)
	go func() {
		writeDone <- syncer.DB.Write(ctx, func(tx *sqlite.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	readDone := make(chan error, 1)
	var reader *app.App
	go func() {
		var err error
		reader, err = app.Open(ctx, dir, app.Options{})
		if err != nil {
			readDone <- err
			return
		}
		n, err := reader.Notes.Read(ctx, "Other")
		if err == nil && n.Title != "Other" {
			t.Errorf("read %q, want Other", n.Title)
		}
		readDone <- err
	}()
	// The write lock is held until the read is done, or for long enough
	// to tell a read that waits (the busy timeout is 10 s).
	select {
	case err := <-readDone:
		close(release)
		if err != nil {
			t.Fatalf("read while a write was under way: %v", err)
		}
	case <-time.After(15 * time.Second):
		close(release)
		err := <-readDone
		t.Fatalf("the read was still waiting after 15 s for the write lock another App held (then: %v)", err)
	}
	// The access the read queued is written once the lock is free.
	if err := reader.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-writeDone; err != nil {
		t.Fatal(err)
	}
}

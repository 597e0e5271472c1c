package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/internal/pgtest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/postgres"
	"github.com/noema-mem/noema/search"
)

// teamDB returns the URL of vault "team" in a fresh, migrated database.
func teamDB(t *testing.T) string {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	if _, err := postgres.Migrate(context.Background(), dsn); err != nil {
		t.Fatal(err)
	}
	return dsn + "&vault=team"
}

// teamServer opens and starts a server whose folder (a new one unless dir
// is given) is a working copy of storeURL.
func teamServer(t *testing.T, storeURL, dir string) *app.App {
	t.Helper()
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "copy")
	}
	cfg := config.Default()
	cfg.Store = storeURL
	a, err := app.Open(context.Background(), dir, app.Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.Start(ctx)
	t.Cleanup(func() { cancel(); a.Close() })
	return a
}

// eventually polls cond every 10 ms for up to d and returns how long it took.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

// TestTeamServersShareOneMemory: two servers on one database — a write on
// one is read at once there and seen by the other within a second, found
// by its search; of two edits of one version on the two, exactly one wins.
func TestTeamServersShareOneMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers")
	}
	ctx := context.Background()
	store := teamDB(t)
	a, b := teamServer(t, store, ""), teamServer(t, store, "")
	w, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Connection Pool", Content: "Reuse connections to [[PostgreSQL]] with a pool."})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := a.Notes.Read(ctx, "Connection Pool"); err != nil || n.Checksum != w.Checksum {
		t.Fatalf("the writing server reads %v, %v", n, err)
	}
	took := eventually(t, time.Second, "the other server reads and finds the write", func() bool {
		n, err := b.Notes.Read(ctx, "Connection Pool")
		if err != nil || n.Checksum != w.Checksum {
			return false
		}
		res, err := b.Search.Search(ctx, search.Input{Query: "reuse connections pool", Mode: "fulltext"})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Hits) > 0 && res.Hits[0].Title == "Connection Pool"
	})
	t.Logf("the other server read and found the write after %s", took)
	// The same file, byte for byte, in both folders and the database.
	ownBytes, _ := os.ReadFile(filepath.Join(a.Vault.Root, w.Path))
	otherBytes, _ := os.ReadFile(filepath.Join(b.Vault.Root, w.Path))
	if string(ownBytes) != string(otherBytes) || noema.Checksum(ownBytes) != w.Checksum {
		t.Fatalf("the copies differ:\n%s\n---\n%s", ownBytes, otherBytes)
	}

	// Two edits of one version, one on each server: one wins.
	sum := w.Checksum
	for round := range 10 {
		eventually(t, time.Second, "both servers at the same version", func() bool {
			n, err := b.Notes.Read(ctx, "Connection Pool")
			return err == nil && n.Checksum == sum
		})
		var wg sync.WaitGroup
		errs := make([]error, 2)
		results := make([]*notes.WriteResult, 2)
		for i, srv := range []*app.App{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = srv.Notes.Edit(ctx, notes.EditInput{URI: "Connection Pool", Op: "append",
					Content: strings.Repeat("x", round+1) + string(rune('a'+i)), ExpectedChecksum: sum})
			}()
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
				sum = results[i].Checksum
			case noema.ErrorCode(err) != noema.ECHECKSUM:
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d of two edits of one version won (%v)", round, won, errs)
		}
	}
}

// TestTeamFolderOfItsOwn: a folder that holds notes the store lacks is
// refused, not overwritten.
func TestTeamFolderOfItsOwn(t *testing.T) {
	store := teamDB(t)
	dir := filepath.Join(t.TempDir(), "mine")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "Mine.md")
	if err := os.WriteFile(mine, []byte("# Mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Store = store
	_, err := app.Open(context.Background(), dir, app.Options{Config: &cfg})
	if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), "noema vault push") {
		t.Fatalf("a folder with notes of its own: %v", err)
	}
	if data, err := os.ReadFile(mine); err != nil || string(data) != "# Mine\n" {
		t.Fatalf("the folder's note after the refusal: %q %v", data, err)
	}
}

// TestTeamStoreOutage: while the database cannot be reached, writes fail
// with unavailable and change nothing, reads answer from the folder and
// status warns; when it is back the server catches up by itself.
func TestTeamStoreOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers")
	}
	ctx := context.Background()
	store := teamDB(t)
	proxy, proxied := pgtest.NewProxy(t, store)
	a, b := teamServer(t, proxied, ""), teamServer(t, store, "")
	if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Before", Content: "written before the outage"}); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	_, err := a.Notes.Write(ctx, notes.WriteInput{Title: "During", Content: "lost?"})
	if noema.ErrorCode(err) != noema.EUNAVAILABLE {
		t.Fatalf("a write while the database is away: %v", err)
	}
	if _, err := os.Stat(filepath.Join(a.Vault.Root, "During.md")); err == nil {
		t.Fatal("a refused write left its file in the folder")
	}
	if _, err := a.Notes.Read(ctx, "Before"); err != nil {
		t.Fatalf("a read while the database is away: %v", err)
	}
	eventually(t, 5*time.Second, "status warns", func() bool {
		st, err := a.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range st.Warnings {
			if w.Code == noema.EUNAVAILABLE {
				return true
			}
		}
		return false
	})
	if _, err := b.Notes.Write(ctx, notes.WriteInput{Title: "Meanwhile", Content: "written on the other server"}); err != nil {
		t.Fatal(err)
	}
	proxy.Restore(t)
	eventually(t, 15*time.Second, "the server catches up by itself", func() bool {
		_, err := a.Notes.Read(ctx, "Meanwhile")
		return err == nil
	})
	// A pooled connection cut by the outage can fail one more call; the
	// follower's next round succeeds and clears the warning.
	eventually(t, 15*time.Second, "status clears its warning", func() bool {
		st, err := a.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.Store != nil && st.Store.Error == ""
	})
	if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: "After", Content: "written after the outage"}); err != nil {
		t.Fatalf("a write once the database is back: %v", err)
	}
}

// TestTeamReadsShared: a read on one server refreshes the note's activity
// (what decay weighs) on the other.
func TestTeamReadsShared(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers")
	}
	ctx := context.Background()
	store := teamDB(t)
	a, b := teamServer(t, store, ""), teamServer(t, store, "")
	for _, title := range []string{"Old", "New"} {
		if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: title, Content: "about " + title}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	first := func(srv *app.App) string {
		res, err := srv.Notes.Recent(ctx, notes.RecentInput{Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Notes) == 0 {
			return ""
		}
		return res.Notes[0].Title
	}
	if got := first(a); got != "New" {
		t.Fatalf("most recent before the read: %q", got)
	}
	eventually(t, time.Second, "the other server has the notes", func() bool {
		_, err := b.Notes.Read(ctx, "Old")
		return err == nil
	})
	took := eventually(t, 5*time.Second, "the read on the other server reaches this one", func() bool { return first(a) == "Old" })
	t.Logf("a read shared after %s", took)
}

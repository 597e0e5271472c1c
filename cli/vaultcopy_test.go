package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/cli"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/pgtest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/postgres"
)

// runCopy runs a push or pull with --json and requires exit status 0.
func runCopy(t *testing.T, args ...string) cli.VaultCopyResult {
	t.Helper()
	out, errOut, code := runAll(t, "", append([]string{"--json"}, args...)...)
	if code != cli.ExitOK {
		t.Fatalf("%v: exit %d: %s%s", args, code, out, errOut)
	}
	var res cli.VaultCopyResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %v in %q", args, err, out)
	}
	return res
}

// TestVaultPushPull drives `noema vault push` and `noema vault pull` on a
// real PostgreSQL: a database without the schema is refused; a dry run
// writes nothing; a push copies the notes and skips the attachment; a
// second push changes nothing; a pull into a new folder gives the notes
// byte for byte, indexed; deletions need --delete.
func TestVaultPushPull(t *testing.T) {
	t.Setenv("NOEMA_STORE", "")
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	store := pgtest.StoreURL(t, dsn, "team")
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := corpus.Generate(ctx, dir, corpus.Options{Seed: 7, Notes: 60, Folders: 5}); err != nil {
		t.Fatal(err)
	}
	writeAll(t, filepath.Join(dir, "img", "pic.png"), "\x89PNG")
	writeAll(t, filepath.Join(dir, ".obsidian", "app.json"), "{}")
	notes := treetest.NotesOnly(treetest.Files(t, dir))

	// No schema yet: postgres.Open's error, which asks for the migration.
	out, errOut, code := runAll(t, "", "vault", "push", dir, "--to", store)
	if code != cli.ExitError || !strings.Contains(errOut, "noema store migrate") {
		t.Fatalf("push onto a database without the schema: exit %d: %s%s", code, out, errOut)
	}
	if _, err := postgres.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	// No store at all: a usage error naming the flag and the variable.
	_, errOut, code = runAll(t, "", "vault", "pull", t.TempDir())
	if code != cli.ExitUsage || !strings.Contains(errOut, "--from") || !strings.Contains(errOut, "NOEMA_STORE") {
		t.Fatalf("pull without a store: exit %d: %s", code, errOut)
	}

	dry := runCopy(t, "vault", "push", dir, "--to", store, "--dry-run")
	if !dry.DryRun || dry.Created != 60 || len(dry.Steps) != 60 || dry.Skipped != 1 || dry.Vault != "team" {
		t.Fatalf("dry run: %+v", dry)
	}
	// The --vault folder is the default DIR, $NOEMA_STORE the default store.
	t.Setenv("NOEMA_STORE", store)
	pushed := runCopy(t, "--vault", dir, "vault", "push")
	if pushed.DryRun || pushed.Created != 60 || pushed.Skipped != 1 || pushed.Dir != dir {
		t.Fatalf("push after the dry run: %+v", pushed)
	}
	t.Setenv("NOEMA_STORE", "")
	again := runCopy(t, "vault", "push", dir, "--to", store)
	if again.Changes() != 0 || again.Unchanged != 60 {
		t.Fatalf("a second push: %+v", again)
	}

	// A dry-run pull into a folder that is not there creates nothing.
	pulled := filepath.Join(t.TempDir(), "pulled")
	if res := runCopy(t, "vault", "pull", "--from", store, pulled, "--dry-run"); res.Created != 60 {
		t.Fatalf("dry-run pull: %+v", res)
	}
	if _, err := os.Stat(pulled); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a dry-run pull created %s (%v)", pulled, err)
	}
	if res := runCopy(t, "vault", "pull", "--from", store, pulled); res.Created != 60 || res.Skipped != 0 {
		t.Fatalf("pull: %+v", res)
	}
	if got := treetest.Files(t, pulled); !maps.Equal(got, notes) {
		t.Fatalf("pulled %d files, want the %d notes byte for byte", len(got), len(notes))
	}
	var st statusOut
	runJSON(t, pulled, 0, &st, "status")
	if st.Notes != 60 {
		t.Fatalf("status of the pulled vault: %d notes, want 60 (indexed by the pull)", st.Notes)
	}
	// A second pulled folder stays a plain folder, for pull --delete below.
	plain := filepath.Join(t.TempDir(), "plain")
	if res := runCopy(t, "vault", "pull", "--from", store, plain); res.Created != 60 {
		t.Fatalf("a second pull: %+v", res)
	}
	// The pulled folder holds exactly the store's notes: it may become the
	// store's working copy.
	if out, errOut, code := runAll(t, "", "--vault", pulled, "--store", store, "status"); code != 0 {
		t.Fatalf("status of the pulled folder as the store's working copy: exit %d: %s%s", code, out, errOut)
	}
	// A working copy follows its store by itself: no pull into it.
	if out, errOut, code := runAll(t, "", "vault", "pull", "--from", store, pulled); code != 1 || !strings.Contains(out+errOut, "working copy") {
		t.Fatalf("a pull into a working copy: exit %d: %s%s", code, out, errOut)
	}

	// A note deleted from the folder stays in the store without --delete.
	var gone string
	for p := range notes {
		gone = p
		break
	}
	if err := os.Remove(filepath.Join(dir, gone)); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runAll(t, "", "vault", "push", dir, "--to", store)
	if code != 0 || !strings.Contains(out, "pushed "+dir) || !strings.Contains(out, "kept 1 note") ||
		!strings.Contains(out, "--delete") || !strings.Contains(out, "skipped 1 attachment") {
		t.Fatalf("push without --delete: exit %d: %s%s", code, out, errOut)
	}
	if res := runCopy(t, "vault", "push", dir, "--to", store, "--delete"); res.Deleted != 1 || res.Unchanged != 59 {
		t.Fatalf("push --delete: %+v", res)
	}
	if res := runCopy(t, "vault", "pull", "--from", store, plain, "--delete"); res.Deleted != 1 || res.Unchanged != 59 {
		t.Fatalf("pull --delete: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(plain, gone)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the pull did not delete %s", gone)
	}
	// The working copy catches the deletion up when it is next opened.
	if out, errOut, code := runAll(t, "", "--vault", pulled, "--store", store, "status"); code != 0 {
		t.Fatalf("status of the working copy: exit %d: %s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(pulled, gone)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the working copy still holds %s, deleted from its store", gone)
	}
}

func writeAll(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

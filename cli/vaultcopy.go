package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/postgres"
	"github.com/noema-mem/noema/storecopy"
	"github.com/noema-mem/noema/vault"
)

// `noema vault push` and `noema vault pull` move a vault's note files
// between a folder and a team's PostgreSQL store (docs/teams.md), as one
// changeset on the side that is written (package storecopy).

// VaultPushInput is `noema vault push`'s argument and flags.
type VaultPushInput struct {
	Dir    string `json:"dir" cli:"arg=DIR,optional" jsonschema:"the vault folder to push (default: the --vault folder)"`
	To     string `json:"to" jsonschema:"the store to push onto, postgres://user@host:5432/db?vault=NAME (default: --store, else $NOEMA_STORE)"`
	Delete bool   `json:"delete" jsonschema:"also delete the store's notes that the folder does not have (without it they are kept, and counted)"`
	DryRun bool   `json:"dry_run" jsonschema:"list the changes and write nothing"`
}

// VaultPullInput is `noema vault pull`'s argument and flags.
type VaultPullInput struct {
	Dir    string `json:"dir" cli:"arg=DIR,optional" jsonschema:"the folder to pull into, new or a vault already (default: the --vault folder)"`
	From   string `json:"from" jsonschema:"the store to pull from, postgres://user@host:5432/db?vault=NAME (default: --store, else $NOEMA_STORE)"`
	Delete bool   `json:"delete" jsonschema:"also delete the folder's notes that the store does not have (without it they are kept, and counted)"`
	DryRun bool   `json:"dry_run" jsonschema:"list the changes and write nothing"`
}

// VaultCopyResult is what `noema vault push --json` and `noema vault pull
// --json` print: the plan's counts and steps (applied unless DryRun), and
// the attachments left alone.
type VaultCopyResult struct {
	// Dir is the vault folder, absolute.
	Dir string `json:"dir"`
	// Vault is the vault's name in the store.
	Vault  string `json:"vault"`
	DryRun bool   `json:"dry_run"`
	*storecopy.Plan
	// Skipped counts the folder's attachments (files other than *.md,
	// outside dot-folders): neither pushed nor touched by a pull.
	Skipped int `json:"skipped"`
}

// copyAbout is what push and pull have in common, for their help.
const copyAbout = " Note files (*.md) only: attachments (other files) stay in the folder and are counted as skipped. " +
	"Every change is planned from the checksum the written side has and applied as one changeset, all or nothing: " +
	"a note changed there meanwhile aborts the copy with checksum_mismatch, having written nothing. " +
	"Files are compared by checksum, so running it again changes nothing. Without --delete, notes the other side lacks are kept. " +
	"The whole changeset is held in memory: about the size of the notes it writes."

func vaultCopyCommands() []*command {
	return []*command{
		{path: "vault push", summary: "copy a vault folder's notes onto a team's PostgreSQL store",
			about: "Makes the store's notes the folder's, byte for byte: creates, replaces and (with --delete) deletes notes in the store. " +
				"The store's schema must exist (noema store migrate)." + copyAbout,
			in: reflect.TypeFor[VaultPushInput](), run: runVaultPush},
		{path: "vault pull", summary: "copy a team's PostgreSQL store's notes into a vault folder",
			about: "Makes the folder's notes the store's, byte for byte, in a new folder or an existing vault, and then syncs the folder's index." +
				copyAbout,
			in: reflect.TypeFor[VaultPullInput](), run: runVaultPull},
	}
}

func runVaultPush(ctx context.Context, c *CLI, v any) error {
	in := v.(VaultPushInput)
	dir, db, err := c.openCopy(ctx, in.Dir, in.To, "--to", false)
	if err != nil {
		return err
	}
	defer db.Close()
	folder, err := openFolder(ctx, dir)
	if err != nil {
		return err
	}
	plan, err := copyStore(ctx, folder, db, in.Delete, in.DryRun)
	if err != nil {
		return err
	}
	return c.reportCopy(dir, db.Name(), in.DryRun, plan, "push")
}

func runVaultPull(ctx context.Context, c *CLI, v any) error {
	in := v.(VaultPullInput)
	dir, db, err := c.openCopy(ctx, in.Dir, in.From, "--from", true)
	if err != nil {
		return err
	}
	defer db.Close()
	// A working copy follows its store by itself; a pull into it would
	// write the folder behind the follower's back.
	if _, err := os.Stat(filepath.Join(dir, ".noema", indexer.FollowFile)); err == nil {
		return noema.Errorf(noema.EINVALID, "%s is a team server's working copy (.noema/%s): it follows its store by itself; serve it with --store, or pull into another folder", dir, indexer.FollowFile)
	}
	var plan *storecopy.Plan
	if exists(dir) || !in.DryRun {
		folder, err := openFolder(ctx, dir) // creates it
		if err != nil {
			return err
		}
		if plan, err = copyStore(ctx, db, folder, in.Delete, in.DryRun); err != nil {
			return err
		}
	} else if plan, err = storecopy.Prepare(ctx, db, noFiles{}, storecopy.Options{Delete: in.Delete}); err != nil {
		return err // a dry run into a folder that is not there creates nothing
	}
	if !in.DryRun && plan.Changes() > 0 {
		if err := c.syncFolder(ctx, dir); err != nil {
			return err
		}
	}
	return c.reportCopy(dir, db.Name(), in.DryRun, plan, "pull")
}

// openCopy returns the folder of a push or pull, absolute (its DIR
// argument, else the --vault folder; a missing one is not_found unless
// create), and opens the store storeArg names (the flag storeFlag, else
// the global --store, else $NOEMA_STORE).
func (c *CLI) openCopy(ctx context.Context, dirArg, storeArg, storeFlag string, create bool) (string, *postgres.Store, error) {
	dir := dirArg
	if dir == "" {
		var err error
		if dir, err = c.vaultFolder(); err != nil {
			return "", nil, err
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, fmt.Errorf("vault folder: %w", err)
	}
	if err := checkFolder(dir, create, "give the folder to push, or --vault"); err != nil {
		return "", nil, err
	}
	storeURL := storeArg
	if storeURL == "" {
		if storeURL, err = c.storeDSN(); err != nil {
			return "", nil, usagef("no store given: pass %s postgres://… or set NOEMA_STORE", storeFlag)
		}
	}
	db, err := postgres.OpenStore(ctx, storeURL, c.logger())
	if err != nil {
		return "", nil, err
	}
	return dir, db, nil
}

// openFolder opens dir as a folder store, finishing a changeset a killed
// writer left half done first, as every command that opens a vault does.
func openFolder(ctx context.Context, dir string) (*vault.Store, error) {
	v, err := vault.Open(dir)
	if err != nil {
		return nil, err
	}
	if _, err := v.Recover(ctx); err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	return v.Store(), nil
}

// copyStore plans the copy of src onto dst and, unless dryRun, applies it.
func copyStore(ctx context.Context, src storecopy.Source, dst storecopy.Target, del, dryRun bool) (*storecopy.Plan, error) {
	plan, err := storecopy.Prepare(ctx, src, dst, storecopy.Options{Delete: del})
	if err != nil || dryRun {
		return plan, err
	}
	_, err = plan.Apply(ctx, dst)
	return plan, err
}

// syncFolder brings the index of the vault in dir up to date with the
// files a pull wrote, so the next command reads them. The folder is
// indexed as a vault of its own: a store in its configuration (or
// NOEMA_STORE, which named the store pulled from) would make it that
// store's working copy, which a folder holding notes may not become.
func (c *CLI) syncFolder(ctx context.Context, dir string) error {
	cfg, err := c.config(dir)
	if err != nil {
		return err
	}
	cfg.Store = ""
	a, err := app.Open(ctx, dir, app.Options{Logger: c.logger(), Config: &cfg})
	if err != nil {
		return err
	}
	defer a.Close()
	bar := c.progressBar("sync")
	defer bar.finish()
	if _, err := a.Sync(ctx, false, bar.update); err != nil {
		return fmt.Errorf("the notes are pulled, but the index is behind (run noema sync): %w", err)
	}
	return nil
}

// reportCopy prints the result of verb, "push" or "pull".
func (c *CLI) reportCopy(dir, vaultName string, dryRun bool, plan *storecopy.Plan, verb string) error {
	skipped, err := attachments(dir)
	if err != nil {
		return err
	}
	if c.json {
		return writeJSON(c.Stdout, VaultCopyResult{Dir: dir, Vault: vaultName, DryRun: dryRun, Plan: plan, Skipped: skipped})
	}
	w := c.Stdout
	where, kept := fmt.Sprintf("%s onto vault %q", dir, vaultName), "in the store that the folder does not have"
	if verb == "pull" {
		where, kept = fmt.Sprintf("vault %q into %s", vaultName, dir), "in the folder that the store does not have"
	}
	done := verb + "ed"
	if dryRun {
		done = "would " + verb
	}
	fmt.Fprintf(w, "%s %s: %d created, %d replaced, %d deleted, %d unchanged\n",
		done, where, plan.Created, plan.Replaced, plan.Deleted, plan.Unchanged)
	if dryRun {
		for _, s := range plan.Steps {
			fmt.Fprintf(w, "  %-7s %s\n", s.Action, s.Path)
		}
	}
	if plan.Kept > 0 {
		fmt.Fprintf(w, "kept %s %s (pass --delete to delete such notes)\n", plural(plan.Kept, "note"), kept)
	}
	if skipped > 0 {
		fmt.Fprintf(w, "skipped %s (files other than *.md): they stay in the folder\n", plural(skipped, "attachment"))
	}
	if dryRun {
		fmt.Fprintln(w, "dry run: nothing written")
	}
	return nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// attachments counts the files under dir that are not notes: regular
// files not ending in .md, outside dot-folders and dot-files (where noema
// keeps its own). A folder that does not exist has none.
func attachments(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !strings.HasSuffix(d.Name(), ".md") {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("count attachments: %w", err)
	}
	return n, nil
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// noFiles is an empty store: the target of a dry-run pull into a folder
// that does not exist yet.
type noFiles struct{}

func (noFiles) ListFiles(context.Context, func(noema.FileInfo) error) error { return nil }

func (noFiles) ReadFile(_ context.Context, path string) (*noema.File, error) {
	return nil, noema.Errorf(noema.ENOTFOUND, "no note at %s", noema.NoteURI(path))
}

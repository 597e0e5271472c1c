package indexer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/noema-mem/noema"
)

// Watch keeps the index live until ctx is done: it watches every folder of
// the vault (dot-folders excluded), waits until events have been quiet for
// debounce, then indexes the Markdown files that changed. A folder created
// or moved in is walked (only it) and its notes are indexed; a folder
// removed or moved away takes the notes the index holds under it. Work is
// proportional to what changed, never a walk of the whole vault, except
// after the watcher loses events (a queue overflow), when it runs a full
// incremental Sync; so does a new folder holding a symbolically linked note,
// which Sync's rules decide. onSync, when not nil, is told about every sync
// the watcher runs.
func (ix *Indexer) Watch(ctx context.Context, debounce time.Duration, onSync func(*Result, error)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("start watcher: %w", err)
	}
	defer w.Close()
	if err := ix.addWatches(w, ix.Vault.Root); err != nil {
		return err
	}
	if debounce <= 0 {
		debounce = 300 * time.Millisecond
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	pending := make(map[string]bool)
	gone := make(map[string]bool) // paths removed or renamed away that may be folders
	full := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			// An overflow loses events: fall back to a full incremental sync.
			ix.Logger.Warn("watcher error; scheduling a full sync", "err", err)
			full = true
			timer.Reset(debounce)
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			rel, err := filepath.Rel(ix.Vault.Root, ev.Name)
			if err != nil || hiddenPath(rel) {
				continue
			}
			rel = filepath.ToSlash(rel)
			if strings.HasSuffix(strings.ToLower(rel), ".md") {
				pending[rel] = true
			} else if ev.Has(fsnotify.Create) {
				// Lstat: Sync does not descend into linked folders either.
				if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
					if !ix.watchNewFolder(w, ev.Name, pending) {
						full = true
					}
				}
			} else if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				gone[rel] = true // possibly a folder; its notes are gone with it
			}
			timer.Reset(debounce)
		case <-timer.C:
			var res *Result
			var err error
			if !full {
				// The notes the index holds under a folder that went away.
				for dir := range gone {
					under, qerr := ix.DB.NotePathsUnder(ctx, dir)
					if qerr != nil {
						ix.Logger.Warn("watcher: notes under a removed folder; scheduling a full sync", "folder", dir, "err", qerr)
						full = true
						break
					}
					for _, p := range under {
						pending[p] = true
					}
				}
			}
			clear(gone)
			if full {
				res, err = ix.Sync(ctx, nil)
			} else {
				paths := make([]string, 0, len(pending))
				for p := range pending {
					paths = append(paths, p)
				}
				res, err = ix.syncChanged(ctx, paths)
			}
			full = false
			clear(pending)
			if err != nil && !errors.Is(err, context.Canceled) {
				ix.Logger.Error("watcher sync", "err", err)
			}
			if onSync != nil {
				onSync(res, err)
			}
		}
	}
}

// syncChanged indexes paths whose (size, mtime) no longer match the index;
// our own writes were indexed already and are skipped cheaply.
func (ix *Indexer) syncChanged(ctx context.Context, paths []string) (*Result, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var todo []string
	for _, rel := range paths {
		abs, err := ix.Vault.Abs(rel)
		if err != nil {
			continue
		}
		info, statErr := os.Stat(abs)
		st, indexed, err := ix.DB.NoteState(ctx, rel)
		if err != nil {
			return nil, err
		}
		switch {
		case statErr != nil && !indexed:
			continue // gone and never indexed
		case statErr == nil && indexed && sameStat(st.Size, st.MtimeNS, st.File, info):
			if !racy(st.File, info) {
				continue // already indexed
			}
			// Written moments ago — typically noema's own write, indexed
			// already: compare the content rather than index it again.
			if content, _, rerr := ix.Vault.ReadFile(rel); rerr == nil && noema.Checksum(content) == st.Hash {
				continue
			}
		}
		todo = append(todo, rel)
	}
	if len(todo) == 0 {
		return &Result{Warnings: []Warning{}}, nil
	}
	return ix.SyncPaths(ctx, todo, "")
}

// watchNewFolder watches dir, a folder just created or moved into the
// vault, and every folder below it (dot-folders excluded), and queues its
// notes in pending: a walk of that folder only. Files created in it before
// its watch was added are found by the walk, those after by the watch. It
// reports false when the folder holds a symbolically linked note, whose
// inclusion Sync's rules decide (the caller runs one).
func (ix *Indexer) watchNewFolder(w *fsnotify.Watcher, dir string, pending map[string]bool) bool {
	ok := true
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone or unreadable: what Sync would skip too
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if err := w.Add(path); err != nil {
				ix.Logger.Warn("cannot watch folder", "path", path, "err", err)
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		if !d.Type().IsRegular() {
			ok = false
			return filepath.SkipAll
		}
		if rel, err := filepath.Rel(ix.Vault.Root, path); err == nil {
			pending[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	return ok
}

func (ix *Indexer) addWatches(w *fsnotify.Watcher, root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return fmt.Errorf("watch %s: %w", path, err)
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err := w.Add(path); err != nil {
			ix.Logger.Warn("cannot watch folder", "path", path, "err", err)
		}
		return nil
	})
}

func hiddenPath(rel string) bool {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

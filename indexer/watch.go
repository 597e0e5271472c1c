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
	"github.com/noema-mem/noema/vault"
)

// Watch keeps the index live until ctx is done: it watches every folder of
// the vault (dot-folders excluded), waits until events have been quiet for
// debounce, then indexes the Markdown files that changed. Folder changes
// (a folder created, moved or removed) trigger a full incremental Sync,
// which also picks up everything inside them. onSync, when not nil, is told
// about every sync the watcher runs.
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
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
					_ = ix.addWatches(w, ev.Name)
					full = true
				}
			} else if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				full = true // possibly a folder; its files are gone with it
			}
			timer.Reset(debounce)
		case <-timer.C:
			var res *Result
			var err error
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
			if content, _, rerr := ix.Vault.ReadFile(rel); rerr == nil && vault.Checksum(content) == st.Hash {
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

package app

import (
	"context"
	"errors"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/internal/lock"
)

// lockRetry is how often a server that is not the indexer checks whether
// the indexer's lock has become free (its holder exited or died).
const lockRetry = 3 * time.Second

// firstSyncPauseMax bounds the pause before a failed first sync is run
// again.
const firstSyncPauseMax = 30 * time.Second

// Start runs Serve in the background until ctx is done or Close is
// called; Close waits for it, and for every goroutine it started, before
// it closes the index.
func (a *App) Start(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	a.mu.Lock()
	a.stopBackground = cancel
	a.mu.Unlock()
	// find_concepts' names and fuzzy choices are built first, alone: the
	// other structures that read every concept (its second channel's
	// index, the search's concept names, the concept vectors) would share
	// the cores with them, and at a million concepts the first answer came
	// after a minute (issue 21). Then the second channel's index and the
	// search's names and note vectors, side by side; the concept vectors
	// (Serve's refresh) once the second channel's index is built.
	choices, names := make(chan struct{}), make(chan struct{})
	a.mu.Lock()
	a.names = names
	a.mu.Unlock()
	a.background.Go(func() {
		defer close(names)
		if err := a.Concepts.Warm(ctx, func() { close(choices) }); err != nil && ctx.Err() == nil {
			a.Logger.Warn("loading concept names", "err", err)
		}
	})
	a.background.Go(func() { a.Serve(ctx) })
	if a.reads != nil {
		a.background.Go(func() { a.reads.run(ctx, a.store, a.Logger) })
	}
	if a.Follower != nil {
		a.background.Go(func() {
			if err := a.Follower.Run(ctx); err != nil && ctx.Err() == nil {
				a.Logger.Error("following the store stopped", "err", err)
			}
		})
	}
	// The note vectors load beside the first sync, so that the first
	// semantic search does not wait for them (a hybrid one meanwhile
	// answers by full text, saying so).
	warm := a.Search.Warming() // before the first request can arrive
	a.background.Go(func() {
		select {
		case <-choices:
		case <-ctx.Done():
			return
		}
		if err := warm(ctx); err != nil && ctx.Err() == nil {
			a.Logger.Warn("loading note vectors", "err", err)
		}
		// The load read every vector through the SQLite driver, which
		// allocates each row's blob: hundreds of MB of garbage at 100k
		// notes, which the runtime would otherwise hand back to the
		// system only slowly. Return it now, once.
		debug.FreeOSMemory()
	})
}

// WarmedUp is closed once find_concepts' warm-up begun by Start has ended
// (its names, fuzzy choices and second channel's index built, or failed):
// work that can wait, such as the web view's map, waits for it so as not
// to compete with a server's first answers. Closed at once when Start was
// not called.
func (a *App) WarmedUp() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.names == nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return a.names
}

// Serve keeps the index live for a serving process until ctx is done. It
// makes this process the vault's indexer when no other process is: it takes
// the indexer lock, runs the first sync, embeds in the background and then
// watches the files, embedding again after every quiet period. Without the
// lock it is a reader and retries, so a surviving server takes over when the
// indexer exits. Run it with Start (so Close waits for it): none of it
// delays answering requests.
func (a *App) Serve(ctx context.Context) {
	path := filepath.Join(a.Vault.Root, IndexDir, "indexer.lock")
	for {
		l, err := lock.TryAcquire(path)
		if err == nil {
			defer l.Release()
			a.SetRole(RoleIndexer)
			a.index(ctx)
			return
		}
		if !errors.Is(err, lock.ErrHeld) {
			a.Logger.Warn("indexer lock", "err", err)
		}
		a.SetRole(RoleReader)
		select {
		case <-ctx.Done():
			return
		case <-time.After(lockRetry):
		}
	}
}

// index is the indexer's work: first sync, embeddings, then the watcher.
func (a *App) index(ctx context.Context) {
	// The first sync brings in what changed while no server watched the
	// files; the watcher sees only what changes after it starts. One that
	// fails is run again before the watcher starts: an index left without
	// it would miss those changes until the next restart (status shows
	// the failure meanwhile).
	firstSync := func(ctx context.Context) error {
		_, err := a.Sync(ctx, false, nil)
		return err
	}
	if !untilDone(ctx, firstSync, time.Second, firstSyncPauseMax, func(err error, pause time.Duration) {
		a.Logger.Error("first sync; trying again", "err", err, "retry_in", pause)
	}) {
		return
	}
	// Embeddings follow the registry in the background; an unreachable
	// backend only affects the semantic tools.
	refresh := func() {
		if a.names != nil { // after find_concepts' names (Start)
			select {
			case <-a.names:
			case <-ctx.Done():
				return
			}
		}
		if err := a.Semantic.Refresh(ctx); err != nil && ctx.Err() == nil {
			a.Logger.Warn("embedding concepts", "err", err)
		}
		if err := a.Semantic.RefreshDecay(ctx); err != nil && ctx.Err() == nil {
			a.Logger.Warn("reading concepts' freshness", "err", err)
		}
		if err := a.Semantic.RefreshChunks(ctx); err != nil && ctx.Err() == nil {
			a.Logger.Warn("embedding note chunks", "err", err)
		}
	}
	a.background.Go(refresh)
	// After every quiet period of file events (tool writes included, which
	// the index already holds): embed what changed.
	onSync := func(_ *indexer.Result, err error) {
		if err == nil {
			a.background.Go(refresh)
		}
	}
	if err := a.Indexer.Watch(ctx, a.Config.WatchDebounce, onSync); err != nil && ctx.Err() == nil {
		a.Logger.Error("file watcher stopped", "err", err)
	}
}

// untilDone runs fn until it succeeds, pausing after each failure (first
// pause, then twice the last, up to max) and telling failed about it. It
// reports false when ctx ended first.
func untilDone(ctx context.Context, fn func(context.Context) error, pause, max time.Duration, failed func(err error, pause time.Duration)) bool {
	for {
		err := fn(ctx)
		if ctx.Err() != nil {
			return false
		}
		if err == nil {
			return true
		}
		failed(err, pause)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(pause):
		}
		pause = min(2*pause, max)
	}
}

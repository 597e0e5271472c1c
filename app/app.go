// Package app opens one vault with everything needed to serve it: the
// files, the index, the indexer and the services every front end (CLI and
// MCP) calls. It also tracks background sync progress for `status`.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/postgres"
	"github.com/noema-mem/noema/recall"
	"github.com/noema-mem/noema/relations"
	"github.com/noema-mem/noema/search"
	"github.com/noema-mem/noema/semantic"
	"github.com/noema-mem/noema/sqlite"
	"github.com/noema-mem/noema/vault"
)

// IndexDir is the folder inside a vault that holds the index.
const IndexDir = ".noema"

// NamesFile is the file in IndexDir that keeps find_concepts' names
// between processes (concepts.Service.NamesFile): a cache of the index,
// read at a server's start.
const NamesFile = "concept-names.snap"

// VectorsFile is the file in IndexDir that keeps the note chunks' vectors
// between processes (search.Service.VectorsFile): a cache of the index,
// written after a process read them from it, ignored when it is not of
// the index, the model or the build reading it.
const VectorsFile = "chunk-vectors.snap"

// Options configures Open.
type Options struct {
	// Config is the loaded configuration; nil loads it from the vault's
	// config file and the environment (see package config).
	Config *config.Config
	// MaxNoteBytes overrides Config.MaxNoteBytes when positive.
	MaxNoteBytes int64
	Logger       *slog.Logger
}

// App is an open vault.
type App struct {
	Vault    *vault.Vault
	DB       *sqlite.DB
	Indexer  *indexer.Indexer
	Notes    *notes.Service
	Concepts *concepts.Service
	// Relations edits typed relations in front matter.
	Relations *relations.Service
	// Semantic embeds concepts and finds similar ones.
	Semantic *semantic.Service
	// Search searches note contents (search_notes).
	Search *search.Service
	// Recall builds the context around a concept (build_context).
	Recall *recall.Service
	// Graph analyses the concept graph (analyze_graph), caching each
	// result until the graph changes.
	Graph *graph.Analyzer
	// GraphIndex is the index the graph is read from (export_graph,
	// get_node, neighbors, subgraph).
	GraphIndex noema.GraphIndex
	Config     config.Config
	Logger     *slog.Logger
	// Follower keeps the folder the working copy of a team's store of
	// record (Config.Store); nil when the folder is the store.
	Follower *indexer.Follower
	store    *postgres.Store
	reads    *sharedReads // the reads shared with the store's other servers

	mu        sync.Mutex
	progress  SyncProgress
	rebuildMu sync.Mutex // one rebuild of a deleted index at a time (Check)
	role      string

	// background runs Start's goroutines (Serve and the embedding
	// refreshes it starts); Close cancels them with stopBackground and
	// waits for them.
	background     sync.WaitGroup
	stopBackground context.CancelFunc
	// names is closed once Start's warm-up of find_concepts' names ended;
	// the other warm-ups wait for it. Set by Start, before its goroutines.
	names chan struct{}
}

// Roles of a serving process on its vault.
const (
	// RoleIndexer holds the vault's indexer lock: it syncs and watches files.
	RoleIndexer = "indexer"
	// RoleReader answers requests and indexes its own writes; another
	// process watches the files.
	RoleReader = "reader"
)

// SetRole records this process's role for Status.
func (a *App) SetRole(role string) {
	a.mu.Lock()
	a.role = role
	a.mu.Unlock()
}

// Role returns the role set with SetRole ("" for a one-shot CLI command).
func (a *App) Role() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.role
}

// Open opens the vault at dir (creating it when missing) and its index.
func Open(ctx context.Context, dir string, opts Options) (*App, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	v, err := vault.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	// Finish a multi-file change a killed writer left half done, before
	// anything reads the files (see noema.Changeset).
	recovered, err := v.Recover(ctx)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	var cfg config.Config
	if opts.Config != nil {
		cfg = *opts.Config
	} else if cfg, err = config.Load(v.Root, nil); err != nil {
		return nil, err
	}
	if opts.MaxNoteBytes > 0 {
		cfg.MaxNoteBytes = opts.MaxNoteBytes
	}
	v.OperationLimits = vault.OperationLimits{MaxAge: cfg.Operations.MaxAge, MaxBytes: cfg.Operations.MaxBytes}
	emb, err := NewEmbedder(cfg.Embedder, nil)
	if err != nil {
		return nil, err
	}
	db, err := sqlite.Open(ctx, filepath.Join(v.Root, IndexDir, "index.db"))
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	ix := indexer.New(v, db, opts.Logger)
	ix.MaxNoteBytes = cfg.MaxNoteBytes
	if ix.Ignore, err = indexer.NewLinkFilter(cfg.Concepts.Ignore); err != nil {
		db.Close()
		return nil, err
	}
	// A changed concepts.ignore list makes the next sync read every note again.
	if _, err := db.SetIgnoreList(ctx, ix.Ignore.String()); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := ix.Repair(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if recovered != nil && len(recovered.Files) > 0 {
		if _, err := ix.SyncPaths(ctx, recovered.Files, ""); err != nil {
			db.Close()
			return nil, err
		}
	}
	store, follower, err := openStore(ctx, cfg.Store, v, ix, opts.Logger)
	if err != nil {
		db.Close()
		return nil, err
	}
	if store != nil { // the team's operation log, kept in the database
		store.OperationLimits = v.OperationLimits
	}
	var noteIndex noema.NoteIndex = db.Notes()
	var reads *sharedReads
	if follower != nil {
		reads = newSharedReads(noteIndex)
		follower.Server = reads.server
		noteIndex = reads
	}
	cs := concepts.New(v, db.Concepts(), ix)
	cs.Ignore = ix.Ignore
	cs.NamesFile = filepath.Join(v.Root, IndexDir, NamesFile)
	a := &App{Vault: v, DB: db, Indexer: ix, Notes: notes.New(v, noteIndex, ix, ix.MaxNoteBytes), Concepts: cs, Relations: relations.New(v, db.Relations(), ix, cs),
		Semantic: semantic.New(db.Semantic(), emb, cfg.Decay, opts.Logger), Search: search.New(db.Search(), emb, cfg.Decay), Recall: recall.New(db.Mentions(), cs, cfg.Decay),
		Config: cfg, Logger: opts.Logger, Follower: follower, store: store, reads: reads}
	a.Semantic.Chunking = chunking(cfg.Embedder.Chunks)
	a.Search.Chunking = a.Semantic.Chunking
	cs.Similarity = a.Semantic.Similarity
	a.GraphIndex = db.Graph()
	a.Graph = graph.NewAnalyzer(db.Graph())
	a.Recall.Community = a.Graph.RecentConceptCommunity
	a.Search.Time = db.Time()
	a.Search.VectorsFile = filepath.Join(v.Root, IndexDir, VectorsFile)
	a.Recall.Time = db.Time()
	return a, nil
}

// Close stops the background work Start began, waits until every
// goroutine of it has returned, and then closes the index.
func (a *App) Close() error {
	a.mu.Lock()
	stop := a.stopBackground
	a.mu.Unlock()
	if stop != nil {
		stop()
	}
	a.background.Wait()
	if a.store != nil {
		if a.reads != nil && stop == nil { // a command that never started: share its reads now
			a.reads.flush(a.store, a.Logger)
		}
		a.store.Close()
	}
	return a.DB.Close()
}

// Check makes sure, before a request, that the vault and its index are
// still where the App opened them. A vault folder moved, renamed or
// deleted meanwhile is noema.EUNAVAILABLE naming the folder (see
// vault.Vault.Check), and nothing is created at the old path. An index
// deleted meanwhile (its .noema/ folder removed) is opened afresh and
// rebuilt from the files with a full sync before Check returns; requests
// checking meanwhile wait for it.
func (a *App) Check(ctx context.Context) error {
	if err := a.Vault.Check(); err != nil {
		return err
	}
	a.rebuildMu.Lock()
	defer a.rebuildMu.Unlock()
	reopened, err := a.DB.Reopen(ctx)
	if err != nil {
		return fmt.Errorf("reopen the deleted index: %w", err)
	}
	if reopened {
		a.Logger.Warn("the index was deleted while serving; rebuilding it from the vault", "index", a.DB.Path())
		if _, err := a.Sync(ctx, false, nil); err != nil {
			return fmt.Errorf("rebuild the deleted index: %w", err)
		}
	}
	return nil
}

// SyncProgress is the state of the current or last sync run through the App.
type SyncProgress struct {
	Running    bool            `json:"running"`
	Done       int             `json:"done"`
	Total      int             `json:"total"`
	StartedAt  time.Time       `json:"started_at,omitzero"`
	FinishedAt time.Time       `json:"finished_at,omitzero"`
	LastError  string          `json:"last_error,omitempty"`
	LastResult *indexer.Result `json:"last_result,omitempty"`
}

// Sync runs an incremental sync (or a full rebuild when rebuild is true),
// recording progress for Status and forwarding it to progress.
func (a *App) Sync(ctx context.Context, rebuild bool, progress indexer.Progress) (*indexer.Result, error) {
	a.mu.Lock()
	a.progress = SyncProgress{Running: true, StartedAt: time.Now().UTC(), LastResult: a.progress.LastResult}
	a.mu.Unlock()
	track := func(done, total int) {
		a.mu.Lock()
		a.progress.Done, a.progress.Total = done, total
		a.mu.Unlock()
		if progress != nil {
			progress(done, total)
		}
	}
	run := a.Indexer.Sync
	if rebuild {
		run = a.Indexer.Reindex
	}
	res, err := run(ctx, track)
	a.mu.Lock()
	a.progress.Running = false
	a.progress.FinishedAt = time.Now().UTC()
	if err != nil {
		a.progress.LastError = err.Error()
	} else {
		a.progress.LastResult = res
	}
	a.mu.Unlock()
	return res, err
}

// Progress returns the state of the current or last sync.
func (a *App) Progress() SyncProgress {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.progress
}

// DefaultVaultDir returns the vault used when neither --vault nor
// NOEMA_VAULT is given: $XDG_DATA_HOME/noema/vault, else
// ~/.local/share/noema/vault.
func DefaultVaultDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "noema", "vault"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "noema", "vault"), nil
}

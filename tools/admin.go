package tools

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/indexer"
)

// StatusInput takes no arguments.
type StatusInput struct{}

// SyncInput selects the kind of sync.
type SyncInput struct {
	Rebuild bool `json:"rebuild,omitempty" jsonschema:"rebuild the whole index from the files instead of an incremental sync (default false)" default:"false"`
	// Embed is for the command line, which has no background embedding.
	Embed bool `json:"-" jsonschema:"also embed concepts and note chunks now (the servers do it in the background)" cli:"name=embed"`
}

// ReindexInput rebuilds the index.
type ReindexInput struct {
	Embed bool `json:"-" jsonschema:"also embed concepts and note chunks now (the servers do it in the background)" cli:"name=embed"`
}

func adminTools() []*Tool {
	return []*Tool{
		New(Def{
			Name: "status", Command: "status", Toolset: "admin", Title: "Index status", Hints: readOnly,
			Description: "What the index holds (notes, concepts, mentions, relations), when it last synced, files it skipped, the progress of a running sync, and, for a team vault, how far this server has followed its store of record.",
		}, func(ctx context.Context, e *Env, _ StatusInput) (*app.Status, error) {
			return e.App.Status(ctx)
		}, textStatus),

		Embeds(New(Def{
			Name: "sync", Command: "sync", Toolset: "admin", Title: "Sync the index", Hints: idempotent,
			Description: "Index what changed in the vault's files now (the file watcher normally does this). Sends progress notifications when the request has a progress token.",
		}, func(ctx context.Context, e *Env, in SyncInput) (*indexer.Result, error) {
			return runSync(ctx, e, in.Rebuild, in.Embed)
		}, textSync), func(in SyncInput) bool { return in.Embed }),

		Embeds(New(Def{
			Command: "reindex", Title: "Rebuild the index from the files",
			Description: "Re-derive every note's index rows from its file (sync with rebuild).",
		}, func(ctx context.Context, e *Env, in ReindexInput) (*indexer.Result, error) {
			return runSync(ctx, e, true, in.Embed)
		}, textSync), func(in ReindexInput) bool { return in.Embed }),
	}
}

func runSync(ctx context.Context, e *Env, rebuild, embed bool) (*indexer.Result, error) {
	res, err := e.App.Sync(ctx, rebuild, e.Progress)
	if err != nil {
		return nil, err
	}
	// The next server reads find_concepts' names from the snapshot instead
	// of the whole registry (issue 21); a snapshot left stale only costs
	// that read.
	if err := e.App.Concepts.SaveNames(ctx); err != nil && ctx.Err() == nil {
		e.App.Logger.Warn("saving the concept names snapshot", "err", err)
	}
	if embed {
		if err := e.App.Semantic.Embed(ctx); err != nil {
			return nil, err
		}
		if err := e.App.Semantic.RefreshChunks(ctx); err != nil {
			return nil, err
		}
		// Likewise the note chunks' vectors (issue 21: at 100,000 notes
		// 8 CPU seconds of a server's start, read through SQLite).
		if err := e.App.Search.KeepVectors(ctx); err != nil && ctx.Err() == nil {
			e.App.Logger.Warn("saving the chunk vectors snapshot", "err", err)
		}
	}
	return res, nil
}

func textSync(w io.Writer, r *indexer.Result) {
	fmt.Fprintf(w, "scanned %d files: %d added, %d updated, %d renamed, %d removed, %d unchanged, %d skipped (%d ms)\n",
		r.Scanned, r.Added, r.Updated, r.Renamed, r.Removed, r.Unchanged, r.Skipped, r.DurationMS)
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s: %s: %s\n", warn.Path, warn.Code, warn.Message)
	}
}

func textStatus(w io.Writer, s *app.Status) {
	fmt.Fprintf(w, "vault:     %s\nindex:     %s\n", s.Vault, s.Index)
	fmt.Fprintf(w, "notes:     %d\nconcepts:  %d\nmentions:  %d (%d links)\nrelations: %d\n",
		s.Notes, s.Concepts, s.Mentions, s.Links, s.Relations)
	if s.LastSync.IsZero() {
		fmt.Fprintln(w, "last sync: never (run `noema sync`)")
	} else {
		fmt.Fprintf(w, "last sync: %s\n", s.LastSync.Local().Format(time.RFC3339))
	}
	if s.Sync.Running {
		fmt.Fprintf(w, "syncing:   %d of %d changed files\n", s.Sync.Done, s.Sync.Total)
	}
	e := s.Embeddings
	fmt.Fprintf(w, "embedder:  %s (%d dims)", e.Embedder, e.Dimension)
	if e.Concepts > 0 || e.Running {
		fmt.Fprintf(w, ", %d of %d concepts embedded", e.Embedded, e.Concepts)
	}
	if e.Chunks > 0 || e.ChunkNotesPending > 0 {
		fmt.Fprintf(w, ", %d of %d note chunks embedded", e.ChunksEmbedded, e.Chunks)
	}
	if e.LastError != "" {
		fmt.Fprintf(w, ", last error: %s", e.LastError)
	}
	fmt.Fprintln(w)
	if strings.HasPrefix(e.Embedder, "builtin") {
		fmt.Fprintln(w, "           sees spelling, not meaning; for meaning: noema model pull, then embedder: {backend: minilm} (91 MB, see README)")
	}
	if r := s.RecoveredChangeset; r != nil {
		fmt.Fprintf(w, "recovered: an unfinished change to %d files, %s at %s\n",
			len(r.Files), strings.ReplaceAll(r.Action, "_", " "), r.At.Local().Format(time.RFC3339))
		for _, p := range r.Conflicts {
			fmt.Fprintf(w, "  left as another program changed it: %s\n", p)
		}
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "  warning: %s: %s: %s\n", warn.Path, warn.Code, warn.Message)
	}
}

package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/indexer"
)

// StatusInput takes no arguments.
type StatusInput struct{}

// SyncInput selects the kind of sync.
type SyncInput struct {
	Rebuild bool `json:"rebuild,omitempty" jsonschema:"rebuild the whole index from the files instead of an incremental sync (default false)" default:"false"`
}

func registerAdmin(r *registry) {
	add(r, "admin", &mcp.Tool{
		Name:        "status",
		Title:       "Index status",
		Description: "What the index holds (notes, concepts, mentions, relations), when it last synced, files it skipped, and the progress of a running sync.",
	}, readOnly, func(ctx context.Context, _ *mcp.CallToolRequest, _ StatusInput) (*app.Status, error) {
		return r.app.Status(ctx)
	}, textStatus)

	add(r, "admin", &mcp.Tool{
		Name:        "sync",
		Title:       "Sync the index",
		Description: "Index what changed in the vault's files now (the file watcher normally does this). Sends progress notifications when the request has a progress token.",
	}, idempotent, func(ctx context.Context, req *mcp.CallToolRequest, in SyncInput) (*indexer.Result, error) {
		var progress indexer.Progress
		if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
			progress = func(done, total int) {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(done), Total: float64(total),
					Message: fmt.Sprintf("indexed %d of %d changed files", done, total),
				})
			}
		}
		return r.app.Sync(ctx, in.Rebuild, progress)
	}, func(o *indexer.Result) string {
		return fmt.Sprintf("scanned %d files: %d added, %d updated, %d renamed, %d removed, %d unchanged, %d skipped (%d ms)",
			o.Scanned, o.Added, o.Updated, o.Renamed, o.Removed, o.Unchanged, o.Skipped, o.DurationMS)
	})
}

func textStatus(s *app.Status) string {
	out := fmt.Sprintf("%d notes, %d concepts, %d mentions, %d relations", s.Notes, s.Concepts, s.Mentions, s.Relations)
	if s.Sync.Running {
		out += fmt.Sprintf("; sync running (%d/%d)", s.Sync.Done, s.Sync.Total)
	}
	if !s.LastSync.IsZero() {
		out += "; last sync " + s.LastSync.Format("2006-01-02 15:04:05Z07:00")
	}
	if len(s.Warnings) > 0 {
		out += fmt.Sprintf("; %d files skipped (see warnings)", len(s.Warnings))
	}
	return out
}

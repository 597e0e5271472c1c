package app

import (
	"context"
	"log/slog"

	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/postgres"
	"github.com/noema-mem/noema/vault"
)

// openStore makes the folder the working copy of the store storeURL names
// (a team's PostgreSQL; see docs/teams.md) and brings it up to date; no
// store for an empty URL. The database must be reachable at start (a
// server then rides out its outages; see indexer.Follower), and a folder
// that never followed this store must hold none of its own notes.
func openStore(ctx context.Context, storeURL string, v *vault.Vault, ix *indexer.Indexer, logger *slog.Logger) (*postgres.Store, *indexer.Follower, error) {
	if storeURL == "" {
		return nil, nil, nil
	}
	store, err := postgres.OpenStore(ctx, storeURL, logger)
	if err != nil {
		return nil, nil, err
	}
	follower := indexer.NewFollower(ix, store, config.RedactURL(storeURL))
	v.SetUpstream(store, follower.Behind)
	if err := follower.CatchUp(ctx); err != nil {
		store.Close()
		return nil, nil, err
	}
	return store, follower, nil
}

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/semantic"
	"github.com/noema-mem/noema/sqlite"
	"github.com/noema-mem/noema/vault"
)

// Status describes the vault and the freshness of its index.
type Status struct {
	Vault     string `json:"vault"`
	Index     string `json:"index"`
	Notes     int    `json:"notes"`
	Concepts  int    `json:"concepts"`
	Mentions  int    `json:"mentions"`
	Links     int    `json:"links"`
	Relations int    `json:"relations"`
	// LastSync is when a sync of this index last finished (any process).
	LastSync time.Time `json:"last_sync,omitzero"`
	// Warnings are the files the last whole-vault sync skipped, and the
	// notes that share a title now.
	Warnings []indexer.Warning `json:"warnings"`
	Sync     SyncProgress      `json:"sync"`
	// Role is "indexer" when this server process syncs and watches the
	// vault, "reader" when another process does; empty for the CLI.
	Role string `json:"role,omitempty"`
	// Embeddings is the embedder in use and its progress.
	Embeddings semantic.Progress `json:"embeddings"`
	// RecoveredChangeset is the unfinished multi-file change this process
	// last finished or rolled back (on opening the vault); absent when none.
	RecoveredChangeset *vault.Recovery `json:"recovered_changeset,omitempty"`
	// Store is the team's store of record the folder is a working copy of,
	// and how far the folder has followed it; absent for a folder that is
	// its own store.
	Store *indexer.FollowState `json:"store,omitempty"`
}

// Status counts what the index holds.
func (a *App) Status(ctx context.Context) (*Status, error) {
	st := &Status{Vault: a.Vault.Root, Index: a.DB.Path(), Sync: a.Progress(), Role: a.Role(), Embeddings: a.Semantic.Status(ctx), Warnings: []indexer.Warning{},
		RecoveredChangeset: a.Vault.LastRecovery()}
	c, err := a.DB.Counts(ctx)
	if err != nil {
		return nil, err
	}
	st.Notes, st.Concepts, st.Mentions, st.Links, st.Relations = c.Notes, c.Concepts, c.Mentions, c.Links, c.Relations
	if v, err := a.DB.GetMeta(ctx, "last_sync"); err != nil {
		return nil, err
	} else if v != "" {
		st.LastSync, _ = time.Parse(time.RFC3339Nano, v)
	}
	if v, err := a.DB.GetMeta(ctx, "last_sync_warnings"); err != nil {
		return nil, err
	} else if v != "" {
		_ = json.Unmarshal([]byte(v), &st.Warnings)
	}
	// Shared titles and dangling relations as the index holds them now
	// (the last sync's list may be out of date after writes).
	dups, err := sqlite.DuplicateTitles(a.DB.Query(ctx), vault.Key)
	if err != nil {
		return nil, err
	}
	dangling, err := sqlite.DanglingRelations(a.DB.Query(ctx))
	if err != nil {
		return nil, err
	}
	st.Warnings = slices.DeleteFunc(st.Warnings, func(w indexer.Warning) bool {
		return w.Code == indexer.CodeDuplicateTitle || w.Code == indexer.CodeDanglingRelation
	})
	st.Warnings = append(st.Warnings, indexer.DuplicateTitleWarnings(dups)...)
	st.Warnings = append(st.Warnings, indexer.DanglingRelationWarnings(dangling)...)
	if a.Follower != nil {
		fs := a.Follower.State()
		st.Store = &fs
		if fs.Error != "" {
			st.Warnings = append(st.Warnings, indexer.Warning{Code: noema.EUNAVAILABLE,
				Message: fmt.Sprintf("the store of record cannot be followed (%s): answers come from this server's copy as of %s, and writes fail until it is back", fs.Error, fs.CaughtUp.Format(time.RFC3339))})
		}
	}
	return st, nil
}

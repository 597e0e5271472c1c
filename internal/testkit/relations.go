package testkit

import (
	"context"
	"slices"
	"sync"

	"github.com/noema-mem/noema"
)

// Relations is an in-memory relation index ([noema.RelationIndex]) that
// indexes the files an operation changed ([noema.IndexSync]): syncing a
// path replaces the relations indexed for it by those derive reads from
// the file, as the SQLite indexer derives them from its front matter.
// derive is the test's (testkit reads no vault): ok is false when no file
// is at the path.
type Relations struct {
	derive func(path string) (rels []noema.Relation, ok bool, err error)

	mu     sync.Mutex
	byID   map[string]noema.Relation
	pathOf map[string]string // relation id -> declaring file
	synced [][]string
}

var (
	_ noema.RelationIndex = (*Relations)(nil)
	_ noema.IndexSync     = (*Relations)(nil)
)

// NewRelations returns an empty relation index deriving files' relations
// with derive.
func NewRelations(derive func(path string) (rels []noema.Relation, ok bool, err error)) *Relations {
	return &Relations{derive: derive, byID: map[string]noema.Relation{}, pathOf: map[string]string{}}
}

// Synced returns the paths of every sync so far, one list a call.
func (r *Relations) Synced() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.synced)
}

// Relation returns the relation with the id and the file declaring it; an
// unknown id is an ENOTFOUND error.
func (r *Relations) Relation(ctx context.Context, id string) (*noema.Relation, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rel, ok := r.byID[id]
	if !ok {
		return nil, "", noema.Errorf(noema.ENOTFOUND, "no relation %s", id)
	}
	return &rel, r.pathOf[id], ctx.Err()
}

// SyncFiles re-derives the relations of the files at paths; a missing
// file's are dropped.
func (r *Relations) SyncFiles(ctx context.Context, paths []string, renamedFrom string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	derived := map[string][]noema.Relation{}
	for _, p := range paths {
		rels, _, err := r.derive(p)
		if err != nil {
			return err
		}
		derived[p] = rels
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.synced = append(r.synced, slices.Clone(paths))
	for id, p := range r.pathOf {
		if _, ok := derived[p]; ok || p == renamedFrom {
			delete(r.byID, id)
			delete(r.pathOf, id)
		}
	}
	for p, rels := range derived {
		for _, rel := range rels {
			r.byID[rel.ID], r.pathOf[rel.ID] = rel, p
		}
	}
	return nil
}

// SyncWritten is SyncFiles for files just written: a failure says the
// files changed but the index is behind.
func (r *Relations) SyncWritten(ctx context.Context, paths []string, renamedFrom string) error {
	if err := r.SyncFiles(ctx, paths, renamedFrom); err != nil {
		return noema.IndexBehind(paths, err)
	}
	return nil
}

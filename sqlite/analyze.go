package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/noema-mem/noema"
)

// This file holds the read of analyze_graph (package graph) that the
// export does not cover: the version its caches are keyed by.

// GraphVersion returns the version of everything the exported graph is
// derived from, read in one statement: the concept registry's version and
// the notes' change counter (migration 0013_note_rev.sql), which moves on
// every insert, update and delete of a note row. Every re-derivation of a
// note's links, relations or page rewrites its row, a new or deleted note
// inserts or deletes one, and every change to the concept registry bumps
// its version, so the version differs whenever the graph may have changed
// (also when it did not, e.g. when an unchanged file is re-verified: then
// a cache is rebuilt for nothing, never served stale). It costs one row
// read, not a pass over the notes.
func (g *GraphIndex) GraphVersion(ctx context.Context) (string, error) {
	var cv sql.NullString
	var rev int64
	err := g.db.rd().QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = ?), (SELECT rev FROM note_rev WHERE id = 1)`,
		ConceptsVersionKey).Scan(&cv, &rev)
	if err != nil {
		return "", fmt.Errorf("read graph version: %w", err)
	}
	return fmt.Sprintf("%s/%d", cv.String, rev), nil
}

// ConceptLinks reads what the concept graph is built from, in one
// snapshot: every concept's id and label, the concepts each note links
// (each link's key resolved to the concept that owns it, as the mentions
// of the export are), and every relation (resolved as the export resolves
// them). The links come from the DB's mention graph, refreshed with what
// changed since it was last read (see MentionGraph), so a new version of
// the graph costs a pass over memory and the relations, not over every
// link row.
func (g *GraphIndex) ConceptLinks(ctx context.Context) (*noema.ConceptLinks, error) {
	var l *noema.ConceptLinks
	defer g.db.firstMentions()()
	err := g.db.ReadTx(ctx, func(tx *sql.Tx) error {
		m, err := refreshMentions(ctx, tx, g.db.mentions.Load())
		if err != nil {
			return err
		}
		g.db.keepMentions(m)
		l = conceptLinksOf(m)
		l.Relations, err = (&graphReader{tx: tx}).AllRelations(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read concept links: %w", err)
	}
	return l, nil
}

// conceptLinksOf numbers g's live concepts by id and lists, for each live
// note that links any, its concepts in the order of their first link.
func conceptLinksOf(g *mentionGraph) *noema.ConceptLinks {
	l := &noema.ConceptLinks{}
	live := make([]int32, 0, g.NumConcepts())
	for j := range g.NumConcepts() {
		if !g.ConceptAt(int32(j)).Deleted {
			live = append(live, int32(j))
		}
	}
	slices.SortFunc(live, func(a, b int32) int { return cmp.Compare(g.ConceptAt(a).ID, g.ConceptAt(b).ID) })
	number := make([]int32, g.NumConcepts())
	l.IDs, l.Labels = make([]string, len(live)), make([]string, len(live))
	for k, j := range live {
		c := g.ConceptAt(j)
		number[j], l.IDs[k], l.Labels[k] = int32(k), c.ID, c.Label
	}
	for i := range g.NumNotes() {
		n := g.NoteAt(int32(i))
		if len(n.Order) == 0 {
			continue
		}
		cs := make([]int32, len(n.Order))
		for x, c := range n.Order {
			cs[x] = number[c]
		}
		l.Notes = append(l.Notes, cs)
	}
	return l
}

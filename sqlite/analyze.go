package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"

	"github.com/noema-mem/noema/graph"
)

// This file holds the read of analyze_graph (package graph) that the
// export does not cover: the version its caches are keyed by.

var _ graph.Source = (*DB)(nil)

// GraphVersion returns a fingerprint of everything the exported graph is
// derived from, read in one snapshot: the concept registry's version, and
// over the notes their count, highest row id and sums (modulo a prime) of
// their verification and modification times and of a digest of each row's
// id, path length and the last four hex digits of its content hash. Every
// re-derivation of a note's links, relations or page writes its
// verification time and (when the content changed) its hash, a new or
// deleted note changes the count or the sums, and every change to the
// concept registry bumps its version, so the fingerprint differs whenever
// the graph may have changed. (It may also change when the graph did not,
// e.g. when an unchanged file is re-verified: then a cache is rebuilt for
// nothing, never served stale.) The pass over the notes table it costs (a
// few milliseconds per 10,000 notes) is skipped while no other connection
// has committed since this connection last made it.
func (db *DB) GraphVersion(ctx context.Context) (string, error) {
	conn, err := db.rd().Conn(ctx)
	if err != nil {
		return "", fmt.Errorf("read graph version: %w", err)
	}
	defer conn.Close()
	// Fast path: PRAGMA data_version, per connection, changes whenever
	// another connection (the writer, another process) commits. Unchanged
	// since this connection last computed the fingerprint, the fingerprint
	// is unchanged too, and the pass over the notes is skipped.
	var dc any
	if err := conn.Raw(func(c any) error { dc = c; return nil }); err != nil {
		return "", fmt.Errorf("read graph version: %w", err)
	}
	var dv int64
	if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&dv); err != nil {
		return "", fmt.Errorf("read data version: %w", err)
	}
	if seen, ok := graphVersions.Load(dc); ok && seen.(graphVersionSeen).dataVersion == dv {
		return seen.(graphVersionSeen).version, nil
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return "", fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	var cv sql.NullString
	var count, maxID, verified, modified, digest int64
	err = tx.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = ?),
		count(*), coalesce(max(id), 0), coalesce(sum(verified_ns % 1000000007), 0), coalesce(sum(mtime_ns % 1000000007), 0),
		coalesce(sum((id * 1000003 + length(path) * 7919
			+ instr('0123456789abcdef', substr(hash, -1, 1)) + 17 * instr('0123456789abcdef', substr(hash, -2, 1))
			+ 289 * instr('0123456789abcdef', substr(hash, -3, 1)) + 4913 * instr('0123456789abcdef', substr(hash, -4, 1))) % 1000000007), 0)
		FROM notes`, ConceptsVersionKey).Scan(&cv, &count, &maxID, &verified, &modified, &digest)
	if err != nil {
		return "", fmt.Errorf("read graph version: %w", err)
	}
	v := fmt.Sprintf("%s/%d/%d/%d/%d/%d", cv.String, count, maxID, verified, modified, digest)
	// dv was read before the snapshot began: a commit in between makes the
	// next call's data version differ, and the fingerprint is read again.
	graphVersions.Store(dc, graphVersionSeen{dataVersion: dv, version: v})
	return v, nil
}

// graphVersions remembers, per read connection (its driver connection),
// the data version at which GraphVersion last read the fingerprint, and
// the fingerprint. Connections are few and long-lived; an entry of a
// closed one is never looked up again.
var graphVersions sync.Map

type graphVersionSeen struct {
	dataVersion int64
	version     string
}

var _ graph.ConceptLinker = (*DB)(nil)

// ConceptLinks reads what the concept graph is built from, in one
// snapshot: every concept's id and label, the concepts each note links
// (each link's key resolved to the concept that owns it, as the mentions
// of the export are), and every relation (resolved as the export resolves
// them). It reads the links table once instead of building every node and
// edge of a whole export.
func (db *DB) ConceptLinks(ctx context.Context) (*graph.ConceptLinks, error) {
	l := &graph.ConceptLinks{}
	err := db.ReadTx(ctx, func(tx *sql.Tx) error {
		index := map[string]int32{}
		err := eachPair(ctx, tx, `SELECT id, label FROM concepts ORDER BY id`, nil, func(id, label string) {
			index[id] = int32(len(l.IDs))
			l.IDs = append(l.IDs, id)
			l.Labels = append(l.Labels, label)
		})
		if err != nil {
			return fmt.Errorf("list concepts: %w", err)
		}

		owner := map[string]int32{} // key -> concept number
		err = eachConceptKey(ctx, tx, func(k, c string) {
			if i, ok := index[c]; ok {
				owner[k] = i
			}
		})
		if err != nil {
			return fmt.Errorf("list concept keys: %w", err)
		}

		// Links come in primary-key order: a note's rows are consecutive.
		// Each note's concepts are put in the order of their first link.
		last := int64(-1)
		var cur []placed
		flush := func() {
			if len(cur) > 0 {
				l.Notes = append(l.Notes, inLinkOrder(cur))
			}
			cur = cur[:0]
		}
		var key sql.RawBytes // looked up without a string per row
		err = eachRow(ctx, tx, `SELECT note_id, key, pos FROM links ORDER BY note_id`, nil, func(rows *sql.Rows) error {
			var note int64
			var pos int32
			if err := rows.Scan(&note, &key, &pos); err != nil {
				return err
			}
			if note != last {
				flush()
				last = note
			}
			if c, ok := owner[string(key)]; ok {
				cur = append(cur, placed{pos, c})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("list links: %w", err)
		}
		flush()

		l.Relations, err = (&graphReader{tx: tx}).AllRelations(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read concept links: %w", err)
	}
	return l, nil
}

// placed is a link of a note resolved to a concept's number, with its
// position among the note's links.
type placed struct{ pos, c int32 }

// inLinkOrder returns the concepts of a note's links in the order of
// their first link (ties, which only rows indexed before positions were
// recorded have, by concept), each once.
func inLinkOrder(links []placed) []int32 {
	slices.SortFunc(links, func(a, b placed) int { return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.c, b.c)) })
	out := make([]int32, 0, len(links))
	for _, p := range links {
		out = append(out, p.c)
	}
	return graph.FirstMentions(out)
}

package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/noema-mem/noema"
)

// ConceptLinksScan is ConceptLinks read from the tables alone, in one
// snapshot, as it was read before the mention graph kept it: every
// concept by id, every link row in one scan, resolved through
// concept_keys. Tests compare ConceptLinks with it.
func (db *DB) ConceptLinksScan(ctx context.Context) (*noema.ConceptLinks, error) {
	l := &noema.ConceptLinks{}
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
	return noema.FirstMentions(out)
}

// AllNoteStates is the state of every note read row by row, as NoteStates
// reads it without a snapshot.
func (db *DB) AllNoteStates(ctx context.Context) (list []NoteState, err error) {
	err = db.ReadTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM notes`).Scan(&n); err != nil {
			return err
		}
		set, err := readAllStates(ctx, tx, n)
		list = set.All()
		return err
	})
	return list, err
}

// KeptStatements is how many statements the write pool keeps prepared,
// and whether it keeps query.
func (db *DB) KeptStatements(query string) (int, bool) {
	c := &db.pools.Load().writeStmts
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.stmts[query]
	return len(c.stmts), ok
}

// KeptReads is how many statements the read pool keeps prepared through
// rdKept.
func (db *DB) KeptReads() int {
	c := &db.pools.Load().readStmts
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.stmts)
}

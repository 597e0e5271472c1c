package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/noema-mem/noema"
)

// This file holds the read find_similar_concepts bounds decay from
// (package semantic): every note's reference time and every concept's
// notes once, then, from the graph log (migration 0016_graph_log.sql),
// only what changed.

var _ noema.ConceptFreshnessReader = (*SemanticIndex)(nil)

// freshnessQueries read a concept's notes as one row: its id and the row
// ids of the notes linking any of its keys, comma-separated. Walking
// concept_keys by concept and each key's links by the covering index
// needs neither the notes table nor a sort (0.2 s for 770k links, where
// joining every link to its note row took 1.4 s).
const (
	freshnessAll = `SELECT k.concept_id, group_concat(l.note_id)
		FROM concept_keys k INDEXED BY concept_keys_concept CROSS JOIN links l ON l.key = k.key
		GROUP BY k.concept_id`
	freshnessSome = `SELECT k.concept_id, group_concat(l.note_id)
		FROM concept_keys k CROSS JOIN links l ON l.key = k.key
		WHERE k.concept_id IN (SELECT value FROM json_each(?)) GROUP BY k.concept_id`
	freshnessNotes = `SELECT n.id, n.path, n.modified_ns, COALESCE(a.accessed_ns, 0)
		FROM notes n LEFT JOIN access a ON a.path = n.path`
)

// ConceptFreshness reads what bounds concepts' decay (see
// [noema.ConceptFreshnessReader]).
func (s *SemanticIndex) ConceptFreshness(ctx context.Context, since int64, oldPages func(note int64) []string, v noema.FreshnessVisitor) (at int64, full bool, err error) {
	err = s.db.ReadTx(ctx, func(tx *sql.Tx) error {
		var reaches bool
		var err error
		if at, reaches, err = logReaches(ctx, tx, since); err != nil {
			return err
		}
		full = since < 0 || !reaches
		if !full && since == at {
			return nil
		}
		if !full {
			ok, err := freshnessChanges(ctx, tx, since, oldPages, v)
			if err != nil || ok {
				return err
			}
			full = true
		}
		return freshnessAllRows(ctx, tx, v)
	})
	if err != nil {
		return 0, false, fmt.Errorf("read concept freshness: %w", err)
	}
	return at, full, nil
}

// freshnessAllRows reads every note and every concept's notes.
func freshnessAllRows(ctx context.Context, tx *sql.Tx, v noema.FreshnessVisitor) error {
	if err := freshnessNoteRows(ctx, tx, freshnessNotes, nil, v); err != nil {
		return err
	}
	pages := map[string]int64{}
	err := eachPair(ctx, tx, `SELECT id, page_note_id FROM concepts INDEXED BY concepts_page WHERE page_note_id IS NOT NULL`, nil,
		func(id string, page int64) { pages[id] = page })
	if err != nil {
		return fmt.Errorf("read concept pages: %w", err)
	}
	if err := freshnessConceptRows(ctx, tx, freshnessAll, nil, pages, v); err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(pages)) { // pages of concepts nothing links
		v.Concept(id, []int64{pages[id]}, pages[id])
	}
	return nil
}

func freshnessNoteRows(ctx context.Context, tx *sql.Tx, query string, args []any, v noema.FreshnessVisitor) error {
	err := eachRow(ctx, tx, query, args, func(rows *sql.Rows) error {
		var id, mod, acc int64
		var path string
		if err := rows.Scan(&id, &path, &mod, &acc); err != nil {
			return err
		}
		v.Note(id, path, mod, acc, true)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read note times: %w", err)
	}
	return nil
}

// freshnessConceptRows reads concepts' linking notes with query, adds
// their pages (deleting them from pages) and passes them to v.Concept.
func freshnessConceptRows(ctx context.Context, tx *sql.Tx, query string, args []any, pages map[string]int64, v noema.FreshnessVisitor) error {
	var notes []int64
	err := eachRow(ctx, tx, query, args, func(rows *sql.Rows) error {
		var id string
		var list sql.RawBytes
		if err := rows.Scan(&id, &list); err != nil {
			return err
		}
		var err error
		if notes, err = appendIDList(notes[:0], string(list)); err != nil {
			return fmt.Errorf("concept %s: %w", id, err)
		}
		page := pages[id]
		if page != 0 {
			notes = append(notes, page)
			delete(pages, id)
		}
		v.Concept(id, notes, page)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read concept notes: %w", err)
	}
	return nil
}

// freshnessChanges passes what changed after the log position since to
// v; ok is false (and nothing passed) when so much changed that reading
// everything costs less.
func freshnessChanges(ctx context.Context, tx *sql.Tx, since int64, oldPages func(note int64) []string, v noema.FreshnessVisitor) (ok bool, err error) {
	ch, n, err := readLog(ctx, tx, since)
	if err != nil {
		return false, err
	}
	if n > freshnessMaxChanges {
		return false, nil
	}
	notes := maps.Clone(ch.notes)
	if notes == nil {
		notes = map[int64]bool{}
	}
	if len(ch.access) > 0 {
		err := addRows(ctx, tx, `SELECT id FROM notes WHERE path IN (SELECT value FROM json_each(?))`,
			[]any{jsonArg(slices.Sorted(maps.Keys(ch.access)))}, notes)
		if err != nil {
			return false, fmt.Errorf("read accessed notes: %w", err)
		}
	}
	ids := slices.Sorted(maps.Keys(notes))
	arg := []any{intsArg(ids)}
	live := map[int64]bool{}
	err = freshnessNoteRows(ctx, tx, freshnessNotes+` WHERE n.id IN (SELECT value FROM json_each(?))`, arg, noema.FreshnessVisitor{
		Note: func(id int64, path string, mod, acc int64, _ bool) {
			live[id] = true
			v.Note(id, path, mod, acc, true)
		},
	})
	if err != nil {
		return false, err
	}
	for _, id := range ids {
		if !live[id] {
			v.Note(id, "", 0, 0, false)
		}
	}

	// Concepts read in full: new or relabelled, a key moved to them, their
	// page changed.
	whole := maps.Clone(ch.concepts)
	if whole == nil {
		whole = map[string]bool{}
	}
	collectInto := func(what, query string, args []any) error {
		if err := addRows(ctx, tx, query, args, whole); err != nil {
			return fmt.Errorf("read %s: %w", what, err)
		}
		return nil
	}
	if len(ch.keys) > 0 {
		if err := collectInto("owners of changed keys", `SELECT concept_id FROM concept_keys WHERE key IN (SELECT value FROM json_each(?))`,
			[]any{jsonArg(slices.Sorted(maps.Keys(ch.keys)))}); err != nil {
			return false, err
		}
	}
	if len(ids) > 0 {
		if err := collectInto("concepts paged by changed notes", `SELECT id FROM concepts WHERE page_note_id IN (SELECT value FROM json_each(?))`, arg); err != nil {
			return false, err
		}
		for _, id := range ids {
			for _, c := range oldPages(id) {
				whole[c] = true
			}
		}
	}
	if len(whole) > 0 {
		exist, err := conceptNotesOf(ctx, tx, slices.Sorted(maps.Keys(whole)), v.Concept)
		if err != nil {
			return false, err
		}
		for id := range whole {
			if !exist[id] {
				delete(whole, id) // deleted: nothing to bound
			}
		}
	}

	// Concepts a changed note links now: that note's time is theirs too.
	if len(live) > 0 {
		err := eachRow(ctx, tx, `SELECT l.note_id, k.concept_id FROM links l JOIN concept_keys k ON k.key = l.key
			WHERE l.note_id IN (SELECT value FROM json_each(?))`, arg, func(rows *sql.Rows) error {
			var note int64
			var id string
			if err := rows.Scan(&note, &id); err != nil {
				return err
			}
			if !whole[id] {
				v.Touch(id, note)
			}
			return nil
		})
		if err != nil {
			return false, fmt.Errorf("read changed notes' concepts: %w", err)
		}
	}
	return true, nil
}

// freshnessMaxChanges is how many log rows ConceptFreshness applies one
// by one; past it, it reads everything.
const freshnessMaxChanges = 16384

// nonZero returns [id] when id is not 0, else nil.
func nonZero(id int64) []int64 {
	if id == 0 {
		return nil
	}
	return []int64{id}
}

// ConceptNoteIDs calls fn for each concept among ids that exists with the
// row ids of the notes linking it and of its page: the notes
// ConceptNotes reads, from the links' covering index alone (weighing a
// hub concept by its notes' rows read each of them, 75k at 100k notes).
func (s *SemanticIndex) ConceptNoteIDs(ctx context.Context, ids []string, fn func(id string, notes []int64)) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.db.ReadTx(ctx, func(tx *sql.Tx) error {
		_, err := conceptNotesOf(ctx, tx, ids, func(id string, notes []int64, _ int64) { fn(id, notes) })
		return err
	})
	if err != nil {
		return fmt.Errorf("read concepts' notes: %w", err)
	}
	return nil
}

// conceptNotesOf calls fn for each of the concepts ids that exists with
// the notes linking it and its page, and returns which exist.
func conceptNotesOf(ctx context.Context, tx *sql.Tx, ids []string, fn func(id string, notes []int64, page int64)) (map[string]bool, error) {
	cs := []any{jsonArg(ids)}
	pages := map[string]int64{}
	err := eachPair(ctx, tx, `SELECT id, COALESCE(page_note_id, 0) FROM concepts WHERE id IN (SELECT value FROM json_each(?))`, cs,
		func(id string, page int64) { pages[id] = page })
	if err != nil {
		return nil, fmt.Errorf("read concept pages: %w", err)
	}
	exist := make(map[string]bool, len(pages))
	for id := range pages {
		exist[id] = true
	}
	if err := freshnessConceptRows(ctx, tx, freshnessSome, cs, pages, noema.FreshnessVisitor{Concept: fn}); err != nil {
		return nil, err
	}
	for _, id := range slices.Sorted(maps.Keys(pages)) { // nothing links them
		fn(id, nonZero(pages[id]), pages[id])
	}
	return exist, nil
}

// appendIDList appends to dst the row ids of list, a group_concat of
// them (comma-separated decimal).
func appendIDList(dst []int64, list string) ([]int64, error) {
	for f := range strings.SplitSeq(list, ",") {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return dst, fmt.Errorf("note id %q: %w", f, err)
		}
		dst = append(dst, n)
	}
	return dst, nil
}

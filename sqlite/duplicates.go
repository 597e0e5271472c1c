package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/noema-mem/noema"
)

var _ noema.NoteTextIndex = (*ConceptIndex)(nil)

// This file holds the reads of analyze_duplicates (package concepts): each
// concept's mention count, page, creation time and neighbours (the notes
// linking it and the other ends of its relations), and the concepts that
// share notes with one concept.

// idsFilter returns the SQL condition restricting column to ids (a JSON
// array expanded with json_each), or "1" and no argument for all.
func idsFilter(column string, ids []string) (string, []any) {
	if ids == nil {
		return "1", nil
	}
	b, _ := json.Marshal(ids)
	return column + " IN (SELECT value FROM json_each(?))", []any{string(b)}
}

// DuplicateStats calls fn for each concept among ids (every concept when
// ids is nil) with how many times notes link it, the vault path of its page
// ("" when it has none) and whether that page is explicit (under concepts/
// or with a concept: key: the page declares the concept, its aliases are
// the concept's) rather than a note taken by its title, its created time
// (Unix ns) and its neighbours, ascending: the row ids of
// the notes linking it (positive) and, for its relations, a negative id per
// other end ("concept:<key>" or "note:<path>" of targets, the declaring
// note of relations pointing at it), numbered consistently within one call.
func (ci *ConceptIndex) DuplicateStats(ctx context.Context, ids []string, fn func(id string, mentions int, page string, explicit bool, created int64, neighbors []int64)) error {
	tx, err := ci.db.rd().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("read concept stats: %w", err)
	}
	defer tx.Rollback()
	type stat struct {
		mentions int
		page     string
		explicit bool
		created  int64
		nb       []int64
	}
	stats := map[string]*stat{}
	var order []string
	cond, args := idsFilter("c.id", ids)
	err = eachRow(ctx, tx, `SELECT c.id, COALESCE(n.path, ''), COALESCE(p.explicit, 0), c.created_ns FROM concepts c
		LEFT JOIN notes n ON n.id = c.page_note_id LEFT JOIN pages p ON p.note_id = c.page_note_id WHERE `+cond, args, func(rows *sql.Rows) error {
		var id string
		s := &stat{}
		if err := rows.Scan(&id, &s.page, &s.explicit, &s.created); err != nil {
			return err
		}
		stats[id] = s
		order = append(order, id)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read concept stats: %w", err)
	}
	cond, args = idsFilter("k.concept_id", ids)
	err = eachRow(ctx, tx, `SELECT k.concept_id, l.note_id, l.count FROM concept_keys k JOIN links l ON l.key = k.key WHERE `+cond, args, func(rows *sql.Rows) error {
		var id string
		var note int64
		var n int
		if err := rows.Scan(&id, &note, &n); err != nil {
			return err
		}
		if s := stats[id]; s != nil {
			s.mentions += n
			s.nb = append(s.nb, note)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read concept mentions: %w", err)
	}
	// Relations: outgoing from a concept's page, and pointing at any of
	// its keys.
	refs := map[string]int64{}
	refID := func(ref string) int64 {
		if id, ok := refs[ref]; ok {
			return id
		}
		id := -int64(len(refs) + 1)
		refs[ref] = id
		return id
	}
	cond, args = idsFilter("c.id", ids)
	err = eachPair(ctx, tx, `SELECT c.id, r.to_ref FROM relations r JOIN concepts c ON c.page_note_id = r.note_id WHERE `+cond, args, func(id, ref string) {
		if s := stats[id]; s != nil {
			s.nb = append(s.nb, refID(ref))
		}
	})
	if err != nil {
		return fmt.Errorf("read concept relations: %w", err)
	}
	cond, args = idsFilter("k.concept_id", ids)
	err = eachPair(ctx, tx, `SELECT k.concept_id, n.path FROM relations r JOIN concept_keys k ON r.to_ref = 'concept:' || k.key
		JOIN notes n ON n.id = r.note_id WHERE `+cond, args, func(id, path string) {
		if s := stats[id]; s != nil {
			s.nb = append(s.nb, refID("from:"+path))
		}
	})
	if err != nil {
		return fmt.Errorf("read concept relations: %w", err)
	}
	for _, id := range order {
		s := stats[id]
		slices.Sort(s.nb)
		fn(id, s.mentions, s.page, s.explicit, s.created, slices.Compact(s.nb))
	}
	return nil
}

// DistinctMarks calls fn with each concept whose metadata holds
// [noema.DistinctFromKey], and that value as JSON. Few concepts have
// metadata: the plain comparison skips the rest before any JSON is read.
func (ci *ConceptIndex) DistinctMarks(ctx context.Context, fn func(id, value string)) error {
	err := eachPair(ctx, ci.db.rd(), `SELECT id, metadata -> '$.`+noema.DistinctFromKey+`' FROM concepts
		WHERE metadata <> '{}' AND json_type(metadata, '$.`+noema.DistinctFromKey+`') IS NOT NULL`, nil, func(id string, v []byte) {
		fn(id, string(v))
	})
	if err != nil {
		return fmt.Errorf("read distinct marks: %w", err)
	}
	return nil
}

// ConceptsSharingNotes calls fn with each other concept linked from a note
// that links the concept with the id, and how many such notes there are.
func (ci *ConceptIndex) ConceptsSharingNotes(ctx context.Context, id string, fn func(other string, notes int)) error {
	err := eachPair(ctx, ci.db.rd(), `WITH mine AS (
			SELECT DISTINCT l.note_id FROM concept_keys k JOIN links l ON l.key = k.key WHERE k.concept_id = ?)
		SELECT k.concept_id, COUNT(DISTINCT l.note_id) FROM mine m JOIN links l ON l.note_id = m.note_id
		JOIN concept_keys k ON k.key = l.key WHERE k.concept_id <> ? GROUP BY k.concept_id`, []any{id, id}, fn)
	if err != nil {
		return fmt.Errorf("read concepts sharing notes: %w", err)
	}
	return nil
}

// ConceptContexts calls fn with each concept among ids and the keys linked
// beside it (its context): the other link keys of the notes that link the
// concept and link at most maxLinks keys in all (a note of many links
// says little about any one of them). A concept that no such note links
// gets fn with no keys.
func (ci *ConceptIndex) ConceptContexts(ctx context.Context, ids []string, maxLinks int, fn func(id string, keys []string)) error {
	if len(ids) == 0 {
		return nil
	}
	cond, args := idsFilter("k.concept_id", ids)
	args = append(args, maxLinks)
	got := map[string][]string{}
	err := eachPair(ctx, ci.db.rd(), `SELECT k.concept_id, l2.key FROM concept_keys k JOIN links l ON l.key = k.key
		JOIN links l2 ON l2.note_id = l.note_id AND l2.key <> l.key
		WHERE `+cond+` AND (SELECT COUNT(*) FROM links c WHERE c.note_id = l.note_id) <= ?`, args, func(id, key string) {
		got[id] = append(got[id], key)
	})
	if err != nil {
		return fmt.Errorf("read concept contexts: %w", err)
	}
	for _, id := range ids {
		keys := got[id]
		slices.Sort(keys)
		fn(id, slices.Compact(keys))
	}
	return nil
}

// NotesWriting calls fn with the row id and body of the notes whose text
// has each phrase of phrases (full-text match of its words, in order) and
// a parenthesis or a link's bar, at most limit notes a phrase: where a
// note may spell an abbreviation out ("Transport Layer Security (TLS)",
// "[[Transport Layer Security|TLS]]"). A phrase with no word is skipped.
func (ci *ConceptIndex) NotesWriting(ctx context.Context, phrases []string, limit int, fn func(id int64, body string)) error {
	for _, ph := range phrases {
		ws := strings.FieldsFunc(ph, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if len(ws) == 0 {
			continue
		}
		match := `body : "` + strings.Join(ws, " ") + `"`
		err := eachPair(ctx, ci.db.rd(), `SELECT c.id, c.c1 FROM notes_fts f JOIN notes_fts_content c ON c.id = f.rowid
			WHERE notes_fts MATCH ? AND (instr(c.c1, '(') > 0 OR instr(c.c1, '|') > 0) LIMIT ?`, []any{match, limit}, fn)
		if err != nil {
			return fmt.Errorf("read notes writing %q: %w", ph, err)
		}
	}
	return nil
}

package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"modernc.org/sqlite"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/cjk"
)

// This file holds the read queries of search_notes (package search): the
// full-text query with per-term coverage, snippets, the notes' activity,
// filters, the note chunks' vectors and `[[X]]` concept lookups. Every query
// reads the read pool; lists of ids travel as one JSON array argument.

// SearchIndex is the index as the search service reads it: the adapter of
// [noema.SearchIndex] over a DB. It holds no state of its own; get one
// with [DB.Search].
type SearchIndex struct{ db *DB }

var (
	_ noema.SearchIndex   = (*SearchIndex)(nil)
	_ noema.IndexIdentity = (*SearchIndex)(nil)
)

// IndexID returns the index's identity (see [ConceptIndex.IndexID]), which
// the search's chunk vectors kept in a file beside the index carry.
func (s *SearchIndex) IndexID(ctx context.Context) (string, error) {
	return s.db.Concepts().IndexID(ctx)
}

// Search returns the index's search adapter.
func (db *DB) Search() *SearchIndex { return &SearchIndex{db: db} }

func init() {
	// noema_cjk(title, body) fills the cjk column of notes_fts (migration
	// 0008_search.sql and NoteWriter).
	sqlite.MustRegisterDeterministicScalarFunction("noema_cjk", -1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		texts := make([]string, 0, len(args))
		for _, a := range args {
			switch v := a.(type) {
			case string:
				texts = append(texts, v)
			case []byte:
				texts = append(texts, string(v))
			}
		}
		return cjk.Bigrams(texts...), nil
	})
}

// searchWhere returns the SQL conditions (on notes n, with access a joined)
// and arguments of a search filter.
func searchWhere(f noema.SearchFilter) (string, []any) {
	where, args := []string{"1=1"}, []any{}
	if f.Folder != "" {
		where = append(where, "substr(n.path, 1, ?) = ?")
		// substr counts characters, not bytes.
		args = append(args, utf8.RuneCountInString(f.Folder)+1, f.Folder+"/")
	}
	for _, t := range f.Tags {
		where = append(where, "EXISTS (SELECT 1 FROM json_each(n.tags) WHERE lower(value) = lower(?) OR lower(substr(value, 1, ?)) = lower(?))")
		args = append(args, t, utf8.RuneCountInString(t)+1, t+"/")
	}
	if !f.Since.IsZero() {
		where = append(where, "MAX(n.modified_ns, COALESCE((SELECT accessed_ns FROM access a WHERE a.path = n.path), 0)) >= ?")
		args = append(args, f.Since.UnixNano())
	}
	return strings.Join(where, " AND "), args
}

// SearchTermDocs returns how many notes match each of the FTS5
// expressions, and how many notes there are, in one read. A count stops at
// half of the notes (rounded up): a term in half of them or more weighs
// nothing in BM25, so how many more does not matter to the caller, and
// walking the rest of its doclist would be most of the cost.
func (s *SearchIndex) SearchTermDocs(ctx context.Context, exprs []string) (docs []int, total int, err error) {
	cols := []string{"(SELECT COUNT(*) FROM notes)"}
	args := make([]any, len(exprs))
	for i, e := range exprs {
		cols = append(cols, "(SELECT COUNT(*) FROM (SELECT 1 FROM notes_fts WHERE notes_fts MATCH ? LIMIT (SELECT (COUNT(*) + 1) / 2 FROM notes)))")
		args[i] = e
	}
	docs = make([]int, len(exprs))
	dest := []any{&total}
	for i := range docs {
		dest = append(dest, &docs[i])
	}
	if err := s.db.rd().QueryRowContext(ctx, `SELECT `+strings.Join(cols, ", "), args...).Scan(dest...); err != nil {
		return nil, 0, fmt.Errorf("count term documents: %w", err)
	}
	return docs, total, nil
}

// SearchTextVersion returns the counter that moves with every write that
// changes a note's full-text row (migration 0009_text_version.sql).
func (s *SearchIndex) SearchTextVersion(ctx context.Context) (int64, error) {
	var v int64
	found := false
	err := eachRow(ctx, s.db.rdKept(), `SELECT text_version FROM search_state WHERE id = 1`, nil, func(r *sql.Rows) error {
		found = true
		return r.Scan(&v)
	})
	if err == nil && !found {
		err = sql.ErrNoRows
	}
	if err != nil {
		return 0, fmt.Errorf("read text version: %w", err)
	}
	return v, nil
}

// SearchBodies returns the indexed body of each note among ids (see
// [MentionIndex.NoteBodies]).
func (s *SearchIndex) SearchBodies(ctx context.Context, ids []int64) (map[int64]string, error) {
	return s.db.noteBodies(ctx, ids)
}

// SearchBodyTerms returns the terms each note's body holds among ids (see
// [noema.TextIndex.SearchBodyTerms]): one statement, a query a term, each
// its expression within the body and cjk columns ("{body cjk} : (term)":
// FTS5 intersects nested column filters) and the notes among ids. FTS5
// seeks each id in the term's doclists: about 1 ms for 50 notes and a
// term in 73,000 of 100,000 notes.
func (s *SearchIndex) SearchBodyTerms(ctx context.Context, terms []string, ids []int64) (map[int64]uint64, error) {
	out := map[int64]uint64{}
	if len(terms) == 0 || len(ids) == 0 {
		return out, nil
	}
	if len(terms) > 64 {
		return nil, fmt.Errorf("search body terms: %d terms, at most 64", len(terms))
	}
	branches := make([]string, len(terms))
	args := make([]any, 0, 2*len(terms))
	in := intsArg(ids)
	for i, t := range terms {
		branches[i] = `SELECT rowid, ` + strconv.Itoa(i) + ` FROM notes_fts WHERE notes_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`
		args = append(args, `{body cjk} : (`+t+`)`, in)
	}
	err := eachPair(ctx, s.db.rdKept(), strings.Join(branches, `
		UNION ALL `), args, func(id, term int64) { out[id] |= 1 << term })
	if err != nil {
		return nil, fmt.Errorf("search body terms: %w", err)
	}
	return out, nil
}

const searchNoteColumns = `n.id, n.path, n.title, n.modified_ns, COALESCE(a.accessed_ns, 0)`

func scanSearchNote(row scanner) (noema.SearchNote, error) {
	var n noema.SearchNote
	var mod, acc int64
	if err := row.Scan(&n.ID, &n.Path, &n.Title, &mod, &acc); err != nil {
		return n, err
	}
	n.Modified, n.Accessed = noteTimes(mod, acc)
	return n, nil
}

// noteTimes converts a note's modified_ns and accessed_ns (0: never read).
func noteTimes(mod, acc int64) (modified, accessed time.Time) {
	modified = time.Unix(0, mod).UTC()
	if acc != 0 {
		accessed = time.Unix(0, acc).UTC()
	}
	return modified, accessed
}

// SearchNotes returns each note among ids that exists, with its activity.
func (s *SearchIndex) SearchNotes(ctx context.Context, ids []int64) (map[int64]noema.SearchNote, error) {
	out := make(map[int64]noema.SearchNote, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	err := eachRow(ctx, s.db.rd(), `SELECT `+searchNoteColumns+` FROM notes n
		LEFT JOIN access a ON a.path = n.path
		WHERE n.id IN (SELECT value FROM json_each(?))`, []any{intsArg(ids)}, func(rows *sql.Rows) error {
		n, err := scanSearchNote(rows)
		out[n.ID] = n
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search notes: %w", err)
	}
	return out, nil
}

// SearchFilterIDs returns the ids of the notes f admits.
func (s *SearchIndex) SearchFilterIDs(ctx context.Context, f noema.SearchFilter) (map[int64]bool, error) {
	where, args := searchWhere(f)
	out := map[int64]bool{}
	err := eachRow(ctx, s.db.rd(), `SELECT n.id FROM notes n WHERE `+where, args, func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		out[id] = true
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("filter notes: %w", err)
	}
	return out, nil
}

// SearchChunksVersion returns the counter that moves whenever any note's
// chunks change (triggers of migration 0008_search.sql).
func (s *SearchIndex) SearchChunksVersion(ctx context.Context) (int64, error) {
	return s.db.chunksVersion(ctx)
}

// chunksVersion is SearchChunksVersion, for both the search and the
// semantic adapter.
func (db *DB) chunksVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := db.rd().QueryRowContext(ctx, `SELECT chunks_version FROM search_state WHERE id = 1`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read chunks version: %w", err)
	}
	return v, nil
}

// SearchChunkStates returns, by note id, the note hash the chunks were cut
// from, for notes whose chunks model embedded.
func (s *SearchIndex) SearchChunkStates(ctx context.Context, model string) (map[int64]string, error) {
	out, err := queryMap[int64, string](ctx, s.db.rd(), `SELECT note_id, chunked_hash FROM note_chunk_state WHERE model = ?`, model)
	if err != nil {
		return nil, fmt.Errorf("read chunk states: %w", err)
	}
	return out, nil
}

// SearchChunkVectors calls fn with every chunk of the notes among ids that
// has a cached vector of model, by note and position. The vector is
// decoded into one buffer, reused from row to row: valid until fn returns.
func (s *SearchIndex) SearchChunkVectors(ctx context.Context, model string, ids []int64, fn func(noema.ChunkVector)) error {
	const part = 2000
	var buf []float32
	for i := 0; i < len(ids); i += part {
		if err := s.searchChunkVectors(ctx, model, ids[i:min(i+part, len(ids))], &buf, fn); err != nil {
			return err
		}
	}
	return nil
}

func (s *SearchIndex) searchChunkVectors(ctx context.Context, model string, ids []int64, buf *[]float32, fn func(noema.ChunkVector)) error {
	var b sql.RawBytes
	err := eachRow(ctx, s.db.rd(), `SELECT c.note_id, c.idx, c.start, c.end, e.vec FROM note_chunks c
		JOIN embeddings e ON e.model = ? AND e.text_hash = c.text_hash
		WHERE c.note_id IN (SELECT value FROM json_each(?))
		ORDER BY c.note_id, c.idx`, []any{model, intsArg(ids)}, func(rows *sql.Rows) error {
		var c noema.ChunkVector
		if err := rows.Scan(&c.NoteID, &c.Idx, &c.Start, &c.End, &b); err != nil {
			return err
		}
		*buf = decodeVectorInto(b, *buf)
		c.Vec = *buf
		fn(c)
		return nil
	})
	if err != nil {
		return fmt.Errorf("load chunk vectors: %w", err)
	}
	return nil
}

// SearchChunkCount returns how many note chunks the index holds.
func (s *SearchIndex) SearchChunkCount(ctx context.Context) (int, error) {
	var n int
	if err := s.db.rd().QueryRowContext(ctx, `SELECT COUNT(*) FROM note_chunks`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count chunks: %w", err)
	}
	return n, nil
}

// SearchConcept returns the concept that owns key as its label or an alias,
// with all its keys; ok is false when none does.
func (s *SearchIndex) SearchConcept(ctx context.Context, key string) (c noema.SearchConcept, ok bool, err error) {
	err = s.db.rd().QueryRowContext(ctx, `SELECT c.id, c.label FROM concept_keys k JOIN concepts c ON c.id = k.concept_id
		WHERE k.key = ?`, key).Scan(&c.ID, &c.Label)
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("resolve concept %q: %w", key, err)
	}
	if c.Keys, err = queryStrings(ctx, s.db.rd(), `SELECT key FROM concept_keys WHERE concept_id = ? ORDER BY key`, c.ID); err != nil {
		return c, false, fmt.Errorf("resolve concept %q: %w", key, err)
	}
	return c, true, nil
}

// SearchConceptNotes returns the notes f admits that link the concept (by
// any of its keys) or are its page, each once, in no particular order.
func (s *SearchIndex) SearchConceptNotes(ctx context.Context, conceptID string, f noema.SearchFilter) ([]noema.SearchNote, error) {
	if f.IsZero() {
		kept, err := s.db.keptNoteRows(ctx)
		if err != nil {
			return nil, err
		}
		if kept != nil {
			return s.conceptNotesKept(ctx, conceptID)
		}
	}
	where, args := searchWhere(f)
	args = append([]any{conceptID, conceptID}, args...)
	out, err := collect(ctx, s.db.rdKept(), `SELECT `+searchNoteColumns+` FROM notes n
		LEFT JOIN access a ON a.path = n.path
		WHERE (n.id IN (SELECT l.note_id FROM concept_keys k JOIN links l ON l.key = k.key WHERE k.concept_id = ?)
			OR n.id = (SELECT page_note_id FROM concepts WHERE id = ?))
		AND `+where, args, func(rows *sql.Rows) (noema.SearchNote, error) { return scanSearchNote(rows) })
	if err != nil {
		return nil, fmt.Errorf("find notes linking %s: %w", conceptID, err)
	}
	return out, nil
}

// conceptNotesKept is SearchConceptNotes without a filter, the notes' rows
// taken from those the DB keeps (KeepNoteRows) at the graph log position
// the statement reads, as the ranking statement takes them.
func (s *SearchIndex) conceptNotesKept(ctx context.Context, conceptID string) ([]noema.SearchNote, error) {
	// One row: the log's position, the linking notes' ids joined by
	// commas and the page's id; ids in a row of their own each took a
	// third of the statement's time (UNION and ORDER BY, two temporary
	// b-trees, took half).
	var seq int64
	var linking, page sql.NullString
	err := eachRow(ctx, s.db.rdKept(), `SELECT (SELECT COALESCE(MAX(seq), 0) FROM graph_log),
			(SELECT group_concat(l.note_id) FROM concept_keys k JOIN links l ON l.key = k.key WHERE k.concept_id = ?),
			(SELECT page_note_id FROM concepts WHERE id = ?)`,
		[]any{conceptID, conceptID}, func(r *sql.Rows) error { return r.Scan(&seq, &linking, &page) })
	if err != nil {
		return nil, fmt.Errorf("find notes linking %s: %w", conceptID, err)
	}
	var ids []int64
	for _, f := range []sql.NullString{linking, page} {
		if !f.Valid {
			continue
		}
		if ids, err = appendIDList(ids, f.String); err != nil {
			return nil, fmt.Errorf("find notes linking %s: %w", conceptID, err)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	rows, err := s.db.currentNoteRows(ctx, seq)
	if err != nil {
		return nil, err
	}
	out := make([]noema.SearchNote, 0, len(ids))
	for _, id := range ids {
		if n, ok := rows.get(id); ok {
			out = append(out, n)
		}
	}
	return out, nil
}

// SearchConceptsVersion returns the concept registry's change counter
// ([DB.ConceptsVersion]).
func (s *SearchIndex) SearchConceptsVersion(ctx context.Context) (string, error) {
	return s.db.ConceptsVersion(ctx)
}

// SearchConceptKeys calls fn with every key of the concept registry (labels
// and aliases) and its concept's id.
func (s *SearchIndex) SearchConceptKeys(ctx context.Context, fn func(key, conceptID string)) error {
	err := eachRow(ctx, s.db.rd(), `SELECT key, concept_id FROM concept_keys`, nil, func(r *sql.Rows) error {
		var key, id string
		if err := r.Scan(&key, &id); err != nil {
			return err
		}
		fn(key, id)
		return nil
	})
	if err != nil {
		return fmt.Errorf("load concept keys: %w", err)
	}
	return nil
}

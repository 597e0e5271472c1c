package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/noema-mem/noema"
)

// This file holds the queries of package semantic: the embedding cache,
// note chunks, and the concept facts similarity search reads.

// SemanticIndex is the index as the semantic service reads and writes it:
// the adapter of [noema.SemanticIndex] over a DB. It holds no state of its
// own; get one with [DB.Semantic].
type SemanticIndex struct{ db *DB }

var _ noema.SemanticIndex = (*SemanticIndex)(nil)

// Semantic returns the index's semantic adapter.
func (db *DB) Semantic() *SemanticIndex { return &SemanticIndex{db: db} }

// ConceptsVersion returns the counter of changes to the concept registry
// ("" before the first change).
func (db *DB) ConceptsVersion(ctx context.Context) (string, error) {
	return db.GetMeta(ctx, ConceptsVersionKey)
}

// ConceptsVersion returns the counter of changes to the concept registry
// (see [DB.ConceptsVersion]).
func (s *SemanticIndex) ConceptsVersion(ctx context.Context) (string, error) {
	return s.db.ConceptsVersion(ctx)
}

// GetMeta returns a meta value (see [DB.GetMeta]).
func (s *SemanticIndex) GetMeta(ctx context.Context, key string) (string, error) {
	return s.db.GetMeta(ctx, key)
}

// SearchChunksVersion returns the counter that moves whenever any note's
// chunks change (see [SearchIndex.SearchChunksVersion]).
func (s *SemanticIndex) SearchChunksVersion(ctx context.Context) (int64, error) {
	return s.db.chunksVersion(ctx)
}

// PutMeta writes a meta value in its own write transaction.
func (s *SemanticIndex) PutMeta(ctx context.Context, key, value string) error {
	return s.db.Write(ctx, func(tx *Tx) error { return SetMeta(tx, key, value) })
}

// conceptsSinceQuery reads the concepts changed after a names revision by
// the revision index: left to itself, SQLite walked every concept in id
// order to spare the sort (200 ms a write at 100k concepts, 2 s at a
// million, for the one or two concepts a write adds).
const conceptsSinceQuery = `SELECT id, label, aliases, description FROM concepts INDEXED BY concepts_rev WHERE rev > ? ORDER BY id`

// EachConceptSince calls fn, by id, with the id, label, aliases and
// description of every concept added or changed (names or description)
// after the names revision rev (every concept for 0), and returns the
// revision and deletion count it read at (migration 0011_concept_rev.sql),
// in the same read transaction.
func (s *SemanticIndex) EachConceptSince(ctx context.Context, rev int64, fn func(id, label string, aliases []string, description string)) (at, deleted int64, err error) {
	err = s.db.ReadTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT rev, deleted FROM concept_rev WHERE id = 1`).Scan(&at, &deleted); err != nil {
			return err
		}
		return eachRow(ctx, tx, conceptsSinceQuery, []any{rev}, func(rows *sql.Rows) error {
			var id, label, aliases, desc string
			if err := rows.Scan(&id, &label, &aliases, &desc); err != nil {
				return err
			}
			al := decodeAliases(aliases)
			fn(id, label, al, desc)
			return nil
		})
	})
	if err != nil {
		return 0, 0, fmt.Errorf("load changed concepts: %w", err)
	}
	return at, deleted, nil
}

// ConceptNames calls fn with the label and aliases (never nil) of each
// concept among ids that exists.
func (s *SemanticIndex) ConceptNames(ctx context.Context, ids []string, fn func(id, label string, aliases []string)) error {
	for i := 0; i < len(ids); i += 500 {
		part := ids[i:min(i+500, len(ids))]
		if err := s.conceptNames(ctx, anyArgs(part), fn); err != nil {
			return err
		}
	}
	return nil
}

func (s *SemanticIndex) conceptNames(ctx context.Context, args []any, fn func(id, label string, aliases []string)) error {
	if err := eachConceptName(ctx, s.db.rd(), `SELECT id, label, aliases FROM concepts WHERE id IN (`+placeholders(len(args))+`)`, args, fn); err != nil {
		return fmt.Errorf("load concepts: %w", err)
	}
	return nil
}

// ConceptNamed returns the id of the concept with the id, else of the one
// owning the key; "" when there is none.
func (s *SemanticIndex) ConceptNamed(ctx context.Context, id, key string) (string, error) {
	var self string
	err := s.db.rd().QueryRowContext(ctx, `SELECT c.id FROM concepts c WHERE c.id = ?1
		OR c.id = (SELECT concept_id FROM concept_keys WHERE key = ?2) LIMIT 1`, id, key).Scan(&self)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("find concept %q: %w", id, err)
	}
	return self, nil
}

// ConceptNotes calls fn for each of the concepts among ids with every note
// that mentions it and with its page: the note's path, modification time
// and latest explicit access (zero when never read).
// ids are looked up 500 at a time: find_similar_concepts widens its
// candidates until decay cannot change its top k, tens of thousands in a
// vault of old notes, and one statement holds at most 32,766 variables.
func (s *SemanticIndex) ConceptNotes(ctx context.Context, ids []string, fn func(id, path string, modified, accessed time.Time)) error {
	for i := 0; i < len(ids); i += 500 {
		if err := s.conceptNotes(ctx, ids[i:min(i+500, len(ids))], fn); err != nil {
			return err
		}
	}
	return nil
}

func (s *SemanticIndex) conceptNotes(ctx context.Context, ids []string, fn func(id, path string, modified, accessed time.Time)) error {
	args := make([]any, 0, 2*len(ids))
	for _, id := range ids {
		args = append(args, id)
	}
	in := placeholders(len(ids))
	args = append(args, args...)
	err := eachRow(ctx, s.db.rd(), `
		SELECT k.concept_id, n.path, n.modified_ns, COALESCE(a.accessed_ns, 0)
		FROM concept_keys k JOIN links l ON l.key = k.key JOIN notes n ON n.id = l.note_id
		LEFT JOIN access a ON a.path = n.path
		WHERE k.concept_id IN (`+in+`)
		UNION ALL
		SELECT c.id, n.path, n.modified_ns, COALESCE(a.accessed_ns, 0)
		FROM concepts c JOIN notes n ON n.id = c.page_note_id LEFT JOIN access a ON a.path = n.path
		WHERE c.id IN (`+in+`)`, args, func(rows *sql.Rows) error {
		var id, path string
		var mod, acc int64
		if err := rows.Scan(&id, &path, &mod, &acc); err != nil {
			return err
		}
		var accessed time.Time
		if acc != 0 {
			accessed = time.Unix(0, acc)
		}
		fn(id, path, time.Unix(0, mod), accessed)
		return nil
	})
	if err != nil {
		return fmt.Errorf("load concept freshness: %w", err)
	}
	return nil
}

// EmbeddedAmong returns those of hashes that have a cached vector for
// model: lookups by key, so that a refresh costs what it embeds, not what
// the cache holds.
func (s *SemanticIndex) EmbeddedAmong(ctx context.Context, model string, hashes []string) (map[string]bool, error) {
	if out, ok, err := s.embeddedAmongByScan(ctx, model, hashes); err != nil || ok {
		return out, err
	}
	out := make(map[string]bool, len(hashes))
	const part = 500
	for i := 0; i < len(hashes); i += part {
		batch := hashes[i:min(i+part, len(hashes))]
		args := make([]any, 0, 1+len(batch))
		args = append(args, model)
		for _, h := range batch {
			args = append(args, h)
		}
		err := eachRow(ctx, s.db.rd(), `SELECT text_hash FROM embeddings WHERE model = ? AND text_hash IN (`+placeholders(len(batch))+`)`, args, func(rows *sql.Rows) error {
			var h string
			if err := rows.Scan(&h); err != nil {
				return err
			}
			out[h] = true
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("look up cached embeddings: %w", err)
		}
	}
	return out, nil
}

// PutEmbeddings caches vecs[i] (of dim dimensions) for the text hashes[i]
// under model, in one write transaction; a vector already cached stays.
func (s *SemanticIndex) PutEmbeddings(ctx context.Context, model string, dim int, hashes []string, vecs [][]float32) error {
	return s.db.Write(ctx, func(tx *Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO embeddings (model, text_hash, dim, vec) VALUES (?, ?, ?, ?)
			ON CONFLICT(model, text_hash) DO NOTHING`)
		if err != nil {
			return fmt.Errorf("store embeddings: %w", err)
		}
		defer st.Close()
		for j, v := range vecs {
			if _, err := st.ExecContext(ctx, model, hashes[j], dim, encodeVector(v)); err != nil {
				return fmt.Errorf("store embedding: %w", err)
			}
		}
		return nil
	})
}

// Embeddings returns the cached vectors of model for the text hashes, by
// hash; hashes without one are missing from the map.
func (s *SemanticIndex) Embeddings(ctx context.Context, model string, hashes []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(hashes))
	var stored int
	if len(hashes) > 2000 {
		if err := s.db.rd().QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings WHERE model = ?`, model).Scan(&stored); err != nil {
			return nil, fmt.Errorf("count embeddings: %w", err)
		}
	}
	if len(hashes) > 2000 && 2*len(hashes) >= stored {
		// Most of the model's vectors are wanted (note chunks share the
		// table): one sequential scan beats thousands of lookups.
		want := make(map[string]bool, len(hashes))
		for _, h := range hashes {
			want[h] = true
		}
		if err := s.loadVectors(ctx, `SELECT text_hash, vec FROM embeddings WHERE model = ?`, []any{model}, want, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	const part = 500
	for i := 0; i < len(hashes); i += part {
		if err := s.embeddings(ctx, model, hashes[i:min(i+part, len(hashes))], out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// embeddings adds the cached vectors of model for hashes to out.
func (s *SemanticIndex) embeddings(ctx context.Context, model string, hashes []string, out map[string][]float32) error {
	args := make([]any, 0, 1+len(hashes))
	args = append(args, model)
	for _, h := range hashes {
		args = append(args, h)
	}
	return s.loadVectors(ctx, `SELECT text_hash, vec FROM embeddings WHERE model = ? AND text_hash IN (`+
		placeholders(len(hashes))+`)`, args, nil, out)
}

// loadVectors adds to out the vectors of the (text_hash, vec) rows query
// returns: every one when want is nil, else those of the hashes in want.
func (s *SemanticIndex) loadVectors(ctx context.Context, query string, args []any, want map[string]bool, out map[string][]float32) error {
	err := eachRow(ctx, s.db.rd(), query, args, func(rows *sql.Rows) error {
		var h string
		var b []byte
		if err := rows.Scan(&h, &b); err != nil {
			return err
		}
		if want == nil || want[h] {
			out[h] = decodeVector(b)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("load embeddings: %w", err)
	}
	return nil
}

// encodeVector stores a vector as little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	return decodeVectorInto(b, nil)
}

// decodeVectorInto decodes b into dst, reallocated only when it is too
// short, and returns it.
func decodeVectorInto(b []byte, dst []float32) []float32 {
	n := len(b) / 4
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return dst
}

// NotesToChunk calls fn, by note id, for every note whose chunks are
// missing or stale, or were embedded by a model other than model.
//
// The first call for a model checks every note. Later calls check only
// the notes the graph log (see MentionGraph) names as inserted or updated
// since the previous call, and those the previous call returned (their
// chunks may not have been stored): chunks go stale only when a note's row
// is written, so a refresh after a write costs what the write changed,
// not a pass over every note. When the log no longer reaches back that
// far, every note is checked again.
func (s *SemanticIndex) NotesToChunk(ctx context.Context, model string, fn func(id int64, title, hash string)) error {
	const stale = `SELECT n.id, n.title, n.hash FROM notes n
		LEFT JOIN note_chunk_state st ON st.note_id = n.id
		WHERE (st.chunked_hash IS NULL OR st.chunked_hash != n.hash OR st.model != ?)`
	err := s.db.ReadTx(ctx, func(tx *sql.Tx) error {
		var lo, hi sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT MIN(seq) FROM graph_log), (SELECT MAX(seq) FROM graph_log)`).Scan(&lo, &hi); err != nil {
			return fmt.Errorf("read graph log: %w", err)
		}
		s.db.chunkMu.Lock()
		last, ok := s.db.chunkCheck[model]
		s.db.chunkMu.Unlock()
		query, args := stale+` ORDER BY n.id`, []any{model}
		if ok && last.seq <= hi.Int64 && (!lo.Valid || last.seq >= lo.Int64-1) {
			// The notes written since, and those still to chunk then.
			query = stale + ` AND n.id IN (SELECT ref FROM graph_log WHERE seq > ? AND kind = 1
				UNION SELECT value FROM json_each(?)) ORDER BY n.id`
			args = append(args, last.seq, intsArg(last.pending))
		}
		var pending []int64
		err := eachRow(ctx, tx, query, args, func(rows *sql.Rows) error {
			var id int64
			var title, hash string
			if err := rows.Scan(&id, &title, &hash); err != nil {
				return err
			}
			pending = append(pending, id)
			fn(id, title, hash)
			return nil
		})
		if err != nil {
			return err
		}
		s.db.chunkMu.Lock()
		if s.db.chunkCheck == nil {
			s.db.chunkCheck = map[string]chunkCheck{}
		}
		s.db.chunkCheck[model] = chunkCheck{seq: hi.Int64, pending: pending}
		s.db.chunkMu.Unlock()
		return nil
	})
	if err != nil {
		return fmt.Errorf("find notes to chunk: %w", err)
	}
	return nil
}

// chunkCheck is where NotesToChunk's last call for a model left off: the
// graph log position it read up to and the notes it returned.
type chunkCheck struct {
	seq     int64
	pending []int64
}

// NoteBody returns the indexed text of the note with the row id; ok is
// false when there is no such note.
func (s *SemanticIndex) NoteBody(ctx context.Context, id int64) (body string, ok bool, err error) {
	err = s.db.rd().QueryRowContext(ctx, `SELECT body FROM notes_fts WHERE rowid = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read note body: %w", err)
	}
	return body, true, nil
}

// PutChunks stores each note's chunks, replacing the ones it had, and
// records that they were cut from the note's Hash and embedded by model,
// in one write transaction. A note whose content changed since (or that
// is gone) is skipped.
func (s *SemanticIndex) PutChunks(ctx context.Context, model string, notes []noema.ChunkedNote) error {
	return s.db.Write(ctx, func(tx *Tx) error {
		for _, n := range notes {
			var hash string
			if err := tx.QueryRow(`SELECT hash FROM notes WHERE id = ?`, n.ID).Scan(&hash); err != nil || hash != n.Hash {
				continue
			}
			if _, err := tx.Exec(`DELETE FROM note_chunks WHERE note_id = ?`, n.ID); err != nil {
				return fmt.Errorf("clear chunks: %w", err)
			}
			for j, c := range n.Chunks {
				if _, err := tx.Exec(`INSERT INTO note_chunks (note_id, idx, heading, start, end, text_hash) VALUES (?, ?, ?, ?, ?, ?)`,
					n.ID, j, c.Heading, c.Start, c.End, c.TextHash); err != nil {
					return fmt.Errorf("store chunk: %w", err)
				}
			}
			if _, err := tx.Exec(`INSERT INTO note_chunk_state (note_id, chunked_hash, model) VALUES (?, ?, ?)
				ON CONFLICT(note_id) DO UPDATE SET chunked_hash = excluded.chunked_hash, model = excluded.model`,
				n.ID, n.Hash, model); err != nil {
				return fmt.Errorf("store chunk state: %w", err)
			}
		}
		return nil
	})
}

// CountChunks returns how many note chunks the index holds and how many of
// them have a cached vector for model.
func (s *SemanticIndex) CountChunks(ctx context.Context, model string) (total, embedded int, err error) {
	err = s.db.rd().QueryRowContext(ctx, `SELECT COUNT(*), COUNT(e.text_hash) FROM note_chunks c
		LEFT JOIN embeddings e ON e.model = ? AND e.text_hash = c.text_hash`, model).Scan(&total, &embedded)
	if err != nil {
		return 0, 0, fmt.Errorf("count chunks: %w", err)
	}
	return total, embedded, nil
}

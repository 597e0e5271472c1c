package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/noema-mem/noema"
)

// ConceptIndex is the concept index (ports [noema.ConceptIndex],
// [noema.DuplicateIndex], [noema.ConceptContextIndex] and
// [noema.DistinctMarkIndex]) over a DB: the
// concept registry's read queries for package concepts (this file,
// counts.go, duplicates.go, feedback.go).
type ConceptIndex struct{ db *DB }

var (
	_ noema.ConceptIndex        = (*ConceptIndex)(nil)
	_ noema.DuplicateIndex      = (*ConceptIndex)(nil)
	_ noema.ConceptContextIndex = (*ConceptIndex)(nil)
	_ noema.DistinctMarkIndex   = (*ConceptIndex)(nil)
	_ noema.IndexIdentity       = (*ConceptIndex)(nil)
)

// Concepts returns the concept index over db.
func (db *DB) Concepts() *ConceptIndex { return &ConceptIndex{db: db} }

// ConceptsVersion changes whenever the registry does (see
// [DB.ConceptsVersion]).
func (ci *ConceptIndex) ConceptsVersion(ctx context.Context) (string, error) {
	return ci.db.ConceptsVersion(ctx)
}

// IndexIDKey is the meta key holding the index's identity (see
// [ConceptIndex.IndexID]).
const IndexIDKey = "index_id"

// IndexID returns the index's identity: a random id written to the meta
// table the first time it is asked for, so that an index created anew (a
// deleted index.db rebuilt from the files, whose concept revisions start
// again from 0) has another one.
func (ci *ConceptIndex) IndexID(ctx context.Context) (string, error) {
	if id, err := ci.db.GetMeta(ctx, IndexIDKey); err != nil || id != "" {
		return id, err
	}
	err := ci.db.Write(ctx, func(tx *Tx) error {
		// Another process may have written one meanwhile: keep it.
		_, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING`, IndexIDKey, rand.Text())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("write the index id: %w", err)
	}
	return ci.db.GetMeta(ctx, IndexIDKey)
}

// FilesRelatingTo returns the vault paths of the files that declare a
// relation to any of refs (see [NoteIndex.FilesRelatingTo]).
func (ci *ConceptIndex) FilesRelatingTo(ctx context.Context, refs []string) ([]string, error) {
	return ci.db.Notes().FilesRelatingTo(ctx, refs)
}

const conceptColumns = `c.id, c.key, c.label, c.aliases, c.description, c.metadata,
	COALESCE((SELECT n.path FROM notes n WHERE n.id = c.page_note_id), ''),
	COALESCE((SELECT SUM(l.count) FROM concept_keys k JOIN links l ON l.key = k.key WHERE k.concept_id = c.id), 0),
	c.created_ns, c.updated_ns`

type scanner interface{ Scan(dest ...any) error }

func scanConcept(row scanner) (*noema.Concept, error) {
	var c noema.Concept
	var aliases, meta, page string
	var created, updated int64
	if err := row.Scan(&c.ID, &c.Key, &c.Label, &aliases, &c.Description, &meta, &page, &c.Mentions, &created, &updated); err != nil {
		return nil, err
	}
	c.Aliases = []string{}
	if err := json.Unmarshal([]byte(aliases), &c.Aliases); err != nil {
		return nil, fmt.Errorf("decode aliases of %s: %w", c.ID, err)
	}
	if meta != "" && meta != "{}" {
		if err := json.Unmarshal([]byte(meta), &c.Metadata); err != nil {
			return nil, fmt.Errorf("decode metadata of %s: %w", c.ID, err)
		}
	}
	if page != "" {
		c.Page = noema.NoteURI(page)
	}
	if created != 0 {
		c.CreatedAt = time.Unix(0, created).UTC()
	}
	if updated != 0 {
		c.UpdatedAt = time.Unix(0, updated).UTC()
	}
	return &c, nil
}

// Concept returns the concept with the id, else the one owning the key;
// nil when there is none.
func (ci *ConceptIndex) Concept(ctx context.Context, id, key string) (*noema.Concept, error) {
	row := ci.db.rd().QueryRowContext(ctx, `SELECT `+conceptColumns+` FROM concepts c
		WHERE c.id = ?1 OR c.id = (SELECT concept_id FROM concept_keys WHERE key = ?2) LIMIT 1`, id, key)
	c, err := scanConcept(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get concept %q: %w", id, err)
	}
	return c, nil
}

// KeyOwner returns the id and label of the concept that owns key; ok is
// false when none does.
func (ci *ConceptIndex) KeyOwner(ctx context.Context, key string) (id, label string, ok bool, err error) {
	err = ci.db.rd().QueryRowContext(ctx, `SELECT c.id, c.label FROM concept_keys k JOIN concepts c ON c.id = k.concept_id WHERE k.key = ?`, key).Scan(&id, &label)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("look up key %q: %w", key, err)
	}
	return id, label, true, nil
}

// MentionCounts returns, for each concept among ids that is linked, how
// many times notes link it under any of its keys.
func (ci *ConceptIndex) MentionCounts(ctx context.Context, ids []string) (map[string]int, error) {
	if len(ids) == 0 {
		return map[string]int{}, nil
	}
	// The base tables, not the mentions view: the view aggregates every
	// link before it can be filtered.
	out, err := queryMap[string, int](ctx, ci.db.rd(), `SELECT k.concept_id, SUM(l.count) FROM concept_keys k JOIN links l ON l.key = k.key
		WHERE k.concept_id IN (`+placeholders(len(ids))+`) GROUP BY k.concept_id`, anyArgs(ids)...)
	if err != nil {
		return nil, fmt.Errorf("count mentions: %w", err)
	}
	return out, nil
}

// labelsSinceQuery reads the concepts renamed after a names revision by
// the revision index, never by a scan of every concept.
const labelsSinceQuery = `SELECT id, label, aliases FROM concepts INDEXED BY concepts_rev WHERE rev > ? ORDER BY label, id`

// EachConceptByLabelSince calls fn, by label, for every concept added or
// renamed (label or aliases) after the names revision rev; with rev 0, for
// every concept. It returns the revision it read at, in the same read
// transaction, so that the next call continues where this one ended.
func (ci *ConceptIndex) EachConceptByLabelSince(ctx context.Context, rev int64, fn func(id, label string, aliases []string)) (at, deleted int64, err error) {
	err = ci.db.ReadTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT rev, deleted FROM concept_rev WHERE id = 1`).Scan(&at, &deleted); err != nil {
			return err
		}
		if rev == 0 {
			return eachConceptName(ctx, tx, `SELECT id, label, aliases FROM concepts ORDER BY label, id`, nil, fn)
		}
		return eachConceptName(ctx, tx, labelsSinceQuery, []any{rev}, fn)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("load concept names: %w", err)
	}
	return at, deleted, nil
}

// eachConceptName calls fn with the id, label and aliases (never nil) of
// every row of query, which selects a concept's id, label and aliases.
func eachConceptName(ctx context.Context, q querier, query string, args []any, fn func(id, label string, aliases []string)) error {
	return eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var id, label, aliases string
		if err := rows.Scan(&id, &label, &aliases); err != nil {
			return err
		}
		al := decodeAliases(aliases)
		if al == nil {
			al = []string{}
		}
		fn(id, label, al)
		return nil
	})
}

// ListConcepts returns one page of concepts, newest first (by created
// time, then label and id), and how many there are over all pages. With a
// keyPattern (a LIKE pattern with \ as the escape character), only
// concepts with a key matching it.
func (ci *ConceptIndex) ListConcepts(ctx context.Context, keyPattern string, offset, limit int) (total int, concepts []noema.Concept, err error) {
	where, args := "1=1", []any{}
	if keyPattern != "" {
		where = `EXISTS (SELECT 1 FROM concept_keys k WHERE k.concept_id = c.id AND k.key LIKE ? ESCAPE '\')`
		args = append(args, keyPattern)
	}
	if err := ci.db.rd().QueryRowContext(ctx, `SELECT COUNT(*) FROM concepts c WHERE `+where, args...).Scan(&total); err != nil {
		return 0, nil, fmt.Errorf("count concepts: %w", err)
	}
	concepts = []noema.Concept{}
	err = eachRow(ctx, ci.db.rd(), `SELECT `+conceptColumns+` FROM concepts c WHERE `+where+
		` ORDER BY c.created_ns DESC, c.label, c.id LIMIT ? OFFSET ?`, append(args, limit, offset), func(rows *sql.Rows) error {
		c, err := scanConcept(rows)
		if err != nil {
			return err
		}
		concepts = append(concepts, *c)
		return nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("list concepts: %w", err)
	}
	return total, concepts, nil
}

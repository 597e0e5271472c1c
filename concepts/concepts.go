// Package concepts is the concept registry's service: find a concept under
// any spelling (find_concepts, rapidfuzz-compatible WRatio over labels and
// aliases), browse the vocabulary (list_concepts), and curate it
// (create_concept, update_concept, delete_concept).
//
// Concepts are derived from the vault (see package sqlite's
// RecomputeConcepts); every change this service makes is a change to a file
// — a concept page under concepts/, or the links in notes — followed by
// indexing exactly those files, so the vault stays the source of truth.
package concepts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/sqlite"
	"github.com/noema-mem/noema/vault"
)

// Service performs concept operations on one vault and its index.
type Service struct {
	Vault   *vault.Vault
	DB      *sqlite.DB
	Indexer *indexer.Indexer
	Now     func() time.Time

	mu    sync.Mutex
	cache *matcher // fuzzy choices, rebuilt when the registry changes
}

// New returns a Service over the indexer's vault and database.
func New(ix *indexer.Indexer) *Service {
	return &Service{Vault: ix.Vault, DB: ix.DB, Indexer: ix, Now: time.Now}
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
		c.Page = vault.PathToURI(page)
	}
	if created != 0 {
		c.CreatedAt = time.Unix(0, created).UTC()
	}
	if updated != 0 {
		c.UpdatedAt = time.Unix(0, updated).UTC()
	}
	return &c, nil
}

// Get returns the concept with the given id, or whose label or alias has
// the key of ref.
func (s *Service) Get(ctx context.Context, ref string) (*noema.Concept, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, noema.Errorf(noema.EINVALID, "a concept id or label is required")
	}
	row := s.DB.Read().QueryRowContext(ctx, `SELECT `+conceptColumns+` FROM concepts c
		WHERE c.id = ?1 OR c.id = (SELECT concept_id FROM concept_keys WHERE key = ?2) LIMIT 1`, ref, vault.Key(ref))
	c, err := scanConcept(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, noema.Errorf(noema.ENOTFOUND, "no concept %q (try find_concepts)", ref)
	}
	if err != nil {
		return nil, fmt.Errorf("get concept %q: %w", ref, err)
	}
	return c, nil
}

// owner returns the concept that owns key, if any.
func (s *Service) owner(ctx context.Context, key string) (id, label string, ok bool, err error) {
	err = s.DB.Read().QueryRowContext(ctx, `SELECT c.id, c.label FROM concept_keys k JOIN concepts c ON c.id = k.concept_id WHERE k.key = ?`, key).Scan(&id, &label)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("look up key %q: %w", key, err)
	}
	return id, label, true, nil
}

// checkKeys fails with conflict when a key of names is owned by a concept
// other than self, naming the owner.
func (s *Service) checkKeys(ctx context.Context, self string, names ...string) error {
	seen := map[string]string{}
	for _, n := range names {
		k := vault.Key(n)
		if k == "" {
			return noema.Errorf(noema.EINVALID, "%q has no letters or digits to name a concept", n)
		}
		if prev, ok := seen[k]; ok && prev != n {
			continue // two spellings of one key in the same request: harmless
		}
		seen[k] = n
		id, label, ok, err := s.owner(ctx, k)
		if err != nil {
			return err
		}
		if ok && id != self {
			return &noema.Error{Code: noema.ECONFLICT,
				Message: fmt.Sprintf("%q is already a name of concept %q (%s)", n, label, id),
				Details: map[string]any{"owner_id": id, "owner_label": label, "key": k}}
		}
	}
	return nil
}

func validLabel(label string) (string, error) {
	label = strings.TrimSpace(label)
	if label == "" {
		return "", noema.Errorf(noema.EINVALID, "label is required")
	}
	if strings.ContainsAny(label, "\n\r\x00[]|#") {
		return "", noema.Errorf(noema.EINVALID, "label %q must be one line without [ ] | or #", label)
	}
	if len([]rune(label)) > vault.MaxLinkLen {
		return "", noema.Errorf(noema.EINVALID, "label is longer than %d characters", vault.MaxLinkLen)
	}
	return label, nil
}

func cleanAliases(in []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, a := range in {
		a, err := validLabel(a)
		if err != nil {
			return nil, err
		}
		if k := vault.Key(a); !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	return out, nil
}

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
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/vault"
)

// Service performs concept operations on one vault and its index.
type Service struct {
	Vault   *vault.Vault
	DB      Index
	Indexer *indexer.Indexer
	Now     func() time.Time
	// Similarity, when set, measures how close two concepts are in
	// meaning; Merge refuses dissimilar ones with it.
	Similarity Similarity

	mu    sync.Mutex
	cache *nameView // the concepts' names for fuzzy matching, updated when the registry changes
}

// Index is the index concept operations read; *sqlite.DB implements it.
// Writes go through the Indexer, which indexes the files they change.
type Index interface {
	// Concept returns the concept with id, else the one owning key; nil
	// when there is none.
	Concept(ctx context.Context, id, key string) (*noema.Concept, error)
	// KeyOwner returns the concept a key names.
	KeyOwner(ctx context.Context, key string) (id, label string, ok bool, err error)
	// MentionCounts returns how many times notes link each concept of ids.
	MentionCounts(ctx context.Context, ids []string) (map[string]int, error)
	// EachConceptByLabelSince calls fn, by label, for every concept added
	// or renamed after the names revision rev (every concept for 0), and
	// returns the revision and the deletion count it read at.
	EachConceptByLabelSince(ctx context.Context, rev int64, fn func(id, label string, aliases []string)) (at, deleted int64, err error)
	// ListConcepts returns one page of the concepts with a key matching
	// keyPattern (SQL LIKE), newest first, and how many match.
	ListConcepts(ctx context.Context, keyPattern string, offset, limit int) (total int, concepts []noema.Concept, err error)
	// ConceptIDUsed reports whether a concept has the id.
	ConceptIDUsed(ctx context.Context, id string) (bool, error)
	// NotesLinking returns the paths of the notes linking a concept.
	NotesLinking(ctx context.Context, conceptID string) ([]string, error)
	// ConceptsVersion changes whenever the registry does.
	ConceptsVersion(ctx context.Context) (string, error)
	// NoteConcepts returns the concepts the note at path links.
	NoteConcepts(ctx context.Context, path string) ([]noema.NoteConcept, error)
	// FilesRelatingTo returns the paths of the files declaring a relation
	// to any of refs (vault.RelationRef forms).
	FilesRelatingTo(ctx context.Context, refs []string) ([]string, error)
}

// New returns a Service over the indexer's vault and database.
func New(ix *indexer.Indexer) *Service {
	return &Service{Vault: ix.Vault, DB: ix.DB, Indexer: ix, Now: time.Now}
}

// Get returns the concept with the given id, or whose label or alias has
// the key of ref.
func (s *Service) Get(ctx context.Context, ref string) (*noema.Concept, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, noema.Errorf(noema.EINVALID, "a concept id or label is required")
	}
	c, err := s.DB.Concept(ctx, ref, vault.Key(ref))
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, noema.Errorf(noema.ENOTFOUND, "no concept %q (try find_concepts)", ref)
	}
	return c, nil
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
		id, label, ok, err := s.DB.KeyOwner(ctx, k)
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
		return "", noema.Errorf(noema.EINVALID, "label is required").WithParam("label")
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

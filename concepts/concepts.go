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
	"github.com/noema-mem/noema/vault"
)

// Service performs concept operations on one vault and its index.
type Service struct {
	Vault *vault.Vault
	// DB is the concept registry read. analyze_duplicates also reads
	// what it offers of noema.DuplicateIndex and
	// noema.ConceptContextIndex.
	DB noema.ConceptIndex
	// Sync indexes the files an operation changed.
	Sync noema.IndexSync
	// Ignore, when set, is the concepts.ignore list: write feedback warns
	// about the links it keeps from becoming concepts.
	Ignore noema.LinkFilter
	Now    func() time.Time
	// Similarity, when set, measures how close two concepts are in
	// meaning; Merge refuses dissimilar ones with it.
	Similarity Similarity
	// NamesFile, when set, is the file that keeps find_concepts' names
	// between processes (the names snapshot, snapshot.go): Warm reads it
	// and writes it, SaveNames brings it up to date. It is used only with
	// an index that offers noema.IndexIdentity.
	NamesFile string

	mu    sync.Mutex
	cache *nameView // the concepts' names for fuzzy matching, updated when the registry changes
}

// New returns a Service over the vault v, reading idx and indexing the
// files it changes with sync.
func New(v *vault.Vault, idx noema.ConceptIndex, sync noema.IndexSync) *Service {
	return &Service{Vault: v, DB: idx, Sync: sync, Now: time.Now}
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

// Package relations creates, updates and deletes typed relations. A
// relation lives in the `relations:` front-matter list of its source node's
// file: a note's own file, or a concept's page (created when the concept has
// none), so the vault remains the source of truth.
package relations

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/vault"
)

// Service edits relations in one vault.
type Service struct {
	Vault *vault.Vault
	// DB is the index relations are read from.
	DB noema.RelationIndex
	// Sync indexes the files an operation changed.
	Sync     noema.IndexSync
	Concepts *concepts.Service
}

// New returns a Service over the vault v, reading idx, indexing the files
// it changes with sync and resolving concepts with c.
func New(v *vault.Vault, idx noema.RelationIndex, sync noema.IndexSync, c *concepts.Service) *Service {
	return &Service{Vault: v, DB: idx, Sync: sync, Concepts: c}
}

// Relation is a typed edge between notes and/or concepts.
type Relation = noema.Relation

// CreateInput is a new relation.
type CreateInput struct {
	From     string         `json:"from" jsonschema:"source: a concept (id, label or alias) or a note (memory:// URI)" cli:"arg=FROM"`
	Type     string         `json:"type" jsonschema:"relation type, e.g. part_of, depends_on, contradicts" cli:"arg=TYPE"`
	To       string         `json:"to" jsonschema:"target: a concept (id, label or alias) or a note (memory:// URI)" cli:"arg=TO"`
	Weight   *float64       `json:"weight,omitempty" jsonschema:"optional weight"`
	Metadata map[string]any `json:"metadata,omitempty" jsonschema:"optional JSON object"`
}

// isType reports whether t is a relation type noema accepts: 1-100
// letters, digits (any script's), '_' and, after the first, spaces and
// ". : / -" — what ^[\p{L}\p{N}_][\p{L}\p{N}_ .:/-]{0,99}$ matches, without
// compiling the regular expression in every process (a sync's start-up
// was 3.5 MB of its tables; TestIsTypeIsThePattern).
func isType(t string) bool {
	n := 0
	for _, r := range t {
		n++
		switch {
		case n > 100:
			return false
		case unicode.IsLetter(r), unicode.IsNumber(r), r == '_':
		case n > 1 && strings.ContainsRune(" .:/-", r):
		default:
			return false
		}
	}
	return n > 0
}

// CheckType returns the relation type t trimmed, or an invalid_argument
// error saying why noema refuses it: 1-100 letters, digits, spaces or
// _ . : / -, and not a front-matter key with a meaning of its own.
func CheckType(t string) (string, error) { return validType(t) }

func validType(t string) (string, error) {
	t = strings.TrimSpace(t)
	if !isType(t) {
		return "", noema.Errorf(noema.EINVALID, "relation type %q must be 1-100 letters, digits, spaces or _ . : / -", t).WithParam("type")
	}
	if vault.ReservedKeys[t] {
		return "", noema.Errorf(noema.EINVALID, "relation type %q is a front-matter key with a meaning of its own; choose another", t).WithParam("type")
	}
	return t, nil
}

// endpoint is a resolved relation end.
type endpoint struct {
	id   string // node id: concept id or memory:// URI
	ref  string // index form: concept:<key> or note:<path>
	fm   string // front-matter form: [[Label]] or [[path.md]]
	path string // the file holding the node's relations (note or page), "" if none yet
	c    *noema.Concept
}

func (s *Service) resolve(ctx context.Context, ref string) (*endpoint, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, noema.Errorf(noema.EINVALID, "relation ends must not be empty")
	}
	if strings.HasPrefix(ref, noema.URIScheme) {
		p, err := vault.URIToPath(ref)
		if err != nil {
			return nil, err
		}
		rel, err := s.Vault.Rel(p)
		if err != nil {
			return nil, err
		}
		if _, _, err := s.Vault.ReadFile(rel); err != nil {
			return nil, err
		}
		return &endpoint{id: noema.NoteURI(rel), ref: "note:" + rel, fm: vault.LinkTo(rel), path: rel}, nil
	}
	c, err := s.Concepts.Get(ctx, ref)
	if err != nil {
		return nil, err
	}
	e := &endpoint{id: c.ID, ref: "concept:" + c.Key, fm: vault.LinkTo(c.Label), c: c}
	if c.Page != "" {
		e.path = strings.TrimPrefix(c.Page, noema.URIScheme) + ".md"
	}
	return e, nil
}

// Create adds a relation to the source node's file. The same (from, type,
// to) twice is a conflict.
func (s *Service) Create(ctx context.Context, in CreateInput) (*Relation, error) {
	return vault.LockedValue(ctx, s.Vault, func(w *vault.Writer) (*Relation, error) { return s.create(ctx, w, in) })
}

// create is Create with the vault's write lock w held: the state it starts
// from (the index, the files) cannot change until it has written and
// indexed its files.
func (s *Service) create(ctx context.Context, w *vault.Writer, in CreateInput) (*Relation, error) {
	typ, err := validType(in.Type)
	if err != nil {
		return nil, err
	}
	from, err := s.resolve(ctx, in.From)
	if err != nil {
		return nil, err
	}
	to, err := s.resolve(ctx, in.To)
	if err != nil {
		return nil, err
	}
	if from.path == "" { // a concept without a page gains one
		c, err := s.Concepts.UpdateLocked(ctx, w, concepts.UpdateInput{Concept: from.id})
		if err != nil {
			return nil, err
		}
		from.path = strings.TrimPrefix(c.Page, noema.URIScheme) + ".md"
	}
	id := noema.RelationID(from.path, typ, to.ref)
	err = s.rewrite(ctx, w, from.path, func(fm *vault.FrontMatter, rels []vault.RawRelation) error {
		for _, r := range rels {
			if r.ID == id || (r.Type == typ && vault.RelationRef(r.To) == to.ref) {
				return &noema.Error{Code: noema.ECONFLICT, Message: fmt.Sprintf("relation %s %s %s already exists", from.id, typ, to.id),
					Details: map[string]any{"id": id}}
			}
		}
		return fm.AddRelation(typ, to.fm, "", in.Weight, in.Metadata)
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}

// UpdateInput changes a relation; empty fields are left alone.
type UpdateInput struct {
	ID              string         `json:"id" jsonschema:"the relation id" cli:"arg=ID"`
	Type            string         `json:"type,omitempty" jsonschema:"new type"`
	Weight          *float64       `json:"weight,omitempty" jsonschema:"new weight"`
	Metadata        map[string]any `json:"metadata,omitempty" jsonschema:"keys to merge into the metadata (metadata_conflict on a different value)"`
	MetadataRemove  []string       `json:"metadata_remove,omitempty" jsonschema:"metadata keys to remove"`
	MetadataReplace bool           `json:"metadata_replace,omitempty" jsonschema:"replace the metadata object instead of merging"`
}

// Update changes a relation's type, weight or metadata (merged with the
// same policy as concept metadata). The id stays.
func (s *Service) Update(ctx context.Context, in UpdateInput) (*Relation, error) {
	return vault.LockedValue(ctx, s.Vault, func(w *vault.Writer) (*Relation, error) { return s.update(ctx, w, in) })
}

// update is Update with the vault's write lock w held: the state it starts
// from (the index, the files) cannot change until it has written and
// indexed its files.
func (s *Service) update(ctx context.Context, w *vault.Writer, in UpdateInput) (*Relation, error) {
	cur, path, err := s.find(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	var typ string
	if in.Type != "" {
		if typ, err = validType(in.Type); err != nil {
			return nil, err
		}
	}
	meta, err := concepts.MergeMetadata(cur.Metadata, in.Metadata, in.MetadataRemove, in.MetadataReplace)
	if err != nil {
		return nil, err
	}
	err = s.rewriteRelation(ctx, w, path, in.ID, func(fm *vault.FrontMatter, r vault.RawRelation) error {
		fm.RemoveRelation(r.Type, vault.RelationRef(r.To))
		if typ == "" {
			typ = r.Type
		}
		weight := r.Weight
		if in.Weight != nil {
			weight = in.Weight
		}
		// The id stays: written down, since a new type would derive another.
		// The older `relations:` form becomes a property on the way.
		return fm.AddRelation(typ, relationLink(r.To), in.ID, weight, meta)
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, in.ID)
}

// Delete removes a relation from its file.
func (s *Service) Delete(ctx context.Context, id string) (*Relation, error) {
	return vault.LockedValue(ctx, s.Vault, func(w *vault.Writer) (*Relation, error) { return s.delete(ctx, w, id) })
}

// delete is Delete with the vault's write lock w held: the state it starts
// from (the index, the files) cannot change until it has written and
// indexed its files.
func (s *Service) delete(ctx context.Context, w *vault.Writer, id string) (*Relation, error) {
	cur, path, err := s.find(ctx, id)
	if err != nil {
		return nil, err
	}
	err = s.rewriteRelation(ctx, w, path, id, func(fm *vault.FrontMatter, r vault.RawRelation) error {
		if !fm.RemoveRelation(r.Type, vault.RelationRef(r.To)) {
			return relationGone(id, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cur, nil
}

// rewriteRelation rewrites the file at path (see rewrite), applying fn to
// the relation id it declares; when it declares it no more, that is
// not_found.
func (s *Service) rewriteRelation(ctx context.Context, w *vault.Writer, path, id string, fn func(*vault.FrontMatter, vault.RawRelation) error) error {
	return s.rewrite(ctx, w, path, func(fm *vault.FrontMatter, rels []vault.RawRelation) error {
		r, ok := relationIn(path, rels, id)
		if !ok {
			return relationGone(id, path)
		}
		return fn(fm, r)
	})
}

// relationGone is the error for a relation id the file at path no longer
// declares.
func relationGone(id, path string) error {
	return noema.Errorf(noema.ENOTFOUND, "relation %s is not in %s any more", id, noema.NoteURI(path))
}

// relationIn returns the relation id among those the file at path declares.
func relationIn(path string, rels []vault.RawRelation, id string) (vault.RawRelation, bool) {
	for _, r := range rels {
		if r.ID == id || (r.ID == "" && noema.RelationID(path, r.Type, vault.RelationRef(r.To)) == id) {
			return r, true
		}
	}
	return vault.RawRelation{}, false
}

// relationLink is the link form of a target as a relation declares it: a
// memory:// URI of the older form becomes [[path.md]].
func relationLink(to string) string {
	if strings.HasPrefix(to, noema.URIScheme) {
		if p, err := vault.URIToPath(to); err == nil {
			return vault.LinkTo(p)
		}
	}
	return vault.LinkTo(to)
}

// rewrite applies fn to the front matter of the file at rel and the
// relations it declares, writes the file atomically (failing if it changed
// meanwhile) and indexes it, under the write lock w.
func (s *Service) rewrite(ctx context.Context, w *vault.Writer, rel string, fn func(*vault.FrontMatter, []vault.RawRelation) error) error {
	old, _, err := s.Vault.ReadFile(rel)
	if err != nil {
		return err
	}
	content, err := vault.EditFrontMatter(old, func(fm *vault.FrontMatter) error {
		rels, err := fm.Relations()
		if err != nil {
			return err
		}
		return fn(fm, rels)
	})
	if err != nil {
		return err
	}
	if err := w.ReplaceFile(rel, old, content); err != nil {
		return err
	}
	return s.Sync.SyncWritten(ctx, []string{rel}, "")
}

// Get returns a relation by id, with both ends as node ids.
func (s *Service) Get(ctx context.Context, id string) (*Relation, error) {
	r, _, err := s.find(ctx, id)
	return r, err
}

func (s *Service) find(ctx context.Context, id string) (*Relation, string, error) {
	if strings.TrimSpace(id) == "" {
		return nil, "", noema.Errorf(noema.EINVALID, "relation id is required")
	}
	return s.DB.Relation(ctx, id)
}

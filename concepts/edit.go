package concepts

import (
	"context"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// CreateInput is a new concept.
type CreateInput struct {
	Label       string         `json:"label" jsonschema:"the concept's display name" cli:"arg=LABEL"`
	Aliases     []string       `json:"aliases,omitempty" jsonschema:"other names; links to them resolve to this concept" cli:"name=alias"`
	Description string         `json:"description,omitempty" jsonschema:"what the concept means" maxLength:"10000"`
	Metadata    map[string]any `json:"metadata,omitempty" jsonschema:"free-form JSON object"`
}

// Create makes a new concept with a page under concepts/. It fails with
// conflict, naming the owner, when the label or an alias is already a name
// of a concept (implicit concepts included: give those a page with Update).
func (s *Service) Create(ctx context.Context, in CreateInput) (*noema.Concept, error) {
	return vault.LockedValue(ctx, s.Vault, func(w *vault.Writer) (*noema.Concept, error) { return s.create(ctx, w, in) })
}

// create is Create with the vault's write lock w held: the state it starts
// from (the index, the files) cannot change until it has written and
// indexed its files.
func (s *Service) create(ctx context.Context, w *vault.Writer, in CreateInput) (*noema.Concept, error) {
	label, err := validLabel(in.Label)
	if err != nil {
		return nil, err
	}
	aliases, err := cleanAliases(in.Aliases)
	if err != nil {
		return nil, err
	}
	aliases = dropKey(aliases, vault.Key(label))
	if err := s.checkKeys(ctx, "", append([]string{label}, aliases...)...); err != nil {
		return nil, err
	}
	id, err := s.freshID(ctx, vault.Key(label))
	if err != nil {
		return nil, err
	}
	page := pageState{id: id, label: label, aliases: aliases, description: strings.TrimSpace(in.Description), metadata: in.Metadata}
	rel, existing, err := s.newPagePath(label, id)
	if err != nil {
		return nil, err
	}
	if err := s.writePage(ctx, w, rel, !existing, page); err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}

// freshID derives the id for a new concept, avoiding ids in use.
func (s *Service) freshID(ctx context.Context, key string) (string, error) {
	for n := 1; ; n++ {
		id := noema.ConceptID(key, n)
		used, err := s.DB.ConceptIDUsed(ctx, id)
		if err != nil {
			return "", err
		}
		if !used {
			return id, nil
		}
	}
}

// newPagePath picks concepts/<label>.md, numbering it when taken. A
// taken name whose file already declares the concept's id is the concept's
// page, written by noema but not indexed yet (the index was rebuilt, or
// another process has not indexed it): it is returned with existing set, so
// the page is updated rather than duplicated.
func (s *Service) newPagePath(label, id string) (rel string, existing bool, err error) {
	stem := vault.FileName(label)
	for n := 1; n < 1000; n++ {
		rel := vault.NumberedName(noema.ConceptsDir, stem, n)
		content, _, err := s.Vault.ReadFile(rel)
		switch code := noema.ErrorCode(err); {
		case code == noema.ENOTFOUND:
			return rel, false, nil
		case err == nil:
			if fmSrc, _, _, _ := vault.SplitFrontMatter(content); fmSrc != nil {
				if fm, perr := vault.ParseFrontMatter(fmSrc); perr == nil {
					if v, ok := fm.Get("id"); ok && v == id {
						return rel, true, nil
					}
				}
			}
		case code != noema.EINVALID:
			return "", false, err
		}
	}
	return "", false, noema.Errorf(noema.ECONFLICT, "no free page name for %q", label)
}

// pageState is what a concept page's front matter says.
type pageState struct {
	id, label, description string
	aliases                []string
	metadata               map[string]any
}

// writePage writes the concept fields into the front matter of rel (created
// when create is set, refusing to replace an existing file), keeping every
// other key and the body, then indexes the file. w is the write lock the
// caller holds.
func (s *Service) writePage(ctx context.Context, w *vault.Writer, rel string, create bool, p pageState) error {
	var old []byte
	if !create {
		var err error
		if old, _, err = s.Vault.ReadFile(rel); err != nil {
			return err
		}
	}
	content, err := s.renderPage(old, p, nil)
	if err != nil {
		return err
	}
	if create {
		err = w.WriteFile(rel, content, false)
	} else {
		err = w.ReplaceFile(rel, old, content)
	}
	if err != nil {
		return err
	}
	return s.Sync.SyncWritten(ctx, []string{rel}, "")
}

// renderPage returns the page old (nil for a new page) with the concept
// fields of p in its front matter, every other key and the body kept.
// edit, when not nil, changes the front matter further (merged relations).
func (s *Service) renderPage(old []byte, p pageState, edit func(fm *vault.FrontMatter) error) ([]byte, error) {
	return vault.EditFrontMatter(old, func(fm *vault.FrontMatter) error {
		set := func(k string, v any) error { return fm.Set(k, v) }
		if err := set("id", p.id); err != nil {
			return err
		}
		if err := set("concept", p.label); err != nil {
			return err
		}
		// Obsidian and its plugins read title: and aliases: (the concept's
		// names); concept: marks the page for noema whatever the file is called.
		if err := set("title", p.label); err != nil {
			return err
		}
		// A page records its creation time, so the concept's created_at does
		// not move with the file's mtime on every rewrite.
		if _, ok := fm.Get("created"); !ok {
			if err := set("created", s.Now().UTC().Format(time.RFC3339)); err != nil {
				return err
			}
		}
		for _, kv := range []struct {
			key   string
			value any
			keep  bool
		}{
			{"aliases", p.aliases, len(p.aliases) > 0},
			{"description", p.description, p.description != ""},
			{"metadata", p.metadata, len(p.metadata) > 0},
		} {
			if !kv.keep {
				fm.Delete(kv.key)
			} else if err := set(kv.key, kv.value); err != nil {
				return err
			}
		}
		if edit != nil {
			return edit(fm)
		}
		return nil
	})
}

// UpdateInput changes a concept. Empty fields are left alone.
type UpdateInput struct {
	Concept         string         `json:"concept" jsonschema:"the concept: id, label or alias" cli:"arg=CONCEPT"`
	Label           string         `json:"label,omitempty" jsonschema:"new label; the old label is kept as an alias"`
	Aliases         []string       `json:"aliases,omitempty" jsonschema:"replace all aliases with these" cli:"name=alias"`
	AddAliases      []string       `json:"add_aliases,omitempty" jsonschema:"aliases to add" cli:"name=add-alias"`
	Description     *string        `json:"description,omitempty" jsonschema:"new description (empty string clears it)" maxLength:"10000"`
	Metadata        map[string]any `json:"metadata,omitempty" jsonschema:"keys to merge into the metadata; a key with a different value fails with metadata_conflict unless metadata_replace"`
	MetadataRemove  []string       `json:"metadata_remove,omitempty" jsonschema:"metadata keys to remove"`
	MetadataReplace bool           `json:"metadata_replace,omitempty" jsonschema:"replace the whole metadata object with metadata (default false: merge)"`
	NotDuplicateOf  []string       `json:"not_duplicate_of,omitempty" jsonschema:"names of concepts this one is not a duplicate of, added to its distinct_from metadata: analyze_duplicates then keeps each pair apart (do_not_merge marked_distinct) and merge_concepts needs force" cli:"name=not-duplicate-of"`
	// RewriteLinks is true when nil.
	RewriteLinks *bool `json:"rewrite_links,omitempty" jsonschema:"with a new label: rewrite the links and relation targets that use the old label, and rename a page named by it (default true; the old label stays an alias either way)" default:"true" cli:"negate" negated:"with a new label: leave the links, relation targets and page name that use the old label as they are (the old label stays an alias, so they still resolve)"`
}

// Update changes a concept's label, aliases, description or metadata,
// giving it a page when it has none. Metadata merges key by key: a key
// present on both sides with another value fails with metadata_conflict,
// listing every such key, and nothing is written.
func (s *Service) Update(ctx context.Context, in UpdateInput) (*noema.Concept, error) {
	return vault.LockedValue(ctx, s.Vault, func(w *vault.Writer) (*noema.Concept, error) { return s.UpdateLocked(ctx, w, in) })
}

// UpdateLocked is Update for a caller that holds the vault's write lock w
// (a relation that gives a concept its page): the state it starts from
// (the index, the files) cannot change until it has written and indexed
// its files.
func (s *Service) UpdateLocked(ctx context.Context, w *vault.Writer, in UpdateInput) (*noema.Concept, error) {
	c, err := s.Get(ctx, in.Concept)
	if err != nil {
		return nil, err
	}
	p := pageState{id: c.ID, label: c.Label, aliases: c.Aliases, description: c.Description, metadata: c.Metadata}
	if in.Label != "" {
		label, err := validLabel(in.Label)
		if err != nil {
			return nil, err
		}
		if label != c.Label {
			if err := s.checkKeys(ctx, c.ID, label); err != nil {
				return nil, err
			}
			p.aliases = append(p.aliases, c.Label) // the old spelling keeps resolving
			p.label = label
		}
	}
	if in.Aliases != nil {
		p.aliases = in.Aliases
		if in.Label != "" && in.Label != c.Label {
			p.aliases = append(p.aliases, c.Label)
		}
	}
	p.aliases = append(p.aliases, in.AddAliases...)
	if p.aliases, err = cleanAliases(p.aliases); err != nil {
		return nil, err
	}
	p.aliases = dropKey(p.aliases, vault.Key(p.label))
	if err := s.checkKeys(ctx, c.ID, p.aliases...); err != nil {
		return nil, err
	}
	if in.Description != nil {
		p.description = strings.TrimSpace(*in.Description)
	}
	if p.metadata, err = MergeMetadata(c.Metadata, in.Metadata, in.MetadataRemove, in.MetadataReplace); err != nil {
		return nil, err
	}
	if len(in.NotDuplicateOf) > 0 {
		p.metadata = addDistinct(p.metadata, in.NotDuplicateOf)
	}
	rel, create := strings.TrimPrefix(c.Page, noema.URIScheme), c.Page == ""
	if create {
		var existing bool
		if rel, existing, err = s.newPagePath(p.label, c.ID); err != nil {
			return nil, err
		}
		create = !existing
	} else {
		rel += ".md"
	}
	if p.label != c.Label && (in.RewriteLinks == nil || *in.RewriteLinks) {
		if err := s.rename(ctx, w, c, rel, create, p); err != nil {
			return nil, err
		}
		return s.Get(ctx, c.ID)
	}
	if err := s.writePage(ctx, w, rel, create, p); err != nil {
		return nil, err
	}
	return s.Get(ctx, c.ID)
}

// rename writes a renamed concept's page p, renames the page file when it
// is named by the old label (concepts/Old.md becomes concepts/New.md, as
// Obsidian would), and rewrites the links by the old label to the new one
// ([[Old]] becomes [[New|Old]], the text reading the same) and the
// relation targets naming it, all in one changeset, under the write lock w.
func (s *Service) rename(ctx context.Context, w *vault.Writer, c *noema.Concept, rel string, create bool, p pageState) error {
	ed := newEdits(s.Vault)
	content := []byte(nil)
	if !create {
		old, err := ed.current(rel)
		if err != nil {
			return err
		}
		content = old
	}
	page, err := s.renderPage(content, p, nil)
	if err != nil {
		return err
	}
	dir, base := path.Split(rel)
	newRel := rel
	if stem := strings.TrimSuffix(base, ".md"); stem == vault.FileName(c.Label) || vault.Key(stem) == c.Key {
		for n := 1; n < 1000; n++ {
			cand := vault.NumberedName(dir, vault.FileName(p.label), n)
			if !s.Vault.IsNote(cand) || strings.EqualFold(cand, rel) {
				newRel = cand
				break
			}
		}
	}
	switch {
	case create:
		ed.create(newRel, page)
	case newRel != rel:
		ed.remove(rel)
		ed.create(newRel, page)
	default:
		ed.set(rel, page, nil)
	}
	linking, err := s.DB.NotesLinking(ctx, c.ID)
	if err != nil {
		return err
	}
	// The page's own links are rewritten like every other note's.
	linking = append(slices.DeleteFunc(linking, func(l string) bool { return l == rel }), newRel)
	for _, l := range linking {
		content, n, err := ed.currentNote(l)
		if err != nil {
			if noema.ErrorCode(err) == noema.EINVALID {
				continue // does not parse: not ours to fix, sync reports it
			}
			return err
		}
		out, changes := vault.RewriteLinks(content, n.Links, func(link noema.Link) (string, bool) {
			switch {
			case link.Path == rel && newRel != rel:
				return strings.TrimSuffix(newRel, ".md"), true // [[concepts/Old]]: the page by path
			case link.Key != c.Key || link.Path != "":
				return "", false
			}
			return vault.Retarget(content, link, p.label), true
		})
		ed.set(l, out, changes)
	}
	// Relation targets naming the concept, or its page by path when the
	// page is renamed, name the new label or path.
	refs := []string{"concept:" + c.Key}
	if newRel != rel && !create {
		refs = append(refs, "note:"+rel)
	}
	retarget := func(ref string) (string, bool) {
		switch {
		case ref == "concept:"+c.Key:
			return p.label, true
		case len(refs) > 1 && ref == refs[1]:
			return newRel, true
		}
		return "", false
	}
	declaring, err := s.DB.FilesRelatingTo(ctx, refs)
	if err != nil {
		return err
	}
	for _, d := range declaring {
		if d == rel {
			continue
		}
		err := ed.editFrontMatter(d, func(fm *vault.FrontMatter) error {
			// `supersedes` keeps the form of each item (docs/time.md).
			if _, err := fm.RetargetSupersedes(func(target string) (string, bool) { return retarget(vault.RelationRef(target)) }); err != nil {
				return err
			}
			rels, err := fm.Relations()
			if err != nil {
				return err
			}
			for _, r := range rels {
				ref := vault.RelationRef(r.To)
				if to, ok := retarget(ref); ok && r.Property {
					fm.RemoveRelation(r.Type, ref)
					if err := fm.AddRelation(r.Type, vault.LinkTo(to), r.ID, r.Weight, r.Metadata); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	cs := ed.changeset()
	cs.Operation = "update_concept"
	if err := w.Apply(ctx, cs); err != nil {
		return err
	}
	paths := ed.paths()
	if newRel != rel && !create {
		if err := s.Sync.SyncWritten(ctx, []string{newRel, rel}, rel); err != nil {
			return err
		}
		paths = slices.DeleteFunc(paths, func(x string) bool { return x == rel || x == newRel })
	}
	if len(paths) > 0 {
		err = s.Sync.SyncWritten(ctx, paths, "")
	}
	return err
}

// MergeMetadata applies an update to a metadata object: remove keys, then
// merge (or replace). Merging fails with metadata_conflict, listing every
// key present on both sides with a different canonical JSON value.
func MergeMetadata(have, update map[string]any, remove []string, replace bool) (map[string]any, error) {
	out := maps.Clone(have)
	if out == nil {
		out = map[string]any{}
	}
	for _, k := range remove {
		delete(out, k)
	}
	if replace {
		if update == nil {
			update = map[string]any{}
		}
		return maps.Clone(update), nil
	}
	var conflicts []string
	for k, v := range update {
		if old, ok := out[k]; ok && vault.CanonicalJSON(old) != vault.CanonicalJSON(v) && !reflect.DeepEqual(old, v) {
			conflicts = append(conflicts, k)
		}
	}
	if len(conflicts) > 0 {
		sort.Strings(conflicts)
		return nil, &noema.Error{Code: noema.EMETADATACONFLICT,
			Message: fmt.Sprintf("metadata keys %s already have other values; remove them first (metadata_remove) or pass metadata_replace", strings.Join(conflicts, ", ")),
			Details: map[string]any{"keys": conflicts}}
	}
	maps.Copy(out, update)
	return out, nil
}

func dropKey(aliases []string, key string) []string {
	out := aliases[:0:0]
	for _, a := range aliases {
		if vault.Key(a) != key {
			out = append(out, a)
		}
	}
	return out
}

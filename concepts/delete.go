package concepts

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// DeleteInput deletes a concept.
type DeleteInput struct {
	Concept string `json:"concept" jsonschema:"the concept: id, label or any alias" cli:"arg=CONCEPT"`
	Unlink  bool   `json:"unlink,omitempty" jsonschema:"turn links to the concept into plain text instead of refusing while notes link it (default false)" default:"false"`
	// CascadeRelations removes the relations other files declare to the
	// concept instead of refusing.
	CascadeRelations bool `json:"cascade_relations,omitempty" jsonschema:"remove the relations other notes and pages declare to the concept instead of refusing while there are any (default false)" default:"false"`
}

// DeleteResult says what a deletion changed.
type DeleteResult struct {
	ID      string `json:"id"`
	Label   string `json:"label"`
	Deleted bool   `json:"deleted"`
	// Unlinked lists the notes whose links to the concept became plain text.
	Unlinked []string `json:"unlinked"`
	// RelationsRemoved lists the files whose relations to the concept were
	// removed (cascade_relations).
	RelationsRemoved []string `json:"relations_removed"`
	// PageDeleted is the page removed, if the concept had one under concepts/.
	PageDeleted string `json:"page_deleted,omitempty"`
}

// Delete removes a concept. While notes still link it, it refuses with
// conflict unless Unlink is set; then every link to it (under any of its
// names) becomes plain text — the shown text when there is one, else the
// target. While other files declare relations to it, it refuses with
// conflict unless CascadeRelations is set; then those relations go. Its
// page under concepts/ is deleted; a page that is an ordinary note loses
// only its `concept` and `id` keys.
//
// All new file contents are computed first, then applied as one
// noema.Changeset (all files or none, across crashes too); a file changed
// since it was read stops it with checksum_mismatch before anything is
// written. The index is updated once at the end.
func (s *Service) Delete(ctx context.Context, in DeleteInput) (*DeleteResult, error) {
	return vault.LockedValue(ctx, s.Vault, func(w *vault.Writer) (*DeleteResult, error) { return s.delete(ctx, w, in) })
}

// delete is Delete with the vault's write lock w held: the state it starts
// from (the index, the files) cannot change until it has written and
// indexed its files.
func (s *Service) delete(ctx context.Context, w *vault.Writer, in DeleteInput) (*DeleteResult, error) {
	c, err := s.Get(ctx, in.Concept)
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{c.Key: true}
	refs := []string{"concept:" + c.Key}
	for _, a := range c.Aliases {
		keys[vault.Key(a)] = true
		refs = append(refs, "concept:"+vault.Key(a))
	}
	linking, err := s.DB.NotesLinking(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if len(linking) > 0 && !in.Unlink {
		return nil, &noema.Error{Code: noema.ECONFLICT, Param: "unlink",
			Message: fmt.Sprintf("concept %q is linked from %d notes; pass unlink=true to turn those links into plain text", c.Label, len(linking)),
			Details: map[string]any{"linked_from": uris(linking)}}
	}
	page := ""
	if c.Page != "" {
		page = strings.TrimPrefix(c.Page, noema.URIScheme) + ".md"
	}
	declaring, err := s.DB.FilesRelatingTo(ctx, refs)
	if err != nil {
		return nil, err
	}
	declaring = slices.DeleteFunc(declaring, func(p string) bool { return p == page })
	if len(declaring) > 0 && !in.CascadeRelations {
		return nil, &noema.Error{Code: noema.ECONFLICT, Param: "cascade_relations",
			Message: fmt.Sprintf("concept %q is the target of relations in %d files; pass cascade_relations=true to remove them", c.Label, len(declaring)),
			Details: map[string]any{"related_from": uris(declaring)}}
	}

	ed := newEdits(s.Vault)
	for _, rel := range linking {
		old, n, err := ed.currentNote(rel)
		if err != nil {
			return nil, err
		}
		ed.set(rel, Unlink(old, n.Links, keys), nil)
	}
	for _, rel := range declaring {
		err := ed.editFrontMatter(rel, func(fm *vault.FrontMatter) error {
			rels, err := fm.Relations()
			if err != nil {
				return err
			}
			for _, r := range rels {
				if slices.Contains(refs, vault.RelationRef(r.To)) {
					fm.RemoveRelation(r.Type, vault.RelationRef(r.To))
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	res := &DeleteResult{ID: c.ID, Label: c.Label, Unlinked: uris(linking), RelationsRemoved: uris(declaring)}
	if page != "" {
		if strings.HasPrefix(page, noema.ConceptsDir) {
			ed.remove(page)
			res.PageDeleted = c.Page
		} else if err := ed.editFrontMatter(page, func(fm *vault.FrontMatter) error {
			fm.Delete("concept")
			fm.Delete("id")
			return nil
		}); err != nil {
			return nil, err
		}
	}
	// One changeset: every note is rewritten, or none is, even if the
	// process dies half-way (vault.Vault.Recover finishes it on the next
	// open).
	if err := s.apply(ctx, w, ed, "delete_concept"); err != nil {
		return nil, err
	}
	res.Deleted = true
	return res, nil
}

// Unlink returns content with every link whose key is in keys replaced by
// its plain text: the shown text when there is one, else the target.
func Unlink(content []byte, links []noema.Link, keys map[string]bool) []byte {
	var b strings.Builder
	last := 0
	for _, l := range links {
		if !keys[l.Key] || l.Offset < last {
			continue
		}
		b.Write(content[last:l.Offset])
		text := l.Target
		if l.Display != "" {
			text = l.Display
		}
		if l.Offset > 0 && content[l.Offset-1] == '!' {
			// An embed ![[x]]: drop the '!' too.
			s := b.String()
			b.Reset()
			b.WriteString(strings.TrimSuffix(s, "!"))
		}
		b.WriteString(text)
		last = l.End
	}
	b.Write(content[last:])
	return []byte(b.String())
}

func uris(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = noema.NoteURI(p)
	}
	return out
}

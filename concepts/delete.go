package concepts

import (
	"context"
	"fmt"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/vault"
)

// DeleteResult says what a deletion changed.
type DeleteResult struct {
	ID      string `json:"id"`
	Label   string `json:"label"`
	Deleted bool   `json:"deleted"`
	// Unlinked lists the notes whose links to the concept became plain text.
	Unlinked []string `json:"unlinked"`
	// PageDeleted is the page removed, if the concept had one under concepts/.
	PageDeleted string `json:"page_deleted,omitempty"`
}

// Delete removes a concept. While notes still link it, it refuses with
// conflict unless unlink is set; then every link to it (under any of its
// names) becomes plain text — the shown text when there is one, else the
// target — and its page under concepts/ is deleted. A page that is an
// ordinary note loses only its `concept` and `id` keys.
//
// All new file contents are computed first, then applied as one
// vault.Changeset (all files or none, across crashes too); a file changed
// since it was read stops it with checksum_mismatch before anything is
// written. The index is updated once at the end.
func (s *Service) Delete(ctx context.Context, ref string, unlink bool) (*DeleteResult, error) {
	var out *DeleteResult
	err := s.Vault.Locked(ctx, func(ctx context.Context) error {
		var err error
		out, err = s.delete(ctx, ref, unlink)
		return err
	})
	return out, err
}

// delete is Delete with the vault's write lock held: the state it starts
// from (the index, the files) cannot change until it has written and
// indexed its files.
func (s *Service) delete(ctx context.Context, ref string, unlink bool) (*DeleteResult, error) {
	c, err := s.Get(ctx, ref)
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{c.Key: true}
	for _, a := range c.Aliases {
		keys[vault.Key(a)] = true
	}
	linking, err := s.DB.NotesLinking(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if len(linking) > 0 && !unlink {
		return nil, &noema.Error{Code: noema.ECONFLICT,
			Message: fmt.Sprintf("concept %q is linked from %d notes; pass unlink=true to turn those links into plain text", c.Label, len(linking)),
			Details: map[string]any{"linked_from": uris(linking)}}
	}

	type change struct {
		rel     string
		old     []byte
		content []byte // nil: delete the file
	}
	var changes []change
	for _, rel := range linking {
		old, _, err := s.Vault.ReadFile(rel)
		if err != nil {
			return nil, err
		}
		n, err := vault.Parse(rel, old)
		if err != nil {
			return nil, err
		}
		s.Vault.ResolvePathLinks(n)
		changes = append(changes, change{rel: rel, old: old, content: vault.EndLine(Unlink(old, n.Links, keys))})
	}
	res := &DeleteResult{ID: c.ID, Label: c.Label, Unlinked: uris(linking)}
	if c.Page != "" {
		rel := strings.TrimPrefix(c.Page, noema.URIScheme) + ".md"
		old, _, err := s.Vault.ReadFile(rel)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(rel, indexer.ConceptsDir) {
			changes = append(changes, change{rel: rel, old: old})
			res.PageDeleted = c.Page
		} else {
			// The page may also be a linking note already changed above.
			base := old
			for i := range changes {
				if changes[i].rel == rel {
					base = changes[i].content
				}
			}
			fmSrc, body, _, _ := vault.SplitFrontMatter(base)
			fm, err := vault.ParseFrontMatter(fmSrc)
			if err != nil {
				return nil, err
			}
			fm.Delete("concept")
			fm.Delete("id")
			content, err := vault.Join(fm, body)
			if err != nil {
				return nil, err
			}
			replaced := false
			for i := range changes {
				if changes[i].rel == rel {
					changes[i].content, replaced = content, true
				}
			}
			if !replaced {
				changes = append(changes, change{rel: rel, old: old, content: content})
			}
		}
	}
	// One changeset: every note is rewritten, or none is, even if the
	// process dies half-way (vault.Vault.Recover finishes it on the next
	// open).
	var cs vault.Changeset
	for _, ch := range changes {
		if ch.content == nil {
			cs.Remove(ch.rel, ch.old)
		} else {
			cs.Replace(ch.rel, ch.old, ch.content)
		}
	}
	if err := s.Vault.Apply(ctx, &cs); err != nil {
		return nil, err
	}
	if paths := cs.Paths(); len(paths) > 0 {
		if _, err := s.Indexer.SyncPaths(ctx, paths, ""); err != nil {
			return nil, err
		}
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
		out[i] = vault.PathToURI(p)
	}
	return out
}

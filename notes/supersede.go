package notes

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// This file writes memory over time (docs/time.md): write_note and
// edit_note take `supersedes` (the notes a note replaces), `valid_from` and
// `valid_until`, and write them as Obsidian properties.

// TimeInput is the part of a write that places a note in time.
type TimeInput struct {
	Supersedes []string `json:"supersedes,omitempty" jsonschema:"the notes this note replaces (memory:// URI, vault path or title; each must exist): written as [[links]] in the front matter property supersedes (added to those it has); they stay searchable but rank below this note, and say superseded_by" cli:"name=supersedes"`
	ValidFrom  string   `json:"valid_from,omitempty" jsonschema:"the date (2026-01-02) or time (RFC 3339) from which the note holds, written to the property valid_from (default: when it is written)"`
	ValidUntil string   `json:"valid_until,omitempty" jsonschema:"the date (through that day) or time (RFC 3339) until which the note holds, written to the property valid_until; after it the note ranks as expired"`
}

// empty reports whether the input places nothing in time.
func (in TimeInput) empty() bool {
	return len(in.Supersedes) == 0 && strings.TrimSpace(in.ValidFrom) == "" && strings.TrimSpace(in.ValidUntil) == ""
}

// timeEdit checks in and returns the change it makes to a front matter:
// each superseded note resolved (not_found when it names none) and written
// as a link, unless the front matter already names it; self is the note
// being written, which cannot supersede itself. A nil edit changes nothing.
func (s *Service) timeEdit(ctx context.Context, in TimeInput, self string) (func(fm *vault.FrontMatter) error, error) {
	if in.empty() {
		return nil, nil
	}
	for _, b := range []struct{ key, value string }{{noema.ValidFromKey, in.ValidFrom}, {noema.ValidUntilKey, in.ValidUntil}} {
		if strings.TrimSpace(b.value) != "" {
			if _, err := noema.ParseValidity(b.key, b.value); err != nil {
				return nil, err
			}
		}
	}
	var links []string
	for _, ref := range in.Supersedes {
		p, err := s.Resolve(ctx, ref)
		if err != nil {
			if e, ok := err.(*noema.Error); ok {
				return nil, (&noema.Error{Code: e.Code, Message: "supersedes: " + e.Message, Details: e.Details}).WithParam("supersedes")
			}
			return nil, err
		}
		if p == self {
			return nil, noema.Errorf(noema.EINVALID, "supersedes: %s cannot supersede itself", noema.NoteURI(p)).WithParam("supersedes")
		}
		link, err := s.linkTo(ctx, p)
		if err != nil {
			return nil, err
		}
		links = append(links, link)
	}
	return func(fm *vault.FrontMatter) error {
		have := map[string]bool{}
		for _, t := range fm.Supersedes() {
			have[vault.RelationRef(t)] = true
		}
		for _, l := range links {
			ref := vault.RelationRef(l)
			if have[ref] {
				continue
			}
			have[ref] = true
			if err := fm.AddRelation(noema.SupersedesKey, l, "", nil, nil); err != nil {
				return err
			}
		}
		for _, b := range []struct{ key, value string }{{noema.ValidFromKey, in.ValidFrom}, {noema.ValidUntilKey, in.ValidUntil}} {
			if v := strings.TrimSpace(b.value); v != "" {
				if err := fm.Set(b.key, v); err != nil {
					return err
				}
			}
		}
		return nil
	}, nil
}

// linkTo returns the link by which `supersedes` names the note at p:
// "[[Title]]" when its file is named by its title (vault.FileName) and the
// title names no other note (so noema and Obsidian both open it), else
// "[[path.md]]".
func (s *Service) linkTo(ctx context.Context, p string) (string, error) {
	n, _, _, err := s.Vault.ReadNote(p)
	if err != nil {
		return "", err
	}
	if vault.FileName(n.Title) == strings.TrimSuffix(path.Base(p), ".md") {
		named, err := s.DB.NotesNamed(ctx, vault.Key(n.Title), vault.Key)
		if err != nil {
			return "", err
		}
		if slices.Equal(named, []string{p}) && !strings.ContainsAny(n.Title, "[]|#/") {
			return vault.LinkTo(n.Title), nil
		}
	}
	return vault.LinkTo(p), nil
}

// checkValidity refuses content whose valid_from or valid_until is not a
// date or time (invalid_argument naming the property and line), unless
// old (the file before the write; nil for a new note) holds the same
// values: a write never fails on what it did not change.
func checkValidity(old, content []byte) error {
	fm, err := frontMatterOf(content)
	if err != nil || fm == nil {
		return nil // Parse reports malformed front matter
	}
	_, _, verr := fm.Validity()
	if verr == nil {
		return nil
	}
	if prev, _ := frontMatterOf(old); prev != nil {
		same := true
		for _, k := range []string{noema.ValidFromKey, noema.ValidUntilKey} {
			a, _ := fm.Get(k)
			b, _ := prev.Get(k)
			same = same && fmt.Sprint(a) == fmt.Sprint(b)
		}
		if same {
			return nil
		}
	}
	return verr
}

// frontMatterOf parses the front matter of content; nil when it has none.
func frontMatterOf(content []byte) (*vault.FrontMatter, error) {
	if content == nil {
		return nil, nil
	}
	text, _, _, _ := vault.SplitFrontMatter(content)
	if text == nil {
		return nil, nil
	}
	return vault.ParseFrontMatter(text)
}

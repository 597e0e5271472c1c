package notes

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// Edit operations.
const (
	OpAppend         = "append"
	OpPrepend        = "prepend"
	OpFindReplace    = "find_replace"
	OpReplaceSection = "replace_section"
	OpReplaceAll     = "replace_all"
)

// EditInput changes an existing note.
type EditInput struct {
	URI              string `json:"uri" jsonschema:"the note: memory:// URI, vault path or title" cli:"arg=REF"`
	Op               string `json:"op" jsonschema:"append, prepend, find_replace, replace_section or replace_all" enum:"append,prepend,find_replace,replace_section,replace_all"`
	Content          string `json:"content,omitempty" jsonschema:"text to add, the new section body, or the new body (replace_all)" cli:"stdin" maxLength:"none"`
	Find             string `json:"find,omitempty" jsonschema:"find_replace: the exact text to find" maxLength:"none"`
	Replace          string `json:"replace,omitempty" jsonschema:"find_replace: the replacement" maxLength:"none"`
	ExpectedCount    int    `json:"expected_count,omitempty" jsonschema:"find_replace: how many occurrences must exist (default 1)" default:"1" minimum:"1" cli:"name=count"`
	Section          string `json:"section,omitempty" jsonschema:"replace_section: the heading text of the section"`
	ExpectedChecksum string `json:"expected_checksum,omitempty" jsonschema:"fail with checksum_mismatch unless the file still has this checksum" cli:"name=checksum"`
	// TimeInput changes the note's place in time along with the op (to
	// change only that: op append with no content).
	TimeInput
}

// Edit applies one edit to a note's body (front matter is kept; replace_all
// with content that has its own front matter replaces it too).
func (s *Service) Edit(ctx context.Context, in EditInput) (*WriteResult, error) {
	rel, err := s.Resolve(ctx, in.URI)
	if err != nil {
		return nil, err
	}
	timeEdit, err := s.timeEdit(ctx, in.TimeInput, rel)
	if err != nil {
		return nil, err
	}
	// Read, change and write under the vault's write lock, so that two
	// edits never both start from the same content (see vault.Locked).
	var res *WriteResult
	err = s.Vault.Locked(ctx, func(w *vault.Writer) error {
		var err error
		res, err = s.edit(w, rel, in, timeEdit)
		return err
	})
	if err != nil {
		return nil, err
	}
	res.Warnings = s.index(ctx, rel)
	return res, nil
}

// edit is Edit's read-modify-write of the file rel under the write lock w;
// timeEdit, when not nil, changes the front matter too.
func (s *Service) edit(w *vault.Writer, rel string, in EditInput, timeEdit func(*vault.FrontMatter) error) (*WriteResult, error) {
	old, _, err := s.Vault.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	if in.ExpectedChecksum != "" && in.ExpectedChecksum != noema.Checksum(old) {
		return nil, &noema.Error{Code: noema.ECHECKSUM,
			Message: fmt.Sprintf("%s changed since it was read (checksum is %s)", noema.NoteURI(rel), noema.Checksum(old)),
			Details: map[string]any{"checksum": noema.Checksum(old)}}
	}
	_, body, bodyOffset, _ := vault.SplitFrontMatter(old)
	head := old[:bodyOffset]
	var newBody []byte
	switch in.Op {
	case OpAppend:
		newBody = append(bytes.Clone(body), joinPart(body, in.Content)...)
	case OpPrepend:
		add := in.Content
		if add != "" && !strings.HasSuffix(add, "\n") {
			add += "\n"
		}
		newBody = append([]byte(add), body...)
	case OpFindReplace:
		if in.Find == "" {
			return nil, noema.Errorf(noema.EINVALID, "find_replace needs a non-empty find").WithParam("find")
		}
		want := in.ExpectedCount
		if want <= 0 {
			want = 1
		}
		if got := bytes.Count(body, []byte(in.Find)); got != want {
			return nil, &noema.Error{Code: noema.EINVALID,
				Message: fmt.Sprintf("find text occurs %d times, expected %d; nothing was changed", got, want),
				Details: map[string]any{"occurrences": got}}
		}
		newBody = bytes.ReplaceAll(body, []byte(in.Find), []byte(in.Replace))
	case OpReplaceSection:
		if strings.TrimSpace(in.Section) == "" {
			return nil, noema.Errorf(noema.EINVALID, "replace_section needs a section heading").WithParam("section")
		}
		start, end, ok := vault.FindSection(body, in.Section)
		if !ok {
			return nil, noSection(in.Section, rel, body)
		}
		repl := in.Content
		if repl != "" && !strings.HasSuffix(repl, "\n") {
			repl += "\n"
		}
		if end < len(body) && repl != "" && !strings.HasSuffix(repl, "\n\n") {
			repl += "\n"
		}
		newBody = append(append(bytes.Clone(body[:start]), repl...), body[end:]...)
	case OpReplaceAll:
		newFM, b, off, _ := vault.SplitFrontMatter([]byte(in.Content))
		if newFM != nil {
			head = []byte(in.Content[:off])
		}
		newBody = b
	default:
		return nil, noema.Errorf(noema.EINVALID, "unknown op %q: use append, prepend, find_replace, replace_section or replace_all", in.Op).WithParam("op")
	}
	content := vault.EndLine(append(bytes.Clone(head), newBody...))
	if timeEdit != nil {
		if content, err = vault.EditFrontMatter(content, timeEdit); err != nil {
			return nil, err
		}
	}
	if err := s.checkContent(content); err != nil {
		return nil, err
	}
	if err := checkValidity(old, content); err != nil {
		return nil, err
	}
	p, err := vault.Parse(rel, content)
	if err != nil {
		return nil, err
	}
	if err := w.ReplaceFile(rel, old, content); err != nil {
		return nil, err
	}
	return &WriteResult{URI: noema.NoteURI(rel), Path: rel, Title: p.Title, Checksum: p.Checksum, Size: len(content)}, nil
}

// joinPart returns add prepared to follow body: on its own line.
func joinPart(body []byte, add string) []byte {
	var b []byte
	if len(body) > 0 && body[len(body)-1] != '\n' {
		b = append(b, '\n')
	}
	b = append(b, add...)
	if add != "" && !strings.HasSuffix(add, "\n") {
		b = append(b, '\n')
	}
	return b
}

// MoveResult describes a moved note.
type MoveResult struct {
	From string `json:"from"`
	URI  string `json:"uri"`
	Path string `json:"path"`
	// Links are the lines of other notes whose links followed the move.
	Links []LinkChange `json:"links"`
	// Warnings say what the move could not finish: the index being behind
	// the files (see Service.index).
	Warnings []string `json:"warnings,omitempty"`
}

// Move renames a note file. to is a vault path or memory:// URI (".md" is
// added when missing). The note keeps its access history. As in Obsidian,
// the links that point to it follow: links by path ([[folder/Note]]) and
// relation targets ([[folder/Note.md]], memory:// URIs). A move that
// changes the file name renames the note (Obsidian knows a note by its
// file name): its title becomes the new name, the old title stays an
// alias, and links by the old title or file name follow ([[Old]] becomes
// [[New|Old]], the text reading the same; see planRename). A new name
// another note answers to is a conflict. Everything changes through one
// changeset; a folder the move empties is removed.
func (s *Service) Move(ctx context.Context, from, to string) (*MoveResult, error) {
	src, err := s.Resolve(ctx, from)
	if err != nil {
		return nil, err
	}
	dst, err := vault.URIToPath(strings.TrimSpace(to))
	if err != nil {
		return nil, err
	}
	if dst, err = s.Vault.Rel(dst); err != nil {
		return nil, err
	}
	if _, err := s.Vault.Abs(dst); err != nil {
		return nil, err
	}
	if dst == src {
		return nil, noema.Errorf(noema.EINVALID, "source and destination are the same note")
	}
	res := &MoveResult{From: noema.NoteURI(src), URI: noema.NoteURI(dst), Path: dst, Links: []LinkChange{}}
	err = s.Vault.Locked(ctx, func(w *vault.Writer) error {
		changed, err := s.move(ctx, w, src, dst, res)
		if err != nil {
			return err
		}
		if err := s.indexMoved(ctx, map[string]string{src: dst}, changed); err != nil {
			// The files moved: see Service.index.
			res.Warnings = append(res.Warnings, behind(noema.IndexBehind(append([]string{dst}, changed...), err)))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// DeleteResult describes a deleted note.
type DeleteResult struct {
	URI     string `json:"uri"`
	Deleted bool   `json:"deleted"`
	// Warnings say the index is behind the files (see Service.index).
	Warnings []string `json:"warnings,omitempty"`
}

// Delete removes a note file. confirm must be true: deletion is the one
// operation that loses user text.
func (s *Service) Delete(ctx context.Context, ref string, confirm bool) (*DeleteResult, error) {
	rel, err := s.Resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	if !confirm {
		return nil, noema.Errorf(noema.EINVALID, "deleting %s needs confirm=true", noema.NoteURI(rel)).WithParam("confirm")
	}
	if err := s.Vault.Locked(ctx, func(w *vault.Writer) error { return w.Remove(rel) }); err != nil {
		return nil, err
	}
	res := &DeleteResult{URI: noema.NoteURI(rel), Deleted: true}
	res.Warnings = s.index(ctx, rel)
	return res, nil
}

// noSection is the not_found of a section heading body lacks, listing the
// headings it has.
func noSection(section, rel string, body []byte) error {
	headings := vault.Headings(body)
	msg := fmt.Sprintf("no section %q in %s", section, noema.NoteURI(rel))
	if len(headings) == 0 {
		msg += "; it has no headings"
	} else {
		quoted := make([]string, len(headings))
		for i, h := range headings {
			quoted[i] = strconv.Quote(h)
		}
		msg += "; its headings: " + strings.Join(quoted, ", ")
	}
	if headings == nil {
		headings = []string{}
	}
	return &noema.Error{Code: noema.ENOTFOUND, Message: msg, Details: map[string]any{"headings": headings}}
}

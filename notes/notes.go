// Package notes implements the note operations every front end (CLI, MCP)
// calls: write, read, edit, move, delete, list and recent. Each operation
// changes the file first (atomically), then indexes exactly that file, so
// the index reflects the change when the call returns.
package notes

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/fuzzy"
	"github.com/noema-mem/noema/vault"
)

// Limits of list-style operations.
const (
	DefaultLimit = 50
	// DefaultRecentLimit is recent_activity's page size when none is given.
	DefaultRecentLimit = 20
	MaxLimit           = 500
)

// Service performs note operations on one vault and its index.
type Service struct {
	Vault *vault.Vault
	// DB is the index note operations read.
	DB noema.NoteIndex
	// Sync indexes the files an operation changed.
	Sync noema.IndexSync
	// MaxNoteBytes refuses larger notes with too_large (0: no limit).
	MaxNoteBytes int64
	// Now returns the current time; tests replace it.
	Now func() time.Time
}

// New returns a Service over the vault v, reading idx and indexing the
// files it changes with sync; notes over maxNoteBytes (when positive) are
// refused.
func New(v *vault.Vault, idx noema.NoteIndex, sync noema.IndexSync, maxNoteBytes int64) *Service {
	return &Service{Vault: v, DB: idx, Sync: sync, MaxNoteBytes: maxNoteBytes, Now: time.Now}
}

// WriteInput is a new note.
type WriteInput struct {
	Title     string   `json:"title" jsonschema:"the note's title; it also names the file"`
	Content   string   `json:"content" jsonschema:"Markdown body; [[WikiLinks]] name concepts" cli:"stdin" maxLength:"none"`
	Folder    string   `json:"folder,omitempty" jsonschema:"vault-relative folder, created when missing"`
	Tags      []string `json:"tags,omitempty" jsonschema:"tags written into the front matter" cli:"name=tag"`
	Aliases   []string `json:"aliases,omitempty" jsonschema:"other names of the note" cli:"name=alias"`
	Overwrite bool     `json:"overwrite,omitempty" jsonschema:"replace an existing note with the same title in the same folder (default false)" default:"false"`
	// AllowDuplicateTitle writes a note whose title another note already
	// answers to; the result then carries a warning.
	AllowDuplicateTitle bool `json:"allow_duplicate_title,omitempty" jsonschema:"create the note even when another note, in any folder, already has this title or file name (compared case-insensitively); [[links]] to the title then name two notes (default false: conflict)" default:"false"`
	TimeInput
}

// WriteResult identifies the note a write produced.
type WriteResult struct {
	URI      string `json:"uri"`
	Path     string `json:"path"`
	Title    string `json:"title"`
	Checksum string `json:"checksum"`
	Created  bool   `json:"created"`
	Size     int    `json:"size"`
	// Concepts are the concepts the note links after the write; the tools
	// fill them in (see concepts.Service.Feedback).
	Concepts []noema.LinkedConcept `json:"concepts"`
	// Warnings name near-duplicates of the concepts the write created.
	Warnings []string `json:"warnings"`
}

func (s *Service) checkContent(content []byte) error {
	if !utf8.Valid(content) {
		return noema.Errorf(noema.EINVALID, "content is not valid UTF-8")
	}
	if s.MaxNoteBytes > 0 && int64(len(content)) > s.MaxNoteBytes {
		return noema.Errorf(noema.ETOOLARGE, "note would be %d bytes, over the %d byte limit", len(content), s.MaxNoteBytes)
	}
	return checkLinks(content)
}

// Write creates a note. It never replaces an existing note unless
// Overwrite is set, and never creates a second note answering to a title
// unless AllowDuplicateTitle is set (see sameName). The file is named by the title as Obsidian names notes
// (vault.FileName), so [[title]] finds it in Obsidian too; two different
// titles never share a file: when the name is taken by a note with another
// title, it is numbered ("Title 2.md"). Front matter in Content is kept, and title, tags, aliases and
// created are set in it.
func (s *Service) Write(ctx context.Context, in WriteInput) (*WriteResult, error) {
	title := strings.TrimSpace(in.Title)
	if title == "" {
		return nil, noema.Errorf(noema.EINVALID, "title is required").WithParam("title")
	}
	if strings.ContainsAny(title, "\x00\n\r") || !utf8.ValidString(title) {
		return nil, noema.Errorf(noema.EINVALID, "title must be one line of valid UTF-8").WithParam("title")
	}
	folder := strings.TrimSpace(in.Folder)
	if strings.HasPrefix(folder, "/") {
		return nil, noema.Errorf(noema.EINVALID, "folder must be relative to the vault (no leading '/'): %q", in.Folder).WithParam("folder")
	}
	folder = strings.TrimRight(folder, "/")
	if folder != "" {
		f, err := s.Vault.Rel(folder)
		if err != nil {
			return nil, err
		}
		folder = f + "/"
	}
	timeEdit, err := s.timeEdit(ctx, in.TimeInput, folder+vault.FileName(title)+".md")
	if err != nil {
		return nil, err
	}
	content, err := vault.EditFrontMatter([]byte(in.Content), func(fm *vault.FrontMatter) error {
		if err := fm.Set("title", title); err != nil {
			return err
		}
		if timeEdit != nil {
			if err := timeEdit(fm); err != nil {
				return err
			}
		}
		if len(in.Tags) > 0 {
			if err := fm.Set("tags", cleanList(in.Tags)); err != nil {
				return err
			}
		}
		if len(in.Aliases) > 0 {
			if err := fm.Set("aliases", cleanList(in.Aliases)); err != nil {
				return err
			}
		}
		if _, ok := fm.Get("created"); !ok {
			return fm.Set("created", s.Now().UTC().Format(time.RFC3339))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.checkContent(content); err != nil {
		return nil, err
	}
	if err := checkValidity(nil, content); err != nil {
		return nil, err
	}

	stem := vault.FileName(title)
	// Choose the name and write under the vault's write lock, so that an
	// overwrite never replaces an edit made after this write looked.
	var rel string
	var exists bool
	var others []string // other notes answering to the title
	err = s.Vault.Locked(ctx, func(w *vault.Writer) error {
		var err error
		if others, err = s.sameName(ctx, title, ""); err != nil {
			return err
		}
		// A note of this title at a name place would write (the title's
		// file name in this folder, or a numbered one) is place's to
		// judge: the same note, replaced with overwrite, a conflict
		// without. Any other, a file name differing only in case among
		// them, is a second note answering to the title.
		others = slices.DeleteFunc(others, func(p string) bool { return vault.IsNumberedName(p, folder, stem) && s.titled(p, title) })
		if len(others) > 0 && !in.AllowDuplicateTitle {
			return duplicateTitle(title, others)
		}
		rel, exists, err = s.place(w, folder, stem, title, content, in.Overwrite)
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &WriteResult{URI: noema.NoteURI(rel), Path: rel, Title: title, Checksum: noema.Checksum(content),
		Created: !exists, Size: len(content), Warnings: []string{}}
	res.Warnings = append(res.Warnings, s.index(ctx, rel)...)
	if others = slices.DeleteFunc(others, func(p string) bool { return p == rel }); len(others) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("duplicate title: %s also answers to %q; [[%s]] now names %d notes (noema opens the first by path, Obsidian any of them)",
			strings.Join(uris(others), ", "), title, title, len(others)+1))
	}
	return res, nil
}

// index brings the index up to date with a change of the note rel already
// on disk. The files are
// the truth and the change stands: when indexing fails (a full disk, say)
// the answer is a success whose warning says the index is behind — an
// error would tell the caller to retry, and a retried append would append
// twice. The next sync catches up.
func (s *Service) index(ctx context.Context, rel string) []string {
	if err := s.Sync.SyncWritten(ctx, []string{rel}, ""); err != nil {
		return []string{behind(err)}
	}
	return nil
}

// behind is the warning of a change on disk that the index does not show:
// err from Sync.SyncWritten, with its code.
func behind(err error) string {
	return noema.ErrorCode(err) + ": " + noema.ErrorMessage(err)
}

// sameName returns, in path order, the notes other than except that answer
// to title as links find notes: a note whose title, or whose file name
// without .md, has the title's key (vault.Key: case, width, '-' and '_'
// folded), in any folder. noema resolves [[title]] by title, Obsidian by
// file name; either way a second such note makes [[title]] ambiguous.
func (s *Service) sameName(ctx context.Context, title, except string) ([]string, error) {
	named, err := s.DB.NotesNamed(ctx, vault.Key(title), vault.Key)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(named, func(p string) bool { return p == except }), nil
}

// titled reports whether the note at rel has title (compared as keys).
func (s *Service) titled(rel, title string) bool {
	n, _, _, err := s.Vault.ReadNote(rel)
	return err == nil && vault.Key(n.Title) == vault.Key(title)
}

// duplicateTitle is the conflict of a note named title with the notes
// others, which already answer to it.
func duplicateTitle(title string, others []string) error {
	return &noema.Error{Code: noema.ECONFLICT,
		Message: fmt.Sprintf("a note named %q already exists at %s: [[%s]] links open it; write to that note (edit_note, or overwrite in its folder), choose another title, or pass allow_duplicate_title",
			title, noema.NoteURI(others[0]), title),
		Details: map[string]any{"uri": noema.NoteURI(others[0]), "uris": uris(others)}}
}

// uris returns the memory:// URIs of vault paths.
func uris(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = noema.NoteURI(p)
	}
	return out
}

// place writes a new note's content under folder: at stem.md, or "stem N.md"
// when notes with other titles hold the names before it. It returns the
// path and whether an existing note of the same title was overwritten. w is
// the write lock the caller holds.
func (s *Service) place(w *vault.Writer, folder, stem, title string, content []byte, overwrite bool) (string, bool, error) {
	for n := 1; ; n++ {
		rel := vault.NumberedName(folder, stem, n)
		if _, err := s.Vault.Rel(rel); err != nil {
			return "", false, err
		}
		existing, _, err := s.Vault.ReadFile(rel)
		exists := err == nil
		if err != nil && noema.ErrorCode(err) != noema.ENOTFOUND {
			return "", false, err
		}
		if exists {
			same := false
			if n, perr := vault.Parse(rel, existing); perr == nil && vault.Key(n.Title) == vault.Key(title) {
				same = true
			}
			if !same {
				continue // another title owns this file name
			}
			if !overwrite {
				return "", false, &noema.Error{Code: noema.ECONFLICT,
					Message: fmt.Sprintf("note %q already exists at %s; pass overwrite to replace it", title, noema.NoteURI(rel)),
					Details: map[string]any{"uri": noema.NoteURI(rel)}}
			}
		}
		if exists {
			err = w.ReplaceFile(rel, existing, content)
		} else {
			err = w.WriteFile(rel, content, false)
		}
		if err != nil {
			if noema.ErrorCode(err) == noema.ECONFLICT && !exists {
				continue // lost a race for this name to another process
			}
			return "", false, err
		}
		return rel, exists, nil
	}
}

func cleanList(in []string) []string {
	out := make([]string, 0, len(in))
	seen := make(map[string]bool)
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// Resolve finds the vault path of a note from a memory:// URI, a vault
// path (with or without .md), or a title.
func (s *Service) Resolve(ctx context.Context, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", noema.Errorf(noema.EINVALID, "a note uri, path or title is required")
	}
	if strings.ContainsRune(ref, 0) {
		return "", noema.Errorf(noema.EINVALID, "note reference contains a NUL byte")
	}
	if p, err := vault.URIToPath(ref); err == nil {
		rel, err := s.Vault.Rel(p)
		if err != nil {
			return "", err
		}
		if _, err := s.Vault.Abs(rel); err != nil {
			return "", err
		}
		if _, _, err := s.Vault.ReadFile(rel); err == nil {
			return rel, nil
		}
		if strings.HasPrefix(ref, noema.URIScheme) {
			return "", noema.Errorf(noema.ENOTFOUND, "no note at %s", ref)
		}
	} else if strings.HasPrefix(ref, noema.URIScheme) {
		return "", err
	}
	// A title: exact first, then by key.
	path, err := s.DB.NoteByTitle(ctx, ref, vault.Key)
	if err != nil {
		return "", err
	}
	if path == "" {
		return "", s.noNote(ctx, ref)
	}
	return path, nil
}

// closestTitles is how many titles the not_found of an unknown note names.
const closestTitles = 5

// noNote is the not_found of a reference that names no note, naming the
// titles spelled most like it (WRatio ≥ 60, best first).
func (s *Service) noNote(ctx context.Context, ref string) error {
	msg := fmt.Sprintf("no note with uri, path or title %q", ref)
	_, all, err := s.DB.ListNotes(ctx, noema.NoteQuery{Limit: math.MaxInt32})
	if err != nil {
		return fmt.Errorf("%s; list notes: %w", msg, err)
	}
	titles := make([]string, len(all))
	for i, n := range all {
		titles[i] = n.Title
	}
	matches, err := fuzzy.NewChoices(titles, fuzzy.DefaultProcess).Extract(ctx, ref, fuzzy.ScorerWRatio, closestTitles, 60)
	if err != nil {
		return fmt.Errorf("%s: %w", msg, err)
	}
	closest := make([]any, len(matches))
	quoted := make([]string, len(matches))
	for i, m := range matches {
		n := all[m.Index]
		closest[i] = map[string]any{"title": n.Title, "uri": n.URI, "score": math.Round(m.Score*100) / 100}
		quoted[i] = strconv.Quote(n.Title)
	}
	if len(matches) > 0 {
		msg += "; closest titles: " + strings.Join(quoted, ", ")
	}
	return &noema.Error{Code: noema.ENOTFOUND, Message: msg, Details: map[string]any{"closest": closest}}
}

// Note is a note as read from its file.
type Note struct {
	URI         string         `json:"uri"`
	Path        string         `json:"path"`
	Title       string         `json:"title"`
	Tags        []string       `json:"tags"`
	Aliases     []string       `json:"aliases"`
	FrontMatter map[string]any `json:"front_matter"`
	Content     string         `json:"content"`
	Links       []noema.Link   `json:"links"`
	Checksum    string         `json:"checksum"`
	Size        int            `json:"size"`
	Modified    time.Time      `json:"modified"`
}

// Read returns a note's content, front matter, links and checksum, and
// records an explicit access (which refreshes its decay).
func (s *Service) Read(ctx context.Context, ref string) (*Note, error) {
	rel, err := s.Resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	n, err := s.load(rel)
	if err != nil {
		return nil, err
	}
	s.DB.LogAccess(ctx, rel) // never waits behind a writer (see noema.NoteIndex)
	return n, nil
}

func (s *Service) load(rel string) (*Note, error) {
	p, content, info, err := s.Vault.ReadNote(rel)
	if err != nil {
		return nil, err
	}
	s.Vault.ResolvePathLinks(p)
	fmMap := map[string]any{}
	for _, k := range p.FrontMatter.Keys() {
		if v, ok := p.FrontMatter.Get(k); ok {
			fmMap[k] = jsonSafe(v)
		}
	}
	links := p.Links
	if links == nil {
		links = []noema.Link{}
	}
	return &Note{
		URI: noema.NoteURI(rel), Path: rel, Title: p.Title, Tags: nonNil(p.Tags), Aliases: nonNil(p.Aliases),
		FrontMatter: fmMap, Content: string(content), Links: links, Checksum: p.Checksum,
		Size: len(content), Modified: info.ModTime().UTC(),
	}, nil
}

// jsonSafe converts YAML-decoded values into JSON-encodable ones.
func jsonSafe(v any) any {
	var out any
	if err := json.Unmarshal([]byte(vault.CanonicalJSON(v)), &out); err != nil {
		return fmt.Sprint(v)
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

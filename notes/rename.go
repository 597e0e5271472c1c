package notes

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/replace"
	"github.com/noema-mem/noema/vault"
)

// RenameFilesInput asks for the renaming of slug-named notes.
type RenameFilesInput struct {
	DryRun bool `json:"dry_run,omitempty" jsonschema:"show what would be renamed and which links would change, and change nothing (default false)" default:"false"`
}

// RenamedFile is one note renamed.
type RenamedFile struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// LinkChange is one line whose links a rename rewrote.
type LinkChange struct {
	URI string `json:"uri"`
	vault.LineChange
}

// RenameFilesResult is what a rename changed, or would change.
type RenameFilesResult struct {
	DryRun  bool          `json:"dry_run"`
	Renamed []RenamedFile `json:"renamed"`
	Links   []LinkChange  `json:"links"`
}

// RenameFiles renames the notes whose file carries the name older noema
// versions gave (vault.Slug of the title: "garbage-collection.md") to the
// name Obsidian expects (vault.FileName: "Garbage Collection.md"), in the
// same folder, and rewrites the links that name them by path
// ([[folder/garbage-collection]], relation targets [[folder/garbage-collection.md]]
// and memory:// URIs). Links by title ([[Garbage Collection]]) need no
// change. All files change together through a changeset, so a crash leaves
// the vault as it was or as it becomes; notes renamed meanwhile by someone
// else stop it with checksum_mismatch. With DryRun nothing changes.
func (s *Service) RenameFiles(ctx context.Context, in RenameFilesInput) (*RenameFilesResult, error) {
	res := &RenameFilesResult{DryRun: in.DryRun, Renamed: []RenamedFile{}, Links: []LinkChange{}}
	err := s.Vault.Locked(ctx, func(w *vault.Writer) error {
		files, err := s.readAll(ctx)
		if err != nil {
			return err
		}
		renames := plannedRenames(files)
		if len(renames) == 0 {
			return nil
		}
		cs := &noema.Changeset{Operation: "vault rename-files"}
		var paths []string // changed in place
		for _, f := range files {
			content, changes := rewritePathLinks(f, renames)
			for _, c := range changes {
				res.Links = append(res.Links, LinkChange{URI: noema.NoteURI(f.rel), LineChange: c})
			}
			to, renamed := renames[f.rel]
			switch {
			case renamed:
				cs.Create(to, content)
				cs.Remove(f.rel, f.content)
				res.Renamed = append(res.Renamed, RenamedFile{From: noema.NoteURI(f.rel), To: noema.NoteURI(to)})
			case !bytes.Equal(content, f.content):
				cs.Replace(f.rel, f.content, content)
				paths = append(paths, f.rel)
			}
		}
		if in.DryRun {
			return nil
		}
		if err := w.Apply(ctx, cs); err != nil {
			return err
		}
		return s.indexMoved(ctx, renames, paths)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// indexMoved indexes the files renamed (renames: old path to new), one
// rename at a time so that each note keeps its access history, then the
// files changed in place.
func (s *Service) indexMoved(ctx context.Context, renames map[string]string, changed []string) error {
	for from, to := range renames {
		if err := s.Sync.SyncFiles(ctx, []string{to, from}, from); err != nil {
			return err
		}
	}
	if len(changed) == 0 {
		return nil
	}
	return s.Sync.SyncFiles(ctx, changed, "")
}

// noteFile is a note's file as read for a rename.
type noteFile struct {
	rel     string
	content []byte
	note    *vault.Note
}

// readAll reads and parses every note of the vault; files that do not
// parse are left alone.
func (s *Service) readAll(ctx context.Context) ([]noteFile, error) {
	var files []noteFile
	err := s.Vault.Walk(ctx, func(rel string, _ fs.FileInfo) error {
		n, content, _, err := s.Vault.ReadNote(rel)
		if err != nil {
			return nil // gone, unreadable or unparsable: not ours to rename
		}
		s.Vault.ResolvePathLinks(n)
		files = append(files, noteFile{rel: rel, content: content, note: n})
		return nil
	})
	return files, err
}

// plannedRenames maps each slug-named note to its title's file name in the
// same folder, numbered when the name is taken (by a file that stays, or by
// an earlier rename).
func plannedRenames(files []noteFile) map[string]string {
	taken := map[string]bool{}
	for _, f := range files {
		taken[strings.ToLower(f.rel)] = true
	}
	renames := map[string]string{}
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	for _, f := range files {
		dir, base := path.Split(f.rel)
		stem := strings.TrimSuffix(base, ".md")
		want := vault.FileName(f.note.Title)
		if stem != vault.Slug(f.note.Title) || stem == want {
			continue
		}
		for n := 1; ; n++ {
			to := vault.NumberedName(dir, want, n)
			// Compared case-insensitively: macOS and Windows would see
			// "Go.md" and "go.md" as one file.
			if !taken[strings.ToLower(to)] {
				taken[strings.ToLower(to)] = true
				renames[f.rel] = to
				break
			}
		}
	}
	return renames
}

// rewritePathLinks returns f's content with the links naming a renamed note
// by path pointing to its new path: body links ([[folder/old]],
// [[folder/old.md]]) and, in the front matter, relation targets
// ("[[folder/old.md]]") and memory:// URIs.
func rewritePathLinks(f noteFile, renames map[string]string) ([]byte, []vault.LineChange) {
	content, changes := vault.RewriteLinks(f.content, f.note.Links, func(l noema.Link) (string, bool) {
		to, ok := renames[l.Path]
		if !ok {
			return "", false
		}
		// Keep the form the link was written in: with or without .md.
		inner := string(f.content[l.Offset+2 : l.End-2])
		if i := strings.IndexAny(inner, "#|"); i >= 0 {
			inner = inner[:i]
		}
		if strings.HasSuffix(strings.ToLower(strings.TrimSpace(inner)), ".md") {
			return to, true
		}
		return strings.TrimSuffix(to, ".md"), true
	})
	if f.note.BodyOffset == 0 {
		return content, changes
	}
	fm, body := content[:f.note.BodyOffset], content[f.note.BodyOffset:]
	newHead := string(fm)
	for from, to := range renames {
		newHead = replaceBounded(newHead, "[["+from+"]]", "[["+to+"]]")
		newHead = replaceBounded(newHead, noema.URIScheme+strings.TrimSuffix(from, ".md"), noema.URIScheme+strings.TrimSuffix(to, ".md"))
	}
	if newHead == string(fm) {
		return content, changes
	}
	return append([]byte(newHead), body...), append(lineDiff(string(fm), newHead), changes...)
}

// replaceBounded replaces old in s where the next character does not
// continue a path (so memory://a/b does not match memory://a/bc).
func replaceBounded(s, old, repl string) string {
	return replace.Where(s, old, repl, func(s string, _, end int) bool {
		return end < len(s) && !strings.ContainsRune("\"' \t\r\n,]}#|", rune(s[end]))
	})
}

// move plans and applies the move of src to dst with the links that follow
// it (see Move) under the write lock w, and returns the other files it
// changed.
func (s *Service) move(ctx context.Context, w *vault.Writer, src, dst string, res *MoveResult) ([]string, error) {
	n, _, _, err := s.Vault.ReadNote(src)
	if err != nil {
		return nil, err
	}
	r, err := s.planRename(ctx, src, dst, n)
	if err != nil {
		return nil, err
	}
	keys := []string{vault.Key(r.oldStem)}
	refs := []string{"note:" + src}
	for k := range r.follow {
		keys = append(keys, k)
		refs = append(refs, "concept:"+k)
	}
	candidates, err := s.DB.NotesLinkingKeys(ctx, keys)
	if err != nil {
		return nil, err
	}
	relating, err := s.DB.FilesRelatingTo(ctx, refs)
	if err != nil {
		return nil, err
	}
	candidates = append(append(candidates, relating...), src)
	slices.Sort(candidates)
	renames := map[string]string{src: dst}
	cs := &noema.Changeset{Operation: "move_note"}
	var changed []string
	for _, rel := range slices.Compact(candidates) {
		old, _, err := s.Vault.ReadFile(rel)
		if err != nil {
			return nil, err
		}
		note, err := vault.Parse(rel, old)
		if err != nil {
			continue // not ours to fix; sync reports it
		}
		s.Vault.ResolvePathLinks(note)
		out, lines := rewritePathLinks(noteFile{rel: rel, content: old, note: note}, renames)
		if r.oldStem != r.newStem {
			var more []vault.LineChange
			out, more = r.rewriteNames(s.Vault, rel, out)
			lines = mergeLines(lines, more)
		}
		out, lines = r.retargetSupersedes(out, lines, src, dst)
		if rel == src {
			if out, err = r.retitle(out); err != nil {
				return nil, err
			}
		}
		uri := noema.NoteURI(rel)
		if rel == src {
			uri = noema.NoteURI(dst)
		}
		for _, c := range lines {
			res.Links = append(res.Links, LinkChange{URI: uri, LineChange: c})
		}
		switch {
		case rel == src:
			cs.Create(dst, vault.EndLine(out))
			cs.Remove(src, old)
		case !bytes.Equal(out, old):
			cs.Replace(rel, old, vault.EndLine(out))
			changed = append(changed, rel)
		}
	}
	if err := w.Apply(ctx, cs); err != nil {
		return nil, err
	}
	// Obsidian leaves no empty folder behind a move; neither does noema.
	w.RemoveEmptyDirs(path.Dir(src))
	return changed, nil
}

// rename is what a move does to a note's names.
type rename struct {
	oldStem, newStem string
	// oldTitle is the note's title before the move, newTitle after it:
	// the new file name when the move changes it, else oldTitle.
	oldTitle, newTitle string
	// follow holds the keys of the links by name ([[Old]], not by path)
	// that meant the note in noema before the move and are rewritten to
	// its new name.
	follow map[string]bool
	// byFileName: links by the old file name ([[old stem]], any case) meant
	// the note in Obsidian and are rewritten too; false when another note
	// has the same file name, which Obsidian may have meant.
	byFileName bool
}

// planRename decides what moving n from src to dst does to its names. A
// move that keeps the file name keeps the title. A move that changes it
// renames the note, as Obsidian (which knows a note by its file name)
// does: the title becomes the new file name, the old title stays an
// alias, and the links that named the note follow — by its old title when
// the note is the page of that title's concept (noema's meaning), by its
// old file name, in any case, unless another note has that file name too
// (Obsidian's meaning), and by any spelling of the old file name's key when
// no note is the page of its concept.
// A new name that another note already answers to is a conflict (see
// Service.sameName).
func (s *Service) planRename(ctx context.Context, src, dst string, n *vault.Note) (*rename, error) {
	r := &rename{oldStem: strings.TrimSuffix(path.Base(src), ".md"), newStem: strings.TrimSuffix(path.Base(dst), ".md"),
		oldTitle: n.Title, newTitle: n.Title, follow: map[string]bool{}}
	if r.oldStem == r.newStem {
		return r, nil
	}
	r.newTitle = r.newStem
	if k := vault.Key(r.newStem); k != vault.Key(r.oldTitle) && k != vault.Key(r.oldStem) {
		others, err := s.sameName(ctx, r.newStem, src)
		if err != nil {
			return nil, err
		}
		if len(others) > 0 {
			return nil, &noema.Error{Code: noema.ECONFLICT,
				Message: fmt.Sprintf("cannot name %s %q: a note named %q already exists at %s ([[%s]] links open it); choose another name",
					noema.NoteURI(src), r.newStem, r.newStem, noema.NoteURI(others[0]), r.newStem),
				Details: map[string]any{"uri": noema.NoteURI(others[0]), "uris": uris(others)}}
		}
	}
	named, err := s.sameName(ctx, r.oldStem, src)
	if err != nil {
		return nil, err
	}
	r.byFileName = !slices.ContainsFunc(named, func(p string) bool {
		return strings.EqualFold(strings.TrimSuffix(path.Base(p), ".md"), r.oldStem)
	})
	for _, name := range []string{r.oldTitle, r.oldStem} {
		k := vault.Key(name)
		page, err := s.DB.PageOfKey(ctx, k)
		if err != nil {
			return nil, err
		}
		if page == src || (page == "" && name == r.oldStem) {
			r.follow[k] = true
		}
	}
	return r, nil
}

// rewriteNames returns content (of the note at rel) with its links by a
// followed name pointing to the new name, reading the same ([[Old]] →
// [[New|Old]]), and its relation targets by the old title ("[[Old]]")
// naming the new one. Links Obsidian already resolves to the new file name
// stay as written.
func (r *rename) rewriteNames(v *vault.Vault, rel string, content []byte) ([]byte, []vault.LineChange) {
	n, err := vault.Parse(rel, content)
	if err != nil {
		return content, nil
	}
	v.ResolvePathLinks(n)
	out, lines := vault.RewriteLinks(content, n.Links, func(l noema.Link) (string, bool) {
		named := r.follow[l.Key] || (r.byFileName && strings.EqualFold(l.Target, r.oldStem))
		if !named || l.Path != "" || strings.EqualFold(l.Target, r.newTitle) {
			return "", false
		}
		return vault.Retarget(content, l, r.newTitle), true
	})
	if n.BodyOffset == 0 || !r.follow[vault.Key(r.oldTitle)] {
		return out, lines
	}
	head := string(out[:n.BodyOffset])
	newHead := replaceBounded(head, "[["+r.oldTitle+"]]", "[["+r.newTitle+"]]")
	if newHead == head {
		return out, lines
	}
	return append([]byte(newHead), out[n.BodyOffset:]...), mergeLines(lineDiff(head, newHead), lines)
}

// retitle returns the moved note's content with its new names: title: the
// new file name when it changed, the old title an alias, and concept: the
// new title when it was the old one (the page renames its concept).
func (r *rename) retitle(content []byte) ([]byte, error) {
	if r.newTitle == r.oldTitle {
		return content, nil
	}
	return vault.EditFrontMatter(content, func(fm *vault.FrontMatter) error {
		if fm.Title() != "" {
			if err := fm.Set("title", r.newTitle); err != nil {
				return err
			}
		}
		if c := fm.Concept(); c != "" && vault.Key(c) == vault.Key(r.oldTitle) {
			if err := fm.Set("concept", r.newTitle); err != nil {
				return err
			}
		}
		aliases := fm.Aliases()
		if vault.Key(r.oldTitle) == vault.Key(r.newTitle) ||
			slices.ContainsFunc(aliases, func(a string) bool { return vault.Key(a) == vault.Key(r.oldTitle) }) {
			return nil
		}
		return fm.Set("aliases", append(aliases, r.oldTitle))
	})
}

// lineDiff lists the lines of a that differ in b, which has as many lines.
func lineDiff(a, b string) []vault.LineChange {
	var out []vault.LineChange
	after := strings.Split(b, "\n")
	for i, line := range strings.Split(a, "\n") {
		if i < len(after) && after[i] != line {
			out = append(out, vault.LineChange{Line: i + 1, Before: strings.TrimSuffix(line, "\r"), After: strings.TrimSuffix(after[i], "\r")})
		}
	}
	return out
}

// mergeLines merges the line changes of a second rewrite into those of a
// first: a line changed twice keeps its first before and its last after.
func mergeLines(first, second []vault.LineChange) []vault.LineChange {
	out := slices.Clone(first)
	for _, c := range second {
		if i := slices.IndexFunc(out, func(o vault.LineChange) bool { return o.Line == c.Line }); i >= 0 {
			out[i].After = c.After
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b vault.LineChange) int { return a.Line - b.Line })
	return out
}

// retargetSupersedes points the `supersedes` items of content that name
// the moved note — by its old path, or by a name that follows it (see
// planRename), written plain or as a link the text rewrites did not
// match ("[[folder/Old]]" without .md, a plain title or path) — at its new
// path or name, and adds the lines that changed to lines.
func (r *rename) retargetSupersedes(content []byte, lines []vault.LineChange, src, dst string) ([]byte, []vault.LineChange) {
	changed := false
	out, err := vault.EditFrontMatter(content, func(fm *vault.FrontMatter) (err error) {
		changed, err = fm.RetargetSupersedes(func(target string) (string, bool) {
			ref := vault.RelationRef(target)
			if ref == "note:"+src {
				return dst, true
			}
			if key, ok := strings.CutPrefix(ref, "concept:"); ok && r.oldStem != r.newStem && r.follow[key] {
				return r.newTitle, true
			}
			return "", false
		})
		return err
	})
	if err != nil || !changed {
		return content, lines
	}
	_, _, oldOff, _ := vault.SplitFrontMatter(content)
	_, _, newOff, _ := vault.SplitFrontMatter(out)
	before, after := string(content[:oldOff]), string(out[:newOff])
	if strings.Count(before, "\n") == strings.Count(after, "\n") {
		lines = mergeLines(lines, lineDiff(before, after))
	}
	return out, lines
}

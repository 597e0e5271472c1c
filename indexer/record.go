package indexer

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/sqlite"
	"github.com/noema-mem/noema/vault"
)

// Record derives the index record of a parsed note. mtime is the file's
// modification time, used when the front matter has no created/modified.
func Record(n *vault.Note, info fs.FileInfo) *sqlite.NoteRecord {
	fm := n.FrontMatter
	mtime := info.ModTime()
	rec := &sqlite.NoteRecord{
		Path:    n.Path,
		Title:   n.Title,
		Tags:    n.Tags,
		Aliases: n.Aliases,
		Size:    info.Size(),
		MtimeNS: mtime.UnixNano(),
		// Taken after the read: a later time only makes the racy-clean
		// rule stricter.
		File:     fileState(info, time.Now()),
		Hash:     n.Checksum,
		Created:  mtime,
		Modified: mtime,
		Body:     string(n.Body),
		FileKey:  vault.Key(strings.TrimSuffix(path.Base(n.Path), ".md")),
	}
	created, hasCreated := fm.Time("created")
	modified, hasModified := fm.Time("modified")
	if hasCreated {
		rec.Created = created
	}
	if hasModified {
		rec.Modified = modified
	} else if hasCreated && created.After(mtime) {
		rec.Modified = created
	}
	// A malformed bound is left out (the note holds always): the tools
	// refuse one, and a hand edit should not hide the note.
	if from, until, err := fm.Validity(); err == nil {
		rec.ValidFrom, rec.ValidUntil = from, until
	}
	// One clock: nothing is created after its last change (a front-matter
	// modified older than the file time created falls back to), so every
	// concept derived from notes has created <= updated.
	if rec.Created.After(rec.Modified) {
		rec.Created = rec.Modified
	}

	// Links, grouped by key and spelling, each with the ordinal of its
	// first occurrence among the note's links (co-occurrence pairs nearby
	// links: see graph.CooccurrenceWindow).
	at := make(map[[2]string]int)
	link := func(key, target string) {
		if key == "" {
			return
		}
		k := [2]string{key, target}
		if i, ok := at[k]; ok {
			rec.Links[i].Count++
			return
		}
		at[k] = len(rec.Links)
		rec.Links = append(rec.Links, sqlite.LinkCount{Key: key, Target: target, Count: 1, Pos: len(rec.Links)})
	}
	for _, l := range n.Links {
		link(l.Key, l.Target)
	}
	// A note named by title in `supersedes` is linked, after the body's
	// links, as Obsidian counts a property's links: the superseded note is
	// the page of its title's concept, so the supersedes relation resolves
	// (no dangling_relation warning) and the graph joins the two notes.
	for _, t := range fm.Supersedes() {
		if key, ok := strings.CutPrefix(vault.RelationRef(t), "concept:"); ok {
			link(key, t)
		}
	}
	sort.Slice(rec.Links, func(i, j int) bool {
		a, b := rec.Links[i], rec.Links[j]
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		return a.Target < b.Target
	})

	// What the note contributes if it is (or becomes) a concept page.
	page := sqlite.PageRecord{
		Explicit:  strings.HasPrefix(n.Path, noema.ConceptsDir) || n.Concept != "",
		ConceptID: fm.ID(),
		Label:     n.Title,
		Aliases:   n.Aliases,
	}
	if n.Concept != "" {
		page.Label = n.Concept
	}
	if v, ok := fm.Get("description"); ok {
		if s, ok := v.(string); ok {
			page.Description = s
		}
	}
	if v, ok := fm.Get("metadata"); ok {
		if m, ok := v.(map[string]any); ok {
			page.Metadata = vault.CanonicalJSON(m)
		}
	}
	if hasCreated {
		page.Created = created
	}
	if hasModified {
		page.Updated = modified
		if hasCreated && created.After(modified) {
			page.Created = modified
		}
	}
	rec.Page = page
	names := map[string]bool{}
	for _, t := range append([]string{n.Title}, n.Aliases...) {
		if k := vault.Key(t); k != "" && !names[k] {
			names[k] = true
			rec.NameKeys = append(rec.NameKeys, k)
		}
	}
	sort.Strings(rec.NameKeys)

	if rels, err := fm.Relations(); err == nil {
		for _, r := range rels {
			rr := sqlite.RelationRecord{ID: r.ID, Type: r.Type, ToRef: vault.RelationRef(r.To), Weight: r.Weight}
			if len(r.Metadata) > 0 {
				rr.Metadata = vault.CanonicalJSON(r.Metadata)
			}
			if rr.ID == "" {
				rr.ID = noema.RelationID(n.Path, rr.Type, rr.ToRef)
			}
			rec.Relations = append(rec.Relations, rr)
		}
	}
	return rec
}

// LinkFilter is the concepts.ignore list: link targets that never become
// concepts. A name matches a link whose key is the name's key; a glob (with
// * ? or [ ]) matches the lowercased target as written ("*.png", "*.cs",
// "daily/*"). Matching links stay in the note's text; they are left out of
// its index rows, so they make no concept, no mention and no co-occurrence.
type LinkFilter struct {
	keys  map[string]string // key -> pattern
	globs []string
}

// NewLinkFilter compiles patterns; nil when there are none.
func NewLinkFilter(patterns []string) (*LinkFilter, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	f := &LinkFilter{keys: map[string]string{}}
	for _, p := range patterns {
		if strings.ContainsAny(p, "*?[") {
			g := strings.ToLower(strings.TrimSpace(p))
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("concepts.ignore %q: %w", p, err)
			}
			f.globs = append(f.globs, g)
		} else if k := vault.Key(p); k != "" {
			f.keys[k] = p
		}
	}
	return f, nil
}

var _ noema.LinkFilter = (*LinkFilter)(nil)

// Match returns the pattern a link (its target as written) matches.
func (f *LinkFilter) Match(target string) (pattern string, ok bool) {
	if f == nil {
		return "", false
	}
	if p, ok := f.keys[vault.Key(target)]; ok {
		return p, true
	}
	t := strings.ToLower(strings.TrimSpace(target))
	for _, g := range f.globs {
		if m, _ := path.Match(g, t); m {
			return g, true
		}
	}
	return "", false
}

// String is the list, one pattern a line, as the index records it.
func (f *LinkFilter) String() string {
	if f == nil {
		return ""
	}
	var ps []string
	for _, p := range f.keys {
		ps = append(ps, p)
	}
	ps = append(ps, f.globs...)
	sort.Strings(ps)
	return strings.Join(ps, "\n")
}

// apply drops the links of rec that f matches.
func (f *LinkFilter) apply(rec *sqlite.NoteRecord) *sqlite.NoteRecord {
	if f == nil {
		return rec
	}
	kept := rec.Links[:0]
	for _, l := range rec.Links {
		if _, ok := f.Match(l.Target); !ok {
			kept = append(kept, l)
		}
	}
	rec.Links = kept
	return rec
}

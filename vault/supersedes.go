package vault

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/noema-mem/noema"
)

// Memory over time in front matter (docs/time.md). `supersedes` names the
// notes a note replaces, in any of the forms Obsidian users write:
//
//	supersedes: "[[Old Note]]"            a link (heading and shown text ignored)
//	supersedes: ["[[A]]", "[[B]]"]        a list of them (block or flow style)
//	supersedes: Old Note                  a title, unquoted
//	supersedes: notes/Old Note.md         a vault path
//	supersedes: "[[notes/Old Note]]"      a path without .md, as Obsidian links by path
//	supersedes: memory://notes/Old Note   a note's URI
//
// Each is a relation of type `supersedes` (so the graph shows it and every
// rewrite of relation targets — move_note, merge_concepts, update_concept
// with a new label — keeps it pointing at its note). A target holding a
// '/' names a path, as Obsidian reads [[folder/Note]]; any other names a
// note by title (or file name).
//
// `valid_from` and `valid_until` bound when a note holds: a date or a time
// as [noema.ParseTime] reads them, or a link to a daily note
// ("[[2026-05-01]]"); a valid_until date holds through its day.

// supersedesTarget is the relation target of one `supersedes` value: the
// link unwrapped, and a path without .md given its .md.
func supersedesTarget(s string) string {
	t := unwrapLink(s)
	if strings.HasPrefix(t, noema.URIScheme) {
		return t
	}
	t = strings.TrimPrefix(t, "/")
	if strings.Contains(t, "/") && !strings.HasSuffix(strings.ToLower(t), ".md") {
		t += ".md"
	}
	return t
}

// relationTarget is the target of a relation of type typ written as s in
// its property.
func relationTarget(typ, s string) string {
	if typ == noema.SupersedesKey {
		return supersedesTarget(s)
	}
	return unwrapLink(s)
}

// isPropertyValue reports whether s can be an item of the relation
// property typ: a link, or for `supersedes` any name of a note.
func isPropertyValue(typ, s string) bool {
	if typ == noema.SupersedesKey {
		return strings.TrimSpace(s) != "" && supersedesTarget(s) != ""
	}
	return isLinkText(s)
}

// Supersedes returns the targets of the front matter's `supersedes`, as
// relation targets ([RelationRef] gives their index form), in order; nil
// when it names none.
func (f *FrontMatter) Supersedes() []string {
	var out []string
	for _, r := range f.propertyRelations() {
		if r.Type == noema.SupersedesKey {
			out = append(out, r.To)
		}
	}
	return out
}

// Validity returns the front matter's valid_from and valid_until (zero when
// absent or empty); a valid_until date is the last instant of its day. A
// value that is not a date or time is a noema.EINVALID error naming the key
// and its line.
func (f *FrontMatter) Validity() (from, until time.Time, err error) {
	if from, err = f.validity(noema.ValidFromKey); err != nil {
		return time.Time{}, time.Time{}, err
	}
	if until, err = f.validity(noema.ValidUntilKey); err != nil {
		return time.Time{}, time.Time{}, err
	}
	return from, until, nil
}

// validity parses the bound under key.
func (f *FrontMatter) validity(key string) (time.Time, error) {
	n := f.value(key)
	if n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return time.Time{}, nil
	}
	s, ok := scalar(n)
	if ok && s == "" {
		return time.Time{}, nil
	}
	if ok {
		if t, err := noema.ParseValidity(key, unwrapLink(s)); err == nil {
			return t, nil
		}
	}
	return time.Time{}, noema.Errorf(noema.EINVALID, "invalid front matter at line %d: %s must be a date or time (2026-01-02 or 2026-01-02T15:04:05Z)",
		f.line(n.Line), key).WithParam(key)
}

// RetargetSupersedes rewrites the items of `supersedes` whose target (as
// [FrontMatter.Supersedes] gives it) fn maps to a new one, each in the form
// it was written in: a link stays a "[[link]]", a plain title or path stays
// plain. It reports whether anything changed. The links the other rewrites
// of a move already rewrote as text name the new target and are left
// alone.
func (f *FrontMatter) RetargetSupersedes(fn func(target string) (string, bool)) (bool, error) {
	v, ok := f.Get(noema.SupersedesKey)
	if !ok {
		return false, nil
	}
	var items []any
	single := false
	switch v := v.(type) {
	case string:
		items, single = []any{v}, true
	case []any:
		items = append(items, v...)
	default:
		return false, nil
	}
	changed := false
	for i, it := range items {
		s, ok := it.(string)
		if !ok || !isPropertyValue(noema.SupersedesKey, s) {
			continue
		}
		target := supersedesTarget(s)
		to, ok := fn(target)
		if !ok {
			continue
		}
		switch {
		case isLinkText(s):
			to = LinkTo(to)
		case strings.HasPrefix(target, noema.URIScheme) && strings.HasSuffix(to, ".md"):
			to = noema.NoteURI(to) // a URI stays a URI
		}
		if to != s {
			items[i], changed = to, true
		}
	}
	if !changed {
		return false, nil
	}
	if single {
		return true, f.Set(noema.SupersedesKey, items[0])
	}
	return true, f.Set(noema.SupersedesKey, items)
}

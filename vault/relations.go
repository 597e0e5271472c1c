package vault

import (
	"slices"
	"strings"

	"github.com/noema-mem/noema"

	"go.yaml.in/yaml/v3"
)

// ReservedKeys are the front-matter keys with a meaning of their own; a
// property with any other name whose value is a "[[link]]", or a list of
// them, declares relations of that type.
var ReservedKeys = map[string]bool{
	"title": true, "aliases": true, "alias": true, "tags": true, "tag": true,
	"created": true, "modified": true, "updated": true, "date": true,
	"id": true, "concept": true, "description": true, "metadata": true, "relations": true,
	"cssclasses": true, "cssclass": true, "publish": true, "permalink": true,
	noema.ValidFromKey: true, noema.ValidUntilKey: true,
}

// Relations returns the relations the front matter declares, in two forms
// that may be mixed:
//
//   - as Obsidian and Dataview users write them, so that Obsidian's
//     Properties view shows and edits them: a property per relation type
//     whose value is a "[[Target]]" link or a list of them
//     (`part_of: ["[[Runtime]]"]`); any property outside [ReservedKeys]
//     whose value is only links is one, and `supersedes` whatever names
//     its notes (titles and paths too: see [FrontMatter.Supersedes]);
//   - the `relations:` list of mappings (type, to, optional id, weight,
//     metadata): the older form, and where a property relation's weight,
//     metadata and id are kept, in an entry with the same type and target.
//
// Property relations come first, in document order, with the details of
// their matching entries; then the entries that match no property. A
// malformed `relations:` list is a noema.EINVALID error naming the line.
func (f *FrontMatter) Relations() ([]RawRelation, error) {
	list, err := f.relationsList()
	if err != nil {
		return nil, err
	}
	used := make([]bool, len(list))
	var out []RawRelation
	for _, p := range f.propertyRelations() {
		ref := RelationRef(p.To)
		for i, e := range list {
			if !used[i] && e.Type == p.Type && RelationRef(e.To) == ref {
				used[i] = true
				p.ID, p.Weight, p.Metadata = e.ID, e.Weight, e.Metadata
				break
			}
		}
		out = append(out, p)
	}
	for i, e := range list {
		if !used[i] {
			out = append(out, e)
		}
	}
	return out, nil
}

// propertyRelations returns the relations declared as link properties.
func (f *FrontMatter) propertyRelations() []RawRelation {
	var out []RawRelation
	for i := 0; i+1 < len(f.m.Content); i += 2 {
		k, v := f.m.Content[i], deref(f.m.Content[i+1])
		if k.Kind != yaml.ScalarNode || ReservedKeys[k.Value] || strings.TrimSpace(k.Value) == "" || v == nil {
			continue
		}
		var links []string
		if s, ok := scalar(v); ok && v.Kind == yaml.ScalarNode {
			links = []string{s}
		} else {
			links = scalarItems(v)
			if v.Kind != yaml.SequenceNode || len(links) != len(v.Content) {
				continue // a list with something other than text
			}
		}
		typ := strings.TrimSpace(k.Value)
		if len(links) == 0 || slices.ContainsFunc(links, func(s string) bool { return !isPropertyValue(typ, s) }) {
			continue
		}
		for _, l := range links {
			out = append(out, RawRelation{Type: typ, To: relationTarget(typ, l), Property: true})
		}
	}
	return out
}

// isLinkText reports whether s is one "[[…]]" link naming something.
func isLinkText(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") && !strings.Contains(s[2:len(s)-2], "]]") && unwrapLink(s) != ""
}

// RelationRef turns a relation target as written in front matter into the
// index's reference form: "note:<path>" for a memory:// URI or a path
// ending in .md, otherwise "concept:<key>" (a surrounding [[…]] is
// accepted).
func RelationRef(to string) string {
	to = strings.TrimSpace(to)
	if strings.HasPrefix(to, "memory://") {
		if p, err := URIToPath(to); err == nil {
			return "note:" + p
		}
	}
	to = unwrapLink(to)
	if n := len(to) - len(".md"); n > 0 && strings.EqualFold(to[n:], ".md") {
		return "note:" + to[:n] + ".md"
	}
	return "concept:" + Key(to)
}

// LinkTo is the front-matter form of a relation target: "[[Label]]" for a
// concept, "[[path.md]]" for a note (Obsidian resolves both).
func LinkTo(labelOrPath string) string { return "[[" + labelOrPath + "]]" }

// AddRelation declares a relation as a link property: "[[…]]" target link
// appended to the property typ (created when absent; a single link already
// there becomes a list). With a weight, metadata or an explicit id, an
// entry with them is kept in the `relations:` list.
func (f *FrontMatter) AddRelation(typ, link, id string, weight *float64, metadata map[string]any) error {
	var links []any
	if v, ok := f.Get(typ); ok {
		switch v := v.(type) {
		case string:
			links = []any{v}
		case []any:
			links = v
		}
	}
	for _, l := range links {
		if s, _ := l.(string); !isPropertyValue(typ, s) {
			return noema.Errorf(noema.ECONFLICT, "the property %q holds values that are not links, so it cannot hold relations; choose another relation type", typ)
		}
	}
	if err := f.Set(typ, append(links, link)); err != nil {
		return err
	}
	return f.setDetails(typ, link, id, weight, metadata)
}

// RemoveRelation removes the relation of type typ to the target ref (the
// [RelationRef] form) in either form: its link in the property (the
// property goes when it holds no more links) and its `relations:` entry.
// It reports whether there was one.
func (f *FrontMatter) RemoveRelation(typ, ref string) bool {
	found := false
	if v, ok := f.Get(typ); ok {
		var links []any
		switch v := v.(type) {
		case string:
			links = []any{v}
		case []any:
			links = v
		}
		kept := slices.DeleteFunc(slices.Clone(links), func(l any) bool {
			s, _ := l.(string)
			return isPropertyValue(typ, s) && RelationRef(relationTarget(typ, s)) == ref
		})
		if len(kept) != len(links) {
			found = true
			switch len(kept) {
			case 0:
				f.Delete(typ)
			default:
				_ = f.Set(typ, kept) // a list of strings always encodes
			}
		}
	}
	if f.removeDetails(typ, ref) {
		found = true
	}
	return found
}

// setDetails keeps the weight, metadata and id of the relation (typ, link)
// in a `relations:` entry, or removes the entry when there are none.
func (f *FrontMatter) setDetails(typ, link, id string, weight *float64, metadata map[string]any) error {
	f.removeDetails(typ, RelationRef(link))
	if id == "" && weight == nil && len(metadata) == 0 {
		return nil
	}
	entry := map[string]any{"type": typ, "to": link}
	if id != "" {
		entry["id"] = id
	}
	if weight != nil {
		entry["weight"] = *weight
	}
	if len(metadata) > 0 {
		entry["metadata"] = metadata
	}
	list, _ := f.relationsAny()
	return f.Set("relations", append(list, entry))
}

// removeDetails removes the `relations:` entries of (typ, ref) and the list
// when it is left empty.
func (f *FrontMatter) removeDetails(typ, ref string) bool {
	list, ok := f.relationsAny()
	if !ok {
		return false
	}
	kept := slices.DeleteFunc(slices.Clone(list), func(item any) bool {
		m, _ := item.(map[string]any)
		t, _ := m["type"].(string)
		to, _ := m["to"].(string)
		return m != nil && strings.TrimSpace(t) == typ && RelationRef(to) == ref
	})
	if len(kept) == len(list) {
		return false
	}
	if len(kept) == 0 {
		f.Delete("relations")
	} else {
		_ = f.Set("relations", kept)
	}
	return true
}

// relationsAny is the `relations:` list as decoded values.
func (f *FrontMatter) relationsAny() ([]any, bool) {
	v, ok := f.Get("relations")
	if !ok {
		return nil, false
	}
	list, ok := v.([]any)
	return list, ok
}

package concepts

import (
	"bytes"
	"slices"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// edits collects the new contents of many files for one changeset: each
// file is read once, may be changed several times, and the plan is applied
// all or nothing.
type edits struct {
	v     *vault.Vault
	files map[string]*edit
	order []string
}

type edit struct {
	old, content []byte // content nil: remove the file
	create       bool
	changes      []vault.LineChange
}

func newEdits(v *vault.Vault) *edits { return &edits{v: v, files: map[string]*edit{}} }

// current returns rel's content as planned so far.
func (e *edits) current(rel string) ([]byte, error) {
	if f, ok := e.files[rel]; ok {
		return f.content, nil
	}
	old, _, err := e.v.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	e.files[rel] = &edit{old: old, content: old}
	e.order = append(e.order, rel)
	return old, nil
}

// currentNote returns rel's content as planned so far and that content
// parsed, its path links resolved (see vault.Vault.ResolvePathLinks).
func (e *edits) currentNote(rel string) ([]byte, *vault.Note, error) {
	content, err := e.current(rel)
	if err != nil {
		return nil, nil, err
	}
	n, err := vault.Parse(rel, content)
	if err != nil {
		return nil, nil, err
	}
	e.v.ResolvePathLinks(n)
	return content, n, nil
}

// set plans content for rel (read with current first), with the lines it
// changes.
func (e *edits) set(rel string, content []byte, changes []vault.LineChange) {
	f := e.files[rel]
	f.content = vault.EndLine(content)
	f.changes = append(f.changes, changes...)
}

// create plans a new file.
func (e *edits) create(rel string, content []byte) {
	e.files[rel] = &edit{content: vault.EndLine(content), create: true}
	e.order = append(e.order, rel)
}

// remove plans the deletion of rel.
func (e *edits) remove(rel string) {
	if _, err := e.current(rel); err == nil {
		e.files[rel].content = nil
	}
}

// editFrontMatter changes the front matter of rel with fn, recording the
// lines that change.
func (e *edits) editFrontMatter(rel string, fn func(fm *vault.FrontMatter) error) error {
	content, err := e.current(rel)
	if err != nil {
		return err
	}
	out, err := vault.EditFrontMatter(content, fn)
	if err != nil {
		return err
	}
	e.set(rel, out, diffLines(content, out))
	return nil
}

// diffLines lists the lines of a that differ in b, for files whose line
// count may change only at the end of the front matter: a simple
// line-by-line comparison up to the first difference in length.
func diffLines(a, b []byte) []vault.LineChange {
	if bytes.Equal(a, b) {
		return nil
	}
	al, bl := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	var out []vault.LineChange
	// Common prefix and suffix; what is between is the change.
	i := 0
	for i < len(al) && i < len(bl) && bytes.Equal(al[i], bl[i]) {
		i++
	}
	j := 0
	for j < len(al)-i && j < len(bl)-i && bytes.Equal(al[len(al)-1-j], bl[len(bl)-1-j]) {
		j++
	}
	for k := i; k < max(len(al), len(bl))-j; k++ {
		var before, after string
		if k < len(al)-j {
			before = string(bytes.TrimSuffix(al[k], []byte("\r")))
		}
		if k < len(bl)-j {
			after = string(bytes.TrimSuffix(bl[k], []byte("\r")))
		}
		out = append(out, vault.LineChange{Line: k + 1, Before: before, After: after})
	}
	return out
}

// lineChanges lists every planned line change, by file.
func (e *edits) lineChanges() []FileChange {
	var out []FileChange
	for _, rel := range e.order {
		f := e.files[rel]
		if f.content == nil || f.create {
			continue
		}
		for _, c := range f.changes {
			out = append(out, FileChange{URI: noema.NoteURI(rel), LineChange: c})
		}
	}
	if out == nil {
		out = []FileChange{}
	}
	return out
}

// paths are the files the plan changes.
func (e *edits) paths() []string {
	var out []string
	for _, rel := range e.order {
		f := e.files[rel]
		if f.create || f.content == nil || !bytes.Equal(f.old, f.content) {
			out = append(out, rel)
		}
	}
	return slices.Clip(out)
}

// changeset is the plan as a noema.Changeset.
func (e *edits) changeset() *noema.Changeset {
	var cs noema.Changeset
	for _, rel := range e.paths() {
		switch f := e.files[rel]; {
		case f.create:
			cs.Create(rel, f.content)
		case f.content == nil:
			cs.Remove(rel, f.old)
		default:
			cs.Replace(rel, f.old, f.content)
		}
	}
	return &cs
}

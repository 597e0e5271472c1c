package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/relations"
	"github.com/noema-mem/noema/vault"
)

// basic-memory (basicmachines-co/basic-memory) keeps a project as a folder
// of Markdown notes: front matter (title, type, tags, permalink), free
// text, and two kinds of lines it reads anywhere outside code:
//
//	- [category] content #tag (context)     an observation
//	- relation_type [[Target]] (context)    a relation to the note titled Target

// BasicNote is what a basic-memory note says besides its text.
type BasicNote struct {
	Title, Type, Permalink string
	Tags                   []string
	Observations           []BasicObservation
	Relations              []BasicRelation
}

// BasicObservation is a `- [category] content #tag (context)` line.
type BasicObservation struct {
	// Text is the line after its bullet, as written.
	Text                       string
	Category, Content, Context string
	Tags                       []string
	// Line is the line in the file (from 1).
	Line int
}

// BasicRelation is a `- relation_type [[Target]] (context)` line.
type BasicRelation struct {
	Type, Target, Context string
	Line                  int
}

var (
	observationLine = regexp.MustCompile(`^\s*[-*]\s+\[([^\[\]]+)\]\s+(.+?)\s*$`)
	relationLine    = regexp.MustCompile(`^\s*[-*]\s+([^\[\]]+?)\s+\[\[([^\[\]]+)\]\](?:\s*\(([^()]*)\))?\s*$`)
	trailingContext = regexp.MustCompile(`\s*\(([^()]*)\)$`)
	inlineTag       = regexp.MustCompile(`(?:^|\s)#([\p{L}\p{N}_/-]+)`)
)

// ParseBasicMemory reads the note at rel (a path of the folder) as
// basic-memory does: its front matter, its observations and its
// relations, in line order, skipping fenced code. Content that is not
// valid UTF-8 or whose front matter is malformed is an invalid_argument
// error naming rel (and the line).
func ParseBasicMemory(rel string, content []byte) (*BasicNote, error) {
	note, err := vault.Parse(rel, content)
	if err != nil {
		return nil, err
	}
	bn := &BasicNote{Title: note.Title, Tags: note.FrontMatter.Tags()}
	for k, dst := range map[string]*string{"type": &bn.Type, "permalink": &bn.Permalink} {
		if v, ok := note.FrontMatter.Get(k); ok {
			*dst = fmt.Sprint(v)
		}
	}
	_, _, _, bodyLine := vault.SplitFrontMatter(content)
	fence := ""
	n := bodyLine - 1
	for line := range strings.Lines(string(note.Body)) {
		n++
		line = strings.TrimRight(line, "\r\n")
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if m := observationLine.FindStringSubmatch(line); m != nil {
			if cat := strings.TrimSpace(m[1]); cat != "" && cat != "x" && cat != "X" {
				bn.Observations = append(bn.Observations, basicObservation(m[1], m[2], n))
			}
			continue
		}
		if m := relationLine.FindStringSubmatch(line); m != nil {
			target, _, _ := strings.Cut(m[2], "|")
			typ, target := strings.TrimSpace(m[1]), strings.TrimSpace(target)
			if typ == "" || target == "" {
				continue // "- x [[ ]]", "- x [[|alias]]": a link to nothing is no relation
			}
			bn.Relations = append(bn.Relations, BasicRelation{Type: typ, Target: target, Context: m[3], Line: n})
		}
	}
	return bn, nil
}

func basicObservation(category, text string, line int) BasicObservation {
	o := BasicObservation{Text: "[" + category + "] " + text, Category: strings.TrimSpace(category), Line: line}
	if m := trailingContext.FindStringSubmatchIndex(text); m != nil {
		o.Context = text[m[2]:m[3]]
		text = text[:m[0]]
	}
	o.Content = text
	for _, m := range inlineTag.FindAllStringSubmatch(text, -1) {
		o.Tags = append(o.Tags, m[1])
	}
	return o
}

// ImportBasicMemory imports the basic-memory project folder dir: every
// Markdown file a note at the same path in the vault, its text as it is,
// with each relation line also declared as a typed relation (a link
// property) in its front matter. Dot-folders and dot-files (.git,
// .obsidian, …) are left out; other files, and symbolic links, are
// reported as not mapped.
func (s *Service) ImportBasicMemory(ctx context.Context, dir string, opts Options) (*Report, error) {
	files, skipped, err := s.readFolder(ctx, dir)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, SourceBasicMemory, opts, func(_ context.Context, p *plan) error {
		for _, it := range skipped {
			p.unmapped(it)
		}
		for _, f := range files {
			if err := p.basicNote(f); err != nil {
				return err
			}
		}
		return nil
	})
}

// folderFile is a Markdown file of an imported folder.
type folderFile struct {
	rel     string
	content []byte
	note    *BasicNote
}

// readFolder reads and parses every Markdown file under dir, in path
// order, and lists the files it leaves out.
func (s *Service) readFolder(ctx context.Context, dir string) ([]folderFile, []Item, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, noema.Errorf(noema.ENOTFOUND, "no folder %s", dir)
		}
		return nil, nil, noema.WrapError(err, noema.EINVALID, "cannot read the folder %s", dir)
	}
	defer root.Close()
	var files []folderFile
	var left []Item
	err = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read %s: %w", rel, err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		it := Item{Kind: KindFile, Name: rel, Record: rel}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			it.Reason = "a symbolic link: not followed"
			left = append(left, it)
			return nil
		case !d.Type().IsRegular():
			it.Reason = "not a regular file"
			left = append(left, it)
			return nil
		case path.Ext(rel) != ".md":
			it.Reason = "not a Markdown note (.md): attachments are not imported"
			left = append(left, it)
			return nil
		}
		if len(files) == MaxFiles {
			return noema.Errorf(noema.ETOOLARGE, "%s holds more than %d Markdown files, the most an import reads; import its folders one by one", dir, MaxFiles)
		}
		if err := vault.CheckPortableName(rel); err != nil {
			return inputError(noema.EINVALID, rel, "%s", noema.ErrorMessage(err))
		}
		content, err := readNote(root, rel, s.MaxNoteBytes)
		if err != nil {
			return err
		}
		bn, err := ParseBasicMemory(rel, content)
		if err != nil {
			return err
		}
		files = append(files, folderFile{rel: rel, content: content, note: bn})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return files, left, nil
}

// readNote reads rel of root, refusing a file above max bytes (0: any).
func readNote(root *os.Root, rel string, max int64) ([]byte, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	defer f.Close()
	r := io.Reader(f)
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if max > 0 && int64(len(data)) > max {
		return nil, inputError(noema.ETOOLARGE, rel, "larger than max_note_bytes (%d bytes)", max)
	}
	return data, nil
}

// basicNote plans f as a note at its own path.
func (p *plan) basicNote(f folderFile) error {
	uri := noema.NoteURI(f.rel)
	noteItem := Item{Kind: KindNote, Name: f.note.Title, Record: f.rel, URI: uri}
	content, rels, err := withRelations(f)
	if err != nil {
		return err
	}
	old, exists, err := p.read(f.rel)
	if err != nil {
		return err
	}
	if exists {
		reason := "the vault holds it already"
		if string(old) != string(content) {
			if !sameBasicNote(f, old) {
				return inputError(noema.ECONFLICT, f.rel, "the vault has another note at %s; move it, or import into another vault", f.rel)
			}
			reason = "the vault holds it already (changed since; left as it is)"
		}
		p.skip(noteItem, reason)
		for _, o := range f.note.Observations {
			p.skip(Item{Kind: KindObservation, Name: o.Text, Record: fmt.Sprintf("%s:%d", f.rel, o.Line), URI: uri}, reason)
		}
		for _, r := range rels {
			if r.Reason != "" && r.URI == "" {
				p.unmapped(r)
			} else {
				r.URI = uri
				p.skip(r, reason)
			}
		}
		return nil
	}
	p.created(noteItem)
	for _, o := range f.note.Observations {
		p.created(Item{Kind: KindObservation, Name: o.Text, Record: fmt.Sprintf("%s:%d", f.rel, o.Line), URI: uri})
	}
	for _, r := range rels {
		switch {
		case r.Reason != "" && r.URI == "":
			p.unmapped(r)
		case r.Reason != "":
			p.skipped(r)
		default:
			p.created(r)
		}
	}
	return p.write(f.rel, content)
}

// withRelations returns f's content with its relation lines declared in
// its front matter, and an item per relation: mapped (URI set, no
// Reason), already declared (URI and Reason), or not mapped (Reason).
func withRelations(f folderFile) ([]byte, []Item, error) {
	uri := noema.NoteURI(f.rel)
	var items []Item
	added := 0
	content, err := vault.EditFrontMatter(f.content, func(fm *vault.FrontMatter) error {
		have := map[string]bool{}
		existing, err := fm.Relations()
		if err != nil {
			return err
		}
		for _, r := range existing {
			have[r.Type+"\x00"+vault.RelationRef(r.To)] = true
		}
		for _, r := range f.note.Relations {
			it := Item{Kind: KindRelation, Name: fmt.Sprintf("%s -[%s]-> %s", f.note.Title, r.Type, r.Target), Record: fmt.Sprintf("%s:%d", f.rel, r.Line)}
			typ, err := relations.CheckType(r.Type)
			if err != nil {
				it.Reason = noema.ErrorMessage(err)
				items = append(items, it)
				continue
			}
			if why := labelProblem(r.Target); why != "" {
				it.Reason = "its target: " + why
				items = append(items, it)
				continue
			}
			link := vault.LinkTo(r.Target)
			key := typ + "\x00" + vault.RelationRef(link)
			it.URI = uri
			if have[key] {
				it.Reason = "the front matter declares it already"
				items = append(items, it)
				continue
			}
			if err := fm.AddRelation(typ, link, "", nil, nil); err != nil {
				if noema.ErrorCode(err) != noema.ECONFLICT {
					return err
				}
				it.URI, it.Reason = "", noema.ErrorMessage(err)
				items = append(items, it)
				continue
			}
			have[key] = true
			added++
			items = append(items, it)
		}
		return nil
	})
	if err != nil {
		return nil, nil, inputError(noema.EINVALID, f.rel, "%s", noema.ErrorMessage(err))
	}
	if added == 0 {
		content = f.content // as it is, byte for byte
	}
	return content, items, nil
}

// sameBasicNote reports whether the vault's note old is f imported before
// (and edited since): the same permalink, else the same title.
func sameBasicNote(f folderFile, old []byte) bool {
	prev, err := ParseBasicMemory(f.rel, old)
	if err != nil {
		return false // not a note noema reads: not ours
	}
	if f.note.Permalink != "" {
		return prev.Permalink == f.note.Permalink
	}
	return prev.Title == f.note.Title
}

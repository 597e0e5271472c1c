package vault

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/noema-mem/noema"
)

// Note is one parsed Markdown file.
type Note struct {
	// Path is vault-relative, with forward slashes and the .md extension.
	Path string
	// FrontMatter is never nil: an empty mapping when the file has none.
	FrontMatter *FrontMatter
	// Body is the content after the front matter; BodyOffset is its offset
	// in the file.
	Body       []byte
	BodyOffset int
	// Title is the front matter `title:`, else the file name without .md.
	Title string
	// Tags are the front matter's `tags:` followed by the body's inline
	// #tags ([ParseTags]) that the front matter does not list.
	Tags    []string
	Aliases []string
	// Concept is the front matter `concept:` (see [FrontMatter.Concept]).
	Concept string
	// Links are the body's WikiLinks, with offsets and lines in the whole
	// file.
	Links     []noema.Link
	Relations []RawRelation
	// Checksum is noema.Checksum(content) of the whole file.
	Checksum string
}

// Parse parses the note at vault-relative path from its content. Content
// that is not valid UTF-8, malformed front matter and a malformed
// `relations:` list are noema.EINVALID errors; messages name the path and,
// for front matter, the line in the file. Parse never panics.
func Parse(path string, content []byte) (*Note, error) {
	if !utf8.Valid(content) {
		return nil, noema.Errorf(noema.EINVALID, "%s: not valid UTF-8", path)
	}
	fmText, body, bodyOffset, bodyLine := SplitFrontMatter(content)
	var fm *FrontMatter
	var err error
	if fmText == nil {
		fm = NewFrontMatter()
	} else if fm, err = parseFrontMatter(fmText, 1); err != nil {
		return nil, prefixError(path, err)
	}
	rels, err := fm.Relations()
	if err != nil {
		return nil, prefixError(path, err)
	}
	n := &Note{
		Path:        path,
		FrontMatter: fm,
		Body:        body,
		BodyOffset:  bodyOffset,
		Title:       fm.Title(),
		Tags:        mergeTags(fm.Tags(), ParseTags(body)),
		Aliases:     fm.Aliases(),
		Concept:     fm.Concept(),
		Links:       ParseLinks(body, bodyOffset, bodyLine),
		Relations:   rels,
		Checksum:    noema.Checksum(content),
	}
	if n.Title == "" {
		n.Title = stem(path)
	}
	return n, nil
}

// stem returns the file name of p without its .md extension.
func stem(p string) string {
	return strings.TrimSuffix(path.Base(p), ".md")
}

// prefixError puts the note's path in front of a coded error's message.
func prefixError(path string, err error) error {
	if e, ok := err.(*noema.Error); ok {
		return &noema.Error{Code: e.Code, Message: path + ": " + e.Message, Details: e.Details, Err: e.Err}
	}
	return err
}

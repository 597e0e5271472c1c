package web

import (
	"bytes"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/vault"
)

// markdown renders GitHub-flavoured Markdown; raw HTML in a note is left
// out (goldmark's default), so a note cannot run script in the page.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Placeholders a WikiLink stands as while goldmark renders the body: two
// characters of Unicode's private use area around the link's number, which
// Markdown leaves as they are.
const (
	linkOpen  = "\uE000"
	linkClose = "\uE001"
)

var placeholder = regexp.MustCompile(linkOpen + `(\d+)` + linkClose)

// RenderNote renders a note's body (its content without the front matter)
// to HTML. Each WikiLink (n.Links, whose offsets are in the whole file)
// becomes a link into the page: #/note/PATH when it names a note by path,
// else #/context/TARGET, its concept's context; an embed (![[…]]) becomes a
// link marked as an embed.
func RenderNote(n *notes.Note) (string, error) {
	content := []byte(n.Content)
	_, _, bodyOffset, _ := vault.SplitFrontMatter(content)
	var src bytes.Buffer
	pos := bodyOffset
	for k, l := range n.Links {
		start := l.Offset
		if l.Embed && start > 0 && content[start-1] == '!' {
			start--
		}
		if start < pos || l.End > len(content) || l.End <= start {
			continue // in the front matter, or not where the note says
		}
		src.Write(content[pos:start])
		fmt.Fprintf(&src, "%s%d%s", linkOpen, k, linkClose)
		pos = l.End
	}
	src.Write(content[pos:])
	var out bytes.Buffer
	if err := markdown.Convert(src.Bytes(), &out); err != nil {
		return "", fmt.Errorf("render %s: %w", n.Path, err)
	}
	return placeholder.ReplaceAllStringFunc(out.String(), func(m string) string {
		k, err := strconv.Atoi(placeholder.FindStringSubmatch(m)[1])
		if err != nil || k >= len(n.Links) {
			return ""
		}
		return linkHTML(n.Links[k])
	}), nil
}

// linkHTML is a WikiLink as a link into the page.
func linkHTML(l noema.Link) string {
	text := l.Display
	if text == "" {
		text = l.Target
		if l.Heading != "" {
			text += " › " + l.Heading
		}
	}
	href := "#/context/" + pathEscape(l.Target)
	class := "wikilink"
	title := "context of " + l.Target
	if l.Path != "" {
		href = "#/note/" + pathEscape(l.Path)
		title = "note " + l.Path
	}
	if l.Embed {
		class += " embed"
		text = "⧉ " + text
		title = "embedded: " + title
	}
	return fmt.Sprintf(`<a class="%s" href="%s" title="%s">%s</a>`, class, html.EscapeString(href), html.EscapeString(title), html.EscapeString(text))
}

// pathEscape escapes s for a route of the page's hash (as JavaScript's
// encodeURIComponent does).
func pathEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

// noteRequest is the body of POST /api/note.
type noteRequest struct {
	URI   string `json:"uri"`
	Vault string `json:"vault"`
}

// note answers read_note's result and its rendered body.
func (h *Handler) note(w http.ResponseWriter, r *http.Request) {
	var req noteRequest
	if err := readJSON(r, &req); err != nil {
		h.fail(w, "read_note", err)
		return
	}
	args, err := jsonObject("uri", req.URI)
	if err != nil {
		h.fail(w, "read_note", err)
		return
	}
	out, err := h.run(r.Context(), req.Vault, "read_note", args)
	if err != nil {
		h.fail(w, "read_note", err)
		return
	}
	n := out.(*notes.Note)
	body, err := RenderNote(n)
	if err != nil {
		h.fail(w, "read_note", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"result": n, "html": body})
}

package graph

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/noema-mem/noema"
)

// graphmlAttr is one declared GraphML attribute: its key id, its name and
// type, and how to read it from a node or an edge (ok false: no value, no
// <data> element).
type graphmlAttr struct {
	id, name, typ string
	node          func(n *noema.GraphNode) (string, bool)
	edge          func(e *noema.GraphEdge) (string, bool)
}

// value returns the attribute's value for the node n, or for the edge e
// when n is nil; ok is false when it has none (or is of the other domain).
func (a *graphmlAttr) value(n *noema.GraphNode, e *noema.GraphEdge) (v string, ok bool) {
	switch {
	case n != nil && a.node != nil:
		return a.node(n)
	case n == nil && a.edge != nil:
		return a.edge(e)
	}
	return "", false
}

func str(s string) (string, bool) { return s, s != "" }

func list(v []string) (string, bool) {
	if v == nil {
		return "", false
	}
	// Like WriteJSON: no HTML escaping, the XML writer escapes.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a []string always encodes
	return strings.TrimSuffix(buf.String(), "\n"), true
}

func raw(v json.RawMessage) (string, bool) { return string(v), len(v) > 0 }

func timeText(t time.Time) (string, bool) {
	if t.IsZero() {
		return "", false
	}
	return t.UTC().Format(time.RFC3339Nano), true
}

// graphmlAttrs declares every attribute the export can carry, in output
// order. Key ids are distinct per domain (a node's "metadata" and an
// edge's "metadata" are two keys), as GraphML requires.
var graphmlAttrs = []graphmlAttr{
	{id: "n_kind", name: "kind", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return n.Kind, true }},
	{id: "n_label", name: "label", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return n.Label, true }},
	{id: "n_path", name: "path", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return str(n.Path) }},
	{id: "n_tags", name: "tags", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return list(n.Tags) }},
	{id: "n_aliases", name: "aliases", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return list(n.Aliases) }},
	{id: "n_created", name: "created", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return timeText(n.Created) }},
	{id: "n_modified", name: "modified", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return timeText(n.Modified) }},
	{id: "n_checksum", name: "checksum", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return str(n.Checksum) }},
	{id: "n_key", name: "key", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return str(n.Key) }},
	{id: "n_description", name: "description", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return str(n.Description) }},
	{id: "n_metadata", name: "metadata", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return raw(n.Metadata) }},
	{id: "n_page", name: "page", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return str(n.Page) }},
	{id: "n_created_at", name: "created_at", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return timeText(n.CreatedAt) }},
	{id: "n_updated_at", name: "updated_at", typ: "string", node: func(n *noema.GraphNode) (string, bool) { return timeText(n.UpdatedAt) }},
	{id: "e_kind", name: "kind", typ: "string", edge: func(e *noema.GraphEdge) (string, bool) { return e.Kind, true }},
	{id: "e_type", name: "type", typ: "string", edge: func(e *noema.GraphEdge) (string, bool) { return e.Type, true }},
	{id: "e_weight", name: "weight", typ: "double", edge: func(e *noema.GraphEdge) (string, bool) {
		if e.Weight == nil {
			return "", false
		}
		return strconv.FormatFloat(*e.Weight, 'g', -1, 64), true
	}},
	{id: "e_metadata", name: "metadata", typ: "string", edge: func(e *noema.GraphEdge) (string, bool) { return raw(e.Metadata) }},
}

// WriteGraphML writes g as a directed GraphML document that Gephi,
// Cytoscape and networkx (read_graphml) open. Every attribute is declared
// as a <key> with attr.type string or double; lists and objects are
// JSON-encoded strings, times RFC 3339 in UTC; all text is XML-escaped. A
// node or edge carries a <data> element only for the attributes it has.
//
// Dangling relations are left out: GraphML edges must end at declared
// nodes. Like [WriteJSON], the output is a pure function of g.
func WriteGraphML(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	// bufio keeps the first write error for Flush.
	text := func(s string) { escapeXML(bw, s, false) }
	esc := func(s string) { escapeXML(bw, s, true) }
	bw.WriteString(xml.Header)
	bw.WriteString(`<graphml xmlns="http://graphml.graphdrawing.org/xmlns"` +
		` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"` +
		` xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">` + "\n")
	for _, a := range graphmlAttrs {
		domain := "node"
		if a.edge != nil {
			domain = "edge"
		}
		bw.WriteString(`  <key id="` + a.id + `" for="` + domain + `" attr.name="` + a.name + `" attr.type="` + a.typ + `"/>` + "\n")
	}
	bw.WriteString(`  <graph id="noema" edgedefault="directed">` + "\n")
	// data writes a <data> element for every attribute n (or e) has.
	data := func(n *noema.GraphNode, e *noema.GraphEdge) {
		for j := range graphmlAttrs {
			a := &graphmlAttrs[j]
			if v, ok := a.value(n, e); ok {
				bw.WriteString(`      <data key="` + a.id + `">`)
				text(v)
				bw.WriteString("</data>\n")
			}
		}
	}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		bw.WriteString(`    <node id="`)
		esc(n.ID)
		bw.WriteString("\">\n")
		data(n, nil)
		bw.WriteString("    </node>\n")
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		if e.Dangling {
			continue
		}
		bw.WriteString(`    <edge id="`)
		esc(e.ID)
		bw.WriteString(`" source="`)
		esc(e.Source)
		bw.WriteString(`" target="`)
		esc(e.Target)
		bw.WriteString("\">\n")
		data(nil, e)
		bw.WriteString("    </edge>\n")
	}
	bw.WriteString("  </graph>\n</graphml>\n")
	return bw.Flush()
}

// escapeXML writes s as XML character data, or as an attribute value
// (double-quoted) when attr is set: markup characters become entities
// (and, in attributes, the whitespace that attribute normalization would
// otherwise turn into spaces), and every character XML 1.0 cannot carry
// (control characters, invalid UTF-8) becomes U+FFFD, as in xml.EscapeText.
// Unlike EscapeText it leaves quotes in text alone, which keeps the
// JSON-encoded values readable.
func escapeXML(w *bufio.Writer, s string, attr bool) {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == '&':
			esc = "&amp;"
		case r == '<':
			esc = "&lt;"
		case r == '>':
			esc = "&gt;"
		case r == '\r':
			esc = "&#xD;"
		case attr && r == '"':
			esc = "&quot;"
		case attr && r == '\n':
			esc = "&#xA;"
		case attr && r == '\t':
			esc = "&#x9;"
		case (r == utf8.RuneError && width == 1) || !isXMLChar(r):
			esc = "\uFFFD"
		default:
			i += width
			continue
		}
		w.WriteString(s[last:i])
		w.WriteString(esc)
		i += width
		last = i
	}
	w.WriteString(s[last:])
}

// isXMLChar reports whether r is in XML 1.0's Char production.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

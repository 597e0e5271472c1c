package importer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// WriteMemoryJSONL writes a vault's graph (nodes and edges, as
// graph.Export reads them) in the memory server's JSON Lines format, the
// one [ImportMemoryJSONL] reads:
//
//   - every concept is an entity named by its label; its entityType is its
//     page's `type` ("concept" without one), its observations the bullets
//     of its page's "## Observations" section;
//   - every note that is not a concept's page is an entity named by its
//     title (its path without .md when a concept or another note has that
//     name), of the type in its `type` (else "note"), whose observations
//     are its "## Observations" bullets, or else its whole body as one;
//   - every typed relation is a relation; every mention of a concept by a
//     note is a relation of type "mentions" (a page does not mention its
//     own concept).
//
// Entities come first, then relations, each in the export's order, one
// JSON object per line, so the same vault writes the same bytes. read
// returns a note file's content by vault path; a file it cannot read is an
// entity without observations.
func WriteMemoryJSONL(w io.Writer, nodes []noema.GraphNode, edges []noema.GraphEdge, read func(path string) ([]byte, error)) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	pageOf := map[string]string{} // a page's note URI → its concept's id
	fileOf := map[string]string{} // a node id → the URI of the file declaring its relations
	for _, n := range nodes {
		switch {
		case n.Kind == noema.NodeConcept && n.Page != "":
			pageOf[n.Page] = n.ID
			fileOf[n.ID] = n.Page
		case n.Kind == noema.NodeNote:
			fileOf[n.ID] = n.ID
		}
	}
	names := map[string]string{} // node id → entity name
	taken := map[string]bool{}
	for _, n := range nodes {
		if n.Kind == noema.NodeConcept {
			names[n.ID] = n.Label
			taken[n.Label] = true
		}
	}
	type entity struct {
		Type         string   `json:"type"`
		Name         string   `json:"name"`
		EntityType   string   `json:"entityType"`
		Observations []string `json:"observations"`
	}
	var entities []entity
	for _, n := range nodes {
		switch {
		case n.Kind == noema.NodeConcept:
			e := entity{Type: "entity", Name: n.Label, EntityType: "concept", Observations: []string{}}
			if n.Page != "" {
				// A page under concepts/ holds the concept; a note that is
				// a concept's page is that note's entity too.
				note := !strings.HasPrefix(n.Page, noema.URIScheme+noema.ConceptsDir)
				if note {
					e.EntityType = "note"
				}
				fillEntity(&e.EntityType, &e.Observations, n.Page, read, note)
			}
			entities = append(entities, e)
		case pageOf[n.ID] != "":
			names[n.ID] = names[pageOf[n.ID]]
		default:
			name := n.Label
			if taken[name] {
				name = strings.TrimSuffix(n.Path, ".md")
			}
			taken[name] = true
			names[n.ID] = name
			e := entity{Type: "entity", Name: name, EntityType: "note", Observations: []string{}}
			fillEntity(&e.EntityType, &e.Observations, n.ID, read, true)
			entities = append(entities, e)
		}
	}
	for _, e := range entities {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("write memory-jsonl: %w", err)
		}
	}
	type relation struct {
		Type         string `json:"type"`
		From         string `json:"from"`
		To           string `json:"to"`
		RelationType string `json:"relationType"`
	}
	for _, ed := range edges {
		from, to := names[ed.Source], names[ed.Target]
		if to == "" {
			to = danglingName(ed, fileOf[ed.Source], read)
		}
		if from == "" || to == "" || (ed.Kind == noema.EdgeMentions && from == to) {
			continue
		}
		if err := enc.Encode(relation{Type: "relation", From: from, To: to, RelationType: ed.Type}); err != nil {
			return fmt.Errorf("write memory-jsonl: %w", err)
		}
	}
	return bw.Flush()
}

// danglingName names the missing target of a dangling relation ed as the
// file declaring it (the note at uri) spells it; else by the key of
// "concept:<key>", or a missing note's path.
func danglingName(ed noema.GraphEdge, uri string, read func(string) ([]byte, error)) string {
	if rel, err := vault.URIToPath(uri); err == nil && uri != "" {
		if content, err := read(rel); err == nil {
			if note, err := vault.Parse(rel, content); err == nil {
				for _, r := range note.Relations {
					if r.Type == ed.Type && vault.RelationRef(r.To) == ed.Target {
						return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(r.To), "[["), "]]")
					}
				}
			}
		}
	}
	if k, ok := strings.CutPrefix(ed.Target, "concept:"); ok {
		return k
	}
	if p, ok := strings.CutPrefix(ed.Target, noema.URIScheme); ok {
		return p
	}
	return ed.Target
}

// fillEntity sets an entity's type and observations from the note whose
// URI is uri: its `type`, and its "## Observations" bullets; with
// wholeBody, a note without that section gives its basic-memory
// observation lines (`- [category] …`) if it has any, else its body.
func fillEntity(typ *string, obs *[]string, uri string, read func(string) ([]byte, error), wholeBody bool) {
	rel, err := vault.URIToPath(uri)
	if err != nil {
		return
	}
	content, err := read(rel)
	if err != nil {
		return
	}
	note, err := vault.Parse(rel, content)
	if err != nil {
		return
	}
	if t, ok := note.FrontMatter.Get("type"); ok {
		if s, ok := t.(string); ok && strings.TrimSpace(s) != "" {
			*typ = s
		}
	}
	if list, ok := Observations(note.Body); ok {
		*obs = append(*obs, list...)
		return
	}
	if !wholeBody {
		return
	}
	if bn, err := ParseBasicMemory(rel, content); err == nil && len(bn.Observations) > 0 {
		for _, o := range bn.Observations {
			*obs = append(*obs, o.Text)
		}
	} else if body := strings.TrimSpace(string(note.Body)); body != "" {
		*obs = append(*obs, body)
	}
}

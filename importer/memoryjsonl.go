package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/relations"
	"github.com/noema-mem/noema/vault"
)

// The official MCP memory server (@modelcontextprotocol/server-memory)
// keeps its knowledge graph in a JSON Lines file (MEMORY_FILE_PATH,
// memory.jsonl): one JSON object per line, blank lines ignored, either
//
//	{"type":"entity","name":"Ada","entityType":"person","observations":["Wrote the first program"]}
//	{"type":"relation","from":"Ada","to":"Analytical Engine","relationType":"programmed"}
//
// Entity names are unique in a file, and so are (from, to, relationType).

// MemoryEntity is an entity record of a memory-jsonl file.
type MemoryEntity struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
	// Line is the record's line in the file (from 1).
	Line int `json:"-"`
}

// MemoryRelation is a relation record of a memory-jsonl file.
type MemoryRelation struct {
	From         string `json:"from"`
	To           string `json:"to"`
	RelationType string `json:"relationType"`
	Line         int    `json:"-"`
}

// MemoryGraph is a memory-jsonl file's records, in file order.
type MemoryGraph struct {
	Entities  []MemoryEntity
	Relations []MemoryRelation
}

// memoryRecord is a line as decoded: pointers tell a missing field from
// an empty one.
type memoryRecord struct {
	Type         *string   `json:"type"`
	Name         *string   `json:"name"`
	EntityType   *string   `json:"entityType"`
	Observations *[]string `json:"observations"`
	From         *string   `json:"from"`
	To           *string   `json:"to"`
	RelationType *string   `json:"relationType"`
}

// ParseMemoryJSONL reads a memory-jsonl file. Every line must be a whole
// JSON object of a known type with its fields; the first that is not is an
// invalid_argument error naming its line ("line 7: …"), and a file above
// [MaxInputBytes] is too_large. Fields the format does not name are
// ignored.
func ParseMemoryJSONL(r io.Reader) (*MemoryGraph, error) {
	data, err := readBounded(r, "the memory file")
	if err != nil {
		return nil, err
	}
	return parseMemoryJSONL(data)
}

func parseMemoryJSONL(data []byte) (*MemoryGraph, error) {
	g := &MemoryGraph{}
	n := 0
	for line := range bytes.Lines(data) {
		n++
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		record := fmt.Sprintf("line %d", n)
		if !utf8.Valid(line) {
			return nil, inputError(noema.EINVALID, record, "not valid UTF-8")
		}
		var rec memoryRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, inputError(noema.EINVALID, record, "not a whole JSON object (truncated or malformed: %s)", jsonProblem(err))
		}
		if rec.Type == nil {
			return nil, inputError(noema.EINVALID, record, `a record without "type" (want "entity" or "relation")`)
		}
		switch *rec.Type {
		case "entity":
			if rec.Name == nil || rec.EntityType == nil {
				return nil, inputError(noema.EINVALID, record, `an entity needs "name" and "entityType"`)
			}
			e := MemoryEntity{Name: *rec.Name, EntityType: *rec.EntityType, Line: n}
			if rec.Observations != nil {
				e.Observations = *rec.Observations
			}
			if err := checkName(record, "the entity name", e.Name); err != nil {
				return nil, err
			}
			for _, o := range e.Observations {
				if strings.ContainsRune(o, 0) {
					return nil, inputError(noema.EINVALID, record, "an observation of %q contains a NUL character", e.Name)
				}
			}
			g.Entities = append(g.Entities, e)
		case "relation":
			if rec.From == nil || rec.To == nil || rec.RelationType == nil {
				return nil, inputError(noema.EINVALID, record, `a relation needs "from", "to" and "relationType"`)
			}
			rel := MemoryRelation{From: *rec.From, To: *rec.To, RelationType: *rec.RelationType, Line: n}
			for _, f := range [][2]string{{"the relation's from", rel.From}, {"the relation's to", rel.To}, {"the relation type", rel.RelationType}} {
				if err := checkName(record, f[0], f[1]); err != nil {
					return nil, err
				}
			}
			g.Relations = append(g.Relations, rel)
		default:
			return nil, inputError(noema.EINVALID, record, "unknown record type %q (want \"entity\" or \"relation\")", *rec.Type)
		}
	}
	return g, nil
}

// jsonProblem is a JSON decoding error's message without Go's type names.
func jsonProblem(err error) string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return fmt.Sprintf("field %q holds a JSON %s", te.Field, te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// ImportMemoryJSONL imports a memory-jsonl file (see the package doc):
// each entity a concept page concepts/<Name>.md (an existing concept's
// page under concepts/ gains what it lacks), each observation a bullet of
// its "## Observations" section, each relation a link property of its
// source's page.
func (s *Service) ImportMemoryJSONL(ctx context.Context, r io.Reader, opts Options) (*Report, error) {
	g, err := ParseMemoryJSONL(r)
	if err != nil {
		return nil, err
	}
	if err := checkEntityNames(g); err != nil {
		return nil, err
	}
	return s.run(ctx, SourceMemoryJSONL, opts, func(ctx context.Context, p *plan) error { return p.memoryGraph(ctx, g) })
}

// checkEntityNames refuses a file with two entities of one name, or of two
// names noema takes for one concept ("John Smith", "john_smith").
func checkEntityNames(g *MemoryGraph) error {
	seen := map[string]MemoryEntity{}
	for _, e := range g.Entities {
		k := vault.Key(e.Name)
		if k == "" {
			continue // could not map: reported in the plan
		}
		if prev, ok := seen[k]; ok {
			rec := fmt.Sprintf("line %d", e.Line)
			if prev.Name == e.Name {
				return inputError(noema.ECONFLICT, rec, "entity %q is also on line %d", e.Name, prev.Line)
			}
			return inputError(noema.ECONFLICT, rec, "entity %q and %q on line %d name one concept in noema (names match ignoring case, spaces and _); rename one", e.Name, prev.Name, prev.Line)
		}
		seen[k] = e
	}
	return nil
}

// page is a concept page an import edits.
type page struct {
	rel     string
	fm      *vault.FrontMatter
	body    []byte
	obs     map[string]bool
	rels    map[string]bool // type + "\x00" + vault.RelationRef(target)
	newObs  []string
	changed bool
}

// memoryGraph plans the pages of g's entities and relations.
func (p *plan) memoryGraph(ctx context.Context, g *MemoryGraph) error {
	pages := map[string]*page{} // by concept key
	var order []*page
	owner := map[string]string{} // a page's path → the entity's line
	for _, e := range g.Entities {
		rec := fmt.Sprintf("line %d", e.Line)
		it := Item{Kind: KindEntity, Name: e.Name, Record: rec}
		if why := labelProblem(e.Name); why != "" {
			p.refuse(it, why)
			for _, o := range e.Observations {
				p.refuse(Item{Kind: KindObservation, Name: o, Record: rec}, "its entity could not be mapped")
			}
			continue
		}
		pg, made, err := p.conceptPage(ctx, e, rec)
		if err != nil {
			return err
		}
		if prev, ok := owner[pg.rel]; ok {
			return inputError(noema.ECONFLICT, rec, "entity %q and the entity on %s would share the page %s (their names differ only in characters a file name cannot hold); rename one", e.Name, prev, pg.rel)
		}
		owner[pg.rel] = rec
		pages[vault.Key(e.Name)] = pg
		order = append(order, pg)
		it.URI = noema.NoteURI(pg.rel)
		if made {
			p.created(it)
		} else {
			p.skip(it, "the concept has a page already")
		}
		for _, o := range e.Observations {
			oi := Item{Kind: KindObservation, Name: o, Record: rec, URI: it.URI}
			if pg.obs[o] {
				p.skip(oi, "the page lists it already")
				continue
			}
			pg.obs[o] = true
			pg.newObs = append(pg.newObs, o)
			p.created(oi)
		}
	}
	for _, r := range g.Relations {
		if err := p.memoryRelation(pages, r); err != nil {
			return err
		}
	}
	for _, pg := range order {
		if !pg.changed && len(pg.newObs) == 0 {
			continue
		}
		content, err := vault.Join(pg.fm, addObservations(pg.body, pg.newObs))
		if err != nil {
			return fmt.Errorf("render %s: %w", pg.rel, err)
		}
		if err := p.write(pg.rel, vault.EndLine(content)); err != nil {
			return err
		}
	}
	return nil
}

// conceptPage returns the page of entity e's concept: the concept's page
// under concepts/, else a new one at concepts/<Name>.md. A concept whose
// page is a note elsewhere, or a path held by another note, is a conflict.
func (p *plan) conceptPage(ctx context.Context, e MemoryEntity, rec string) (*page, bool, error) {
	key := vault.Key(e.Name)
	c, err := p.s.Concepts.Concept(ctx, "", key)
	if err != nil {
		return nil, false, err
	}
	rel := noema.ConceptsDir + vault.FileName(e.Name) + ".md"
	if c != nil && c.Page != "" {
		at, err := vault.URIToPath(c.Page)
		if err != nil {
			return nil, false, err
		}
		if !strings.HasPrefix(at, noema.ConceptsDir) {
			return nil, false, inputError(noema.ECONFLICT, rec, "entity %q names the note %s, which is not a concept page; rename the entity or the note", e.Name, at)
		}
		rel = at
	}
	if err := vault.CheckPortableName(rel); err != nil {
		return nil, false, inputError(noema.EINVALID, rec, "entity %q cannot name a file: %s", e.Name, noema.ErrorMessage(err))
	}
	old, exists, err := p.read(rel)
	if err != nil {
		return nil, false, err
	}
	pg := &page{rel: rel, obs: map[string]bool{}, rels: map[string]bool{}}
	if !exists {
		pg.fm = vault.NewFrontMatter()
		for _, kv := range [][2]string{{"concept", e.Name}, {"title", e.Name}, {"type", e.EntityType}, {"created", p.s.Now().UTC().Format(time.RFC3339)}} {
			if kv[1] == "" {
				continue
			}
			if err := pg.fm.Set(kv[0], kv[1]); err != nil {
				return nil, false, err
			}
		}
		pg.changed = true
		return pg, true, nil
	}
	note, err := vault.Parse(rel, old)
	if err != nil {
		return nil, false, inputError(noema.ECONFLICT, rec, "entity %q goes to %s, which noema cannot read (%s); fix or move that file", e.Name, rel, noema.ErrorMessage(err))
	}
	if note.Concept == "" || vault.Key(note.Concept) != key {
		return nil, false, inputError(noema.ECONFLICT, rec, "entity %q goes to %s, which holds another note (%q); rename the entity or move the note", e.Name, rel, note.Title)
	}
	pg.fm, pg.body = note.FrontMatter, note.Body
	obs, _ := Observations(note.Body)
	for _, o := range obs {
		pg.obs[o] = true
	}
	for _, r := range note.Relations {
		pg.rels[r.Type+"\x00"+vault.RelationRef(r.To)] = true
	}
	return pg, false, nil
}

// memoryRelation plans relation r as a link property of its source's page.
func (p *plan) memoryRelation(pages map[string]*page, r MemoryRelation) error {
	rec := fmt.Sprintf("line %d", r.Line)
	it := Item{Kind: KindRelation, Name: fmt.Sprintf("%s -[%s]-> %s", r.From, r.RelationType, r.To), Record: rec}
	typ, err := relations.CheckType(r.RelationType)
	if err != nil {
		p.refuse(it, noema.ErrorMessage(err))
		return nil
	}
	if typ == "type" {
		p.refuse(it, `the relation type "type" is where a page keeps its entity type`)
		return nil
	}
	if why := labelProblem(r.To); why != "" {
		p.refuse(it, "its target: "+why)
		return nil
	}
	pg := pages[vault.Key(r.From)]
	if pg == nil {
		p.refuse(it, fmt.Sprintf("%q is not an entity of the file", r.From))
		return nil
	}
	it.URI = noema.NoteURI(pg.rel)
	link := vault.LinkTo(strings.TrimSpace(r.To))
	id := typ + "\x00" + vault.RelationRef(link)
	if pg.rels[id] {
		p.skip(it, "the page declares it already")
		return nil
	}
	if err := pg.fm.AddRelation(typ, link, "", nil, nil); err != nil {
		if noema.ErrorCode(err) == noema.ECONFLICT {
			p.refuse(it, noema.ErrorMessage(err))
			return nil
		}
		return err
	}
	pg.rels[id] = true
	pg.changed = true
	p.created(it)
	return nil
}

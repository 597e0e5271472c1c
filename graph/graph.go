// Package graph answers read-only questions about the knowledge graph that
// noema's index holds: export it whole ([Export], [WriteJSON],
// [WriteGraphML]), look at one node ([GetNode]), page through the edges
// around it ([Neighbors]) and cut out the region around a few nodes
// ([Subgraph]). It never writes; every function runs in one read
// transaction, so it sees one consistent snapshot of the index.
//
// # Nodes
//
// A note's id is its URI, memory://<path-without-.md>; a concept's id is
// its concept id (c_…, or the id written in its page). Node kinds are
// [KindNote] and [KindConcept].
//
// # Edges
//
//   - mentions (kind [KindMentions], type "mentions"): note → concept, weight
//     = how many times the note links the concept in any spelling. Id
//     "m:<note uri>-><concept id>".
//   - relations (kind [KindRelation]): the typed relations declared in front
//     matter, with their own id, type, weight (absent when not declared) and
//     metadata (canonical JSON object). A relation declared in a concept's
//     page starts at that concept; one declared in any other note starts at
//     the note. Its target is the concept that owns the referenced key (label
//     or alias) or the referenced note.
//
// A relation whose target names no concept or note is kept, flagged
// Dangling, with the target written as "concept:<key>" or as the missing
// note's memory:// URI: the declaration is in a file and the user should
// see it (and fix it) rather than lose it silently. No node is invented for
// it. Dangling edges appear in [Export]'s JSON, in [Neighbors] and in the
// degree counts of [GetNode]; [Subgraph] returns only edges between the
// nodes it returns, and GraphML (whose edges must end at declared nodes)
// leaves them out.
//
// # Determinism
//
// Everything here is derived from the files: no field records when the
// indexer ran, and every list has a total order (nodes by kind then id,
// edges by kind, source, type, target, id), so two exports of the same
// vault, even from independently rebuilt indexes, are byte-identical.
package graph

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/noema-mem/noema"
)

// Node kinds.
const (
	KindNote    = "note"
	KindConcept = "concept"
)

// Edge kinds. A mentions edge also has the type [TypeMentions].
const (
	KindMentions = "mentions"
	KindRelation = "relation"
	TypeMentions = "mentions"
)

// Graph is a set of nodes and the edges between them, in canonical order.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
	// Truncated reports that [Subgraph] stopped at [MaxSubgraphNodes].
	Truncated bool `json:"truncated,omitempty"`
}

// Node is a note or a concept. Fields that do not apply to its kind are
// left empty and omitted from JSON.
type Node struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
	// Aliases are the note's or the concept's alternative names (never nil
	// on a node read from the index).
	Aliases []string `json:"aliases,omitzero"`

	// Path is a note's vault-relative path (with .md).
	Path string `json:"path,omitempty"`
	// Tags are a note's tags (never nil on a note).
	Tags []string `json:"tags,omitzero"`
	// Created and Modified are a note's front-matter times, else the file's
	// modification time, in UTC.
	Created  time.Time `json:"created,omitzero"`
	Modified time.Time `json:"modified,omitzero"`
	// Checksum is the hash of the note's content.
	Checksum string `json:"checksum,omitempty"`

	// Key is a concept's normalized label.
	Key         string `json:"key,omitempty"`
	Description string `json:"description,omitempty"`
	// Metadata is a concept's metadata, a canonical JSON object.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Page is the memory:// URI of the concept's page, if it has one.
	Page string `json:"page,omitempty"`
	// CreatedAt and UpdatedAt are a concept's times in UTC (page front
	// matter, else the earliest and latest of the notes that mention it).
	CreatedAt time.Time `json:"created_at,omitzero"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`

	// Degree is set by [GetNode] only.
	Degree *Degree `json:"degree,omitempty"`
}

// Edge is a directed edge: a mention or a typed relation.
type Edge struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
	Target string `json:"target"`
	Type   string `json:"type"`
	// Weight is a mention's link count, or a relation's declared weight
	// (nil when the relation declares none).
	Weight *float64 `json:"weight,omitempty"`
	// Metadata is a relation's metadata, a canonical JSON object.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Dangling reports a relation whose target does not exist; Target is
	// then "concept:<key>" or the missing note's URI.
	Dangling bool `json:"dangling,omitempty"`
	// Position orders a note's mentions: the ordinal, among the note's
	// distinct link spellings, of its first link to the concept (0, and
	// omitted, for the first). The concept graph joins two concepts a
	// note mentions only when they are near in this order
	// (CooccurrenceWindow).
	Position int `json:"position,omitempty"`
}

// Degree counts the edges at a node by direction and kind. Mentions count
// edges (one per note–concept pair), not links; dangling relations count
// as out-edges of their source.
type Degree struct {
	In  DegreeCount `json:"in"`
	Out DegreeCount `json:"out"`
}

// DegreeCount is the number of edges of each kind in one direction.
type DegreeCount struct {
	Mentions  int `json:"mentions"`
	Relations int `json:"relations"`
}

// Index is the index the graph is read from; *sqlite.DB implements it.
type Index interface {
	// ReadGraph runs fn with a Reader on one consistent snapshot of the
	// index and returns fn's error.
	ReadGraph(ctx context.Context, fn func(r Reader) error) error
}

// Reader reads nodes and edges from one snapshot of the index. Lists come
// in no particular order; nodes and edges are built as documented in the
// package comment (ids, kinds, weights, dangling relations).
type Reader interface {
	// HasNote reports whether a note is indexed at the vault path.
	HasNote(ctx context.Context, path string) (bool, error)
	// HasConcept reports whether a concept has the id.
	HasConcept(ctx context.Context, id string) (bool, error)
	// Notes reads the note nodes at the vault paths (unknown paths are
	// skipped), or every note when paths is nil.
	Notes(ctx context.Context, paths []string) ([]Node, error)
	// Concepts reads the concept nodes with the ids (unknown ids are
	// skipped), or every concept when ids is nil.
	Concepts(ctx context.Context, ids []string) ([]Node, error)
	// AllMentions reads every mentions edge.
	AllMentions(ctx context.Context) ([]Edge, error)
	// Mentions reads the mentions edges from the notes at paths or to the
	// concepts, each once; with induced, only those from one of the notes
	// to one of the concepts.
	Mentions(ctx context.Context, paths, concepts []string, induced bool) ([]Edge, error)
	// AllRelations reads every relation edge, dangling ones included.
	AllRelations(ctx context.Context) ([]Edge, error)
	// Relations reads the relation edges declared by the notes at paths or
	// in the pages of the concepts and, unless declaredOnly, those
	// pointing at them (through any key of a concept), each once.
	Relations(ctx context.Context, paths, concepts []string, declaredOnly bool) ([]Edge, error)
}

// Export reads the whole graph: every note, every concept, every mentions
// edge and every relation (dangling ones included), in canonical order.
func Export(ctx context.Context, db Index) (*Graph, error) {
	g := &Graph{}
	err := db.ReadGraph(ctx, func(r Reader) error {
		var err error
		if g.Nodes, err = r.Notes(ctx, nil); err != nil {
			return err
		}
		concepts, err := r.Concepts(ctx, nil)
		if err != nil {
			return err
		}
		g.Nodes = append(g.Nodes, concepts...)
		if g.Edges, err = r.AllMentions(ctx); err != nil {
			return err
		}
		rels, err := r.AllRelations(ctx)
		if err != nil {
			return err
		}
		g.Edges = append(g.Edges, rels...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("export graph: %w", err)
	}
	sortNodes(g.Nodes)
	sortEdges(g.Edges)
	return g, nil
}

// WriteJSON writes g as {"nodes":[…],"edges":[…]} with one node or edge
// per line, so that diffs of two exports read line by line. The output is
// a pure function of g: the same graph always gives the same bytes. It
// streams; on an error, w may hold part of the document.
func WriteJSON(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	var item bytes.Buffer
	enc := json.NewEncoder(&item)
	enc.SetEscapeHTML(false)
	writeList := func(name string, n int, value func(i int) any) error {
		bw.WriteString(`"` + name + `":[`)
		for i := range n {
			if i > 0 {
				bw.WriteByte(',')
			}
			bw.WriteByte('\n')
			item.Reset()
			if err := enc.Encode(value(i)); err != nil {
				return fmt.Errorf("encode %s: %w", name, err)
			}
			bw.Write(bytes.TrimSuffix(item.Bytes(), []byte("\n")))
		}
		if n > 0 {
			bw.WriteByte('\n')
		}
		bw.WriteByte(']')
		return nil
	}
	bw.WriteByte('{')
	if err := writeList("nodes", len(g.Nodes), func(i int) any { return &g.Nodes[i] }); err != nil {
		return err
	}
	bw.WriteByte(',')
	if err := writeList("edges", len(g.Edges), func(i int) any { return &g.Edges[i] }); err != nil {
		return err
	}
	if g.Truncated {
		bw.WriteString(`,"truncated":true`)
	}
	bw.WriteString("}\n")
	// bufio keeps the first write error for Flush.
	return bw.Flush()
}

// NoteURI returns the id of the note at a vault path.
func NoteURI(path string) string {
	return noema.URIScheme + strings.TrimSuffix(path, ".md")
}

// isNoteID reports whether id names a note (a memory:// URI).
func isNoteID(id string) bool {
	return len(id) >= len(noema.URIScheme) && strings.EqualFold(id[:len(noema.URIScheme)], noema.URIScheme)
}

// notePath returns the vault path of a canonical note id.
func notePath(id string) string {
	return id[len(noema.URIScheme):] + ".md"
}

func kindRank(kind string) int {
	switch kind {
	case KindConcept:
		return 0
	case KindNote:
		return 1
	}
	return 2
}

func sortNodes(nodes []Node) {
	slices.SortFunc(nodes, func(a, b Node) int {
		if c := kindRank(a.Kind) - kindRank(b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

func compareEdges(a, b *Edge) int {
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	if c := strings.Compare(a.Type, b.Type); c != 0 {
		return c
	}
	if c := strings.Compare(a.Target, b.Target); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func sortEdges(edges []Edge) {
	slices.SortFunc(edges, func(a, b Edge) int { return compareEdges(&a, &b) })
}

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
// [noema.NodeNote] and [noema.NodeConcept].
//
// # Edges
//
//   - mentions (kind [noema.EdgeMentions], type "mentions"): note → concept, weight
//     = how many times the note links the concept in any spelling. Id
//     "m:<note uri>-><concept id>".
//   - relations (kind [noema.EdgeRelation]): the typed relations declared in front
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

	"github.com/noema-mem/noema"
)

// Graph is a set of nodes and the edges between them, in canonical order.
type Graph struct {
	Nodes []noema.GraphNode `json:"nodes"`
	Edges []noema.GraphEdge `json:"edges"`
	// Truncated reports that [Subgraph] stopped at [MaxSubgraphNodes].
	Truncated bool `json:"truncated,omitempty"`
}

// Export reads the whole graph: every note, every concept, every mentions
// edge and every relation (dangling ones included), in canonical order.
func Export(ctx context.Context, db noema.GraphIndex) (*Graph, error) {
	g := &Graph{}
	err := db.ReadGraph(ctx, func(r noema.GraphReader) error {
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
	case noema.NodeConcept:
		return 0
	case noema.NodeNote:
		return 1
	}
	return 2
}

func sortNodes(nodes []noema.GraphNode) {
	slices.SortFunc(nodes, func(a, b noema.GraphNode) int {
		if c := kindRank(a.Kind) - kindRank(b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

func compareEdges(a, b *noema.GraphEdge) int {
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

func sortEdges(edges []noema.GraphEdge) {
	slices.SortFunc(edges, func(a, b noema.GraphEdge) int { return compareEdges(&a, &b) })
}

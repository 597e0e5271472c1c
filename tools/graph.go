package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/relations"
	"github.com/noema-mem/noema/vault"
)

// RelationRef names a relation.
type RelationRef struct {
	ID string `json:"id" jsonschema:"the relation id" cli:"arg=ID"`
}

// NodeRef names a node.
type NodeRef struct {
	ID string `json:"id" jsonschema:"a concept (id c_…, label or alias) or a note (memory:// URI, vault path, title or alias)" cli:"arg=ID"`
}

// NeighborsInput pages the edges around a node.
type NeighborsInput struct {
	ID        string `json:"id" jsonschema:"a concept (id c_…, label or alias) or a note (memory:// URI, vault path, title or alias)" cli:"arg=ID"`
	Direction string `json:"direction,omitempty" jsonschema:"out, in or both (default both)" default:"\"both\"" enum:"out,in,both"`
	Type      string `json:"type,omitempty" jsonschema:"only edges of this type (mentions, or a relation type)"`
	Offset    int    `json:"offset,omitempty" jsonschema:"paging offset (default 0)" default:"0" minimum:"0"`
	Limit     int    `json:"limit,omitempty" jsonschema:"page size (default 50, max 500)" default:"50" minimum:"0" maximum:"500"`
}

// SubgraphInput expands around seed nodes.
type SubgraphInput struct {
	IDs   []string `json:"ids" jsonschema:"seed nodes: concepts (id, label or alias) or notes (memory:// URI, vault path, title or alias)" cli:"arg=ID"`
	Depth int      `json:"depth,omitempty" jsonschema:"hops to expand, both directions (default 1, max 5)" default:"1" minimum:"0" maximum:"5"`
	Type  string   `json:"type,omitempty" jsonschema:"only follow edges of this type"`
}

// ExportInput chooses the export format.
type ExportInput struct {
	Format string `json:"format,omitempty" jsonschema:"json (default) or graphml" default:"\"json\"" enum:"json,graphml"`
}

// ExportOutput is the exported graph. For format json the graph itself is
// the structured result (nodes and edges, as the JSON export holds them);
// for graphml the GraphML document is data. The text rendering is the
// export as serialized, byte for byte, in either format.
type ExportOutput struct {
	Format    string `json:"format" jsonschema:"json or graphml"`
	NodeCount int    `json:"node_count"`
	EdgeCount int    `json:"edge_count"`
	// Nodes and Edges are the graph (format json; never null then).
	Nodes []graph.Node `json:"nodes,omitzero" jsonschema:"the graph's notes and concepts (format json)"`
	Edges []graph.Edge `json:"edges,omitzero" jsonschema:"mentions and relations (format json)"`
	// Data is the GraphML document (format graphml).
	Data string `json:"data,omitempty" jsonschema:"the GraphML document (format graphml)"`

	raw string // the serialized export, in either format
}

// Serialized is the export as written: the JSON document {nodes, edges} or
// the GraphML document. The same vault serializes to the same bytes.
func (o *ExportOutput) Serialized() string { return o.raw }

func relationTools() []*Tool {
	return []*Tool{
		New(Def{
			Name: "create_relation", Command: "relation create", Toolset: "graph", Title: "Create a relation", Hints: additive,
			Description: "Add a typed, directed relation between concepts and/or notes (from, type, to, optional weight and metadata). " +
				"It is written into the source's file: a note's front matter, or the concept's page (created if needed). The same (from, type, to) twice is a conflict.",
		}, calls(onRelations, (*relations.Service).Create), textRelation),

		New(Def{
			Command: "relation show", Title: "Show a relation", Hints: readOnly,
			Description: "A relation by id: its ends, type, weight and metadata.",
		}, func(ctx context.Context, e *Env, in RelationRef) (*relations.Relation, error) {
			return e.App.Relations.Get(ctx, in.ID)
		}, textRelation),

		New(Def{
			Name: "update_relation", Command: "relation update", Toolset: "graph", Title: "Update a relation", Hints: destructiveRepeats,
			Description: "Change a relation's type, weight or metadata (merged key by key; metadata_conflict on a different value). The id stays.",
		}, calls(onRelations, (*relations.Service).Update), textRelation),

		New(Def{
			Name: "delete_relation", Command: "relation delete", Toolset: "graph", Title: "Delete a relation", Hints: destructiveRepeats,
			Description: "Remove a relation from its source's file.",
		}, func(ctx context.Context, e *Env, in RelationRef) (*relations.Relation, error) {
			return e.App.Relations.Delete(ctx, in.ID)
		}, func(w io.Writer, o *relations.Relation) {
			fmt.Fprint(w, "deleted ")
			textRelation(w, o)
		}),
	}
}

func textRelation(w io.Writer, r *relations.Relation) {
	fmt.Fprintf(w, "%s: %s -[%s]-> %s", r.ID, named(r.FromLabel, r.From), r.Type, named(r.ToLabel, r.To))
	if r.Dangling {
		fmt.Fprint(w, " (dangling: no such concept or note)")
	}
	if r.Weight != nil {
		fmt.Fprintf(w, " (weight %s)", number(*r.Weight))
	}
	fmt.Fprintln(w)
}

// named shows a node by its label, with its id in brackets: "Mutex
// [c_…]"; a note's id (its memory:// URI) already reads as its path, so a
// note shows as its URI alone when its title is the file's name. Without a
// label, the id alone.
func named(label, id string) string {
	switch {
	case label == "":
		return id
	case strings.HasPrefix(id, noema.URIScheme) && strings.HasSuffix(id, "/"+label) || id == noema.URIScheme+label:
		return id
	}
	return label + " [" + id + "]"
}

// number prints a float rounded to at most 4 decimals, without trailing
// zeros: 0.30000000000000004 prints 0.3, 60.00000000000001 prints 60.
func number(x float64) string {
	return strconv.FormatFloat(math.Round(x*1e4)/1e4, 'f', -1, 64)
}

func graphTools() []*Tool {
	return []*Tool{
		New(Def{
			Name: "get_node", Command: "graph node", Toolset: "graph", Title: "Get a node", Hints: readOnly,
			Description: "A concept (by id, label or alias) or a note (by memory:// URI, path, title or alias) as a graph node, with its in/out degree of mentions and relations.",
		}, func(ctx context.Context, e *Env, in NodeRef) (*graph.Node, error) {
			id, err := nodeID(ctx, e, in.ID)
			if err != nil {
				return nil, err
			}
			return graph.GetNode(ctx, e.App.DB, id)
		}, func(w io.Writer, n *graph.Node) {
			fmt.Fprintf(w, "%s %s (%s)", n.Kind, n.Label, n.ID)
			if d := n.Degree; d != nil {
				fmt.Fprintf(w, ": out %d mentions, %d relations; in %d mentions, %d relations", d.Out.Mentions, d.Out.Relations, d.In.Mentions, d.In.Relations)
			}
			fmt.Fprintln(w)
		}),

		New(Def{
			Name: "neighbors", Command: "graph neighbors", Toolset: "graph", Title: "Neighbours of a node", Hints: readOnly,
			Description: "Edges around a node with the node at the other end: typed relations first, then mentions (note → concept). Filter by direction and type; paged with total and has_more.",
		}, func(ctx context.Context, e *Env, in NeighborsInput) (*graph.NeighborPage, error) {
			id, err := nodeID(ctx, e, in.ID)
			if err != nil {
				return nil, err
			}
			return graph.Neighbors(ctx, e.App.DB, id, graph.NeighborOptions{Direction: in.Direction, Type: in.Type, Offset: in.Offset, Limit: in.Limit})
		}, func(w io.Writer, p *graph.NeighborPage) {
			fmt.Fprintf(w, "%d of %d edges around %s\n", len(p.Neighbors), p.Total, p.Node.Label)
			for _, n := range p.Neighbors {
				other := n.Edge.Target
				if n.Node != nil {
					other = n.Node.Label + " (" + n.Node.ID + ")"
				}
				fmt.Fprintf(w, "- %s %s %s\n", n.Direction, n.Edge.Type, other)
			}
		}),

		New(Def{
			Name: "subgraph", Command: "graph subgraph", Toolset: "graph", Title: "Subgraph around nodes", Hints: readOnly,
			Description: "Breadth-first expansion from seed nodes over edges in both directions (depth default 1, max 5; at most 2,000 nodes, then truncated is set).",
		}, func(ctx context.Context, e *Env, in SubgraphInput) (*graph.Graph, error) {
			ids := make([]string, len(in.IDs))
			for i, ref := range in.IDs {
				id, err := nodeID(ctx, e, ref)
				if err != nil {
					return nil, err
				}
				ids[i] = id
			}
			return graph.Subgraph(ctx, e.App.DB, ids, in.Depth, in.Type)
		}, func(w io.Writer, g *graph.Graph) {
			fmt.Fprintf(w, "%d nodes, %d edges", len(g.Nodes), len(g.Edges))
			if g.Truncated {
				fmt.Fprint(w, " (truncated)")
			}
			fmt.Fprintln(w)
		}),

		New(Def{
			Name: "export_graph", Command: "graph export", Toolset: "graph", Title: "Export the graph", Hints: readOnly,
			Description: "The whole graph — notes, concepts, relations and mentions edges — as JSON {nodes, edges} (the structured result) or GraphML (opens in Gephi, Cytoscape, networkx; the document is data). Deterministic: the same vault exports the same bytes. Also the resource noema://graph/export{?format}.",
		}, func(ctx context.Context, e *Env, in ExportInput) (*ExportOutput, error) {
			return ExportGraph(ctx, e, in.Format)
		}, func(w io.Writer, o *ExportOutput) {
			io.WriteString(w, o.raw) // the export itself, ready to redirect to a file
		}),
	}
}

// nodeID turns what a user calls a node into its graph id (a concept id or
// a note's memory:// URI). A memory:// URI names a note (its path as is or
// percent-encoded). Anything else is first a concept — its id, label or
// alias, as find_concepts would spell it — and then a note: its vault path,
// title or alias. So a concept wins over a note of the same name; pass the
// note's URI to mean the note.
func nodeID(ctx context.Context, e *Env, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", noema.Errorf(noema.EINVALID, "empty node: want a concept id, label or alias, or a note's URI, path or title")
	}
	if !strings.HasPrefix(ref, noema.URIScheme) {
		c, err := e.App.Concepts.Get(ctx, ref)
		if err == nil {
			return c.ID, nil
		}
		if noema.ErrorCode(err) != noema.ENOTFOUND {
			return "", err
		}
	}
	path, err := ResolveNote(ctx, e, ref)
	if err != nil {
		if noema.ErrorCode(err) == noema.ENOTFOUND && !strings.HasPrefix(ref, noema.URIScheme) {
			msg := fmt.Sprintf("no concept or note %q (want a concept id, label or alias, or a note's URI, path or title; try find_concepts)", ref)
			var ne *noema.Error
			if _, closest, ok := strings.Cut(noema.ErrorMessage(err), "; closest titles: "); ok && errors.As(err, &ne) {
				return "", &noema.Error{Code: noema.ENOTFOUND, Message: msg + "; closest note titles: " + closest, Details: ne.Details}
			}
			return "", noema.Errorf(noema.ENOTFOUND, "%s", msg)
		}
		return "", err
	}
	return vault.PathToURI(path), nil
}

// ExportGraph serializes the whole graph as format: "json" (the default when
// empty) or "graphml".
func ExportGraph(ctx context.Context, e *Env, format string) (*ExportOutput, error) {
	if format == "" {
		format = "json"
	}
	if format != "json" && format != "graphml" {
		return nil, noema.Errorf(noema.EINVALID, "format must be json or graphml").WithParam("format")
	}
	g, err := graph.Export(ctx, e.App.DB)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if format == "json" {
		err = graph.WriteJSON(&buf, g)
	} else {
		err = graph.WriteGraphML(&buf, g)
	}
	if err != nil {
		return nil, fmt.Errorf("write %s export: %w", format, err)
	}
	out := &ExportOutput{Format: format, NodeCount: len(g.Nodes), EdgeCount: len(g.Edges), raw: buf.String()}
	if format == "json" {
		out.Nodes, out.Edges = g.Nodes, g.Edges
		if out.Nodes == nil {
			out.Nodes = []graph.Node{}
		}
		if out.Edges == nil {
			out.Edges = []graph.Edge{}
		}
	} else {
		out.Data = out.raw
	}
	return out, nil
}

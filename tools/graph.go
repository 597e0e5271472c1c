package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/importer"
	"github.com/noema-mem/noema/relations"
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
	Paging
}

// SubgraphInput expands around seed nodes.
type SubgraphInput struct {
	IDs   []string `json:"ids" jsonschema:"seed nodes: concepts (id, label or alias) or notes (memory:// URI, vault path, title or alias)" cli:"arg=ID"`
	Depth int      `json:"depth,omitempty" jsonschema:"hops to expand, both directions (default 1, max 5)" default:"1" minimum:"0" maximum:"5"`
	Type  string   `json:"type,omitempty" jsonschema:"only follow edges of this type"`
	Paging
}

// ExportInput chooses the export format and its budget.
type ExportInput struct {
	Format    string `json:"format,omitempty" jsonschema:"json (default), graphml, or memory-jsonl (the MCP memory server's file: entities with observations, relations)" default:"\"json\"" enum:"json,graphml,memory-jsonl"`
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"the most tokens this answer may take, text and structured result together (estimated, above cl100k/o200k counts); json pages nodes then edges, and graphml above it is too_large (default 4000, 1000-100000; the command line exports the whole graph unless given)" default:"4000" minimum:"1000" maximum:"100000" cli:"default=0"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous answer: its next page of nodes and edges (format json; refused once the graph has changed)" maxLength:"200"`
}

// ExportOutput is the exported graph, or one page of it. For format json
// the graph itself is the structured result (nodes and edges, as the JSON
// export holds them); for graphml the GraphML document is data. The text
// rendering is the export (or page) as serialized, byte for byte, in
// either format, followed by the budget's line when the budget cut it.
type ExportOutput struct {
	Format string `json:"format" jsonschema:"json, graphml or memory-jsonl"`
	// NodeCount and EdgeCount are the whole graph's, whatever the page.
	NodeCount int `json:"node_count" jsonschema:"nodes in the whole graph"`
	EdgeCount int `json:"edge_count" jsonschema:"edges in the whole graph"`
	// Nodes and Edges are the graph (format json; never null then).
	Nodes []noema.GraphNode `json:"nodes,omitzero" jsonschema:"the graph's notes and concepts (format json)"`
	Edges []noema.GraphEdge `json:"edges,omitzero" jsonschema:"mentions and relations (format json)"`
	// Data is the GraphML document (format graphml) or the JSON Lines
	// file (format memory-jsonl).
	Data string `json:"data,omitempty" jsonschema:"the GraphML document (format graphml) or the memory server's JSON Lines (format memory-jsonl)"`
	Budget
}

// Serialized is the export (or page) as written: the JSON document {nodes,
// edges} or the GraphML document. The same vault serializes to the same
// bytes.
func (o *ExportOutput) Serialized() string {
	var b strings.Builder
	o.serialize(&b)
	return b.String()
}

func (o *ExportOutput) serialize(w io.Writer) {
	if o.Format != "json" {
		io.WriteString(w, o.Data)
		return
	}
	if err := graph.WriteJSON(w, &graph.Graph{Nodes: o.Nodes, Edges: o.Edges}); err != nil {
		fmt.Fprintf(w, "error: %v", err) // a strings.Builder does not fail
	}
}

func textExport(w io.Writer, o *ExportOutput) {
	o.serialize(w) // the export itself, ready to redirect to a file
	if o.cut() {
		fmt.Fprintln(w)
		o.Budget.text(w)
	}
}

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
		}, func(ctx context.Context, e *Env, in NodeRef) (*noema.GraphNode, error) {
			id, err := nodeID(ctx, e, in.ID)
			if err != nil {
				return nil, err
			}
			return graph.GetNode(ctx, e.App.GraphIndex, id)
		}, func(w io.Writer, n *noema.GraphNode) {
			fmt.Fprintf(w, "%s %s (%s)", n.Kind, n.Label, n.ID)
			if d := n.Degree; d != nil {
				fmt.Fprintf(w, ": out %d mentions, %d relations; in %d mentions, %d relations", d.Out.Mentions, d.Out.Relations, d.In.Mentions, d.In.Relations)
			}
			fmt.Fprintln(w)
		}),

		New(Def{
			Name: "neighbors", Command: "graph neighbors", Toolset: "graph", Title: "Neighbours of a node", Hints: readOnly,
			Description: "Edges around a node with the node at the other end: typed relations first, then mentions (note → concept). Filter by direction and type; paged with total and has_more.",
		}, Neighbors, textNeighbors),

		New(Def{
			Name: "subgraph", Command: "graph subgraph", Toolset: "graph", Title: "Subgraph around nodes", Hints: readOnly,
			Description: "Breadth-first expansion from seed nodes over edges in both directions (depth default 1, max 5; at most 2,000 nodes, then capped and truncated are set). " +
				"Keeps to max_tokens (default 4000): nodes, then edges, each whole; next_cursor pages on (refused once the graph changed).",
		}, Subgraph, textSubgraph),

		New(Def{
			Name: "export_graph", Command: "graph export", Toolset: "graph", Title: "Export the graph", Hints: readOnly,
			Description: "The whole graph — notes, concepts, relations and mentions edges — as JSON {nodes, edges} (the structured result), GraphML (opens in Gephi, Cytoscape, networkx) or memory-jsonl (the MCP memory server's file: entities with types and observations, relations); for those two the document is data. Deterministic: the same vault exports the same bytes. Also the resource noema://graph/export{?format}. " +
				"Keeps to max_tokens (default 4000): json pages nodes, then edges, with next_cursor (refused once the graph changed); GraphML and memory-jsonl are whole documents: above max_tokens they are too_large.",
		}, ExportGraph, textExport),
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
	return noema.NoteURI(path), nil
}

// ExportGraph serializes the graph as in.Format: "json" (the default when
// empty) or "graphml". With a budget (in.MaxTokens), the JSON export is
// paged — nodes first, then edges, each whole, from the cursor on — and
// its cursor holds a hash of the whole export, so that a cursor is refused
// once the graph has changed (a page of another graph would skip or repeat
// items); a GraphML document above the budget is too_large. Without one
// (0: the command line's default, and the noema://graph/export resource)
// the whole graph comes back.
func ExportGraph(ctx context.Context, e *Env, in ExportInput) (*ExportOutput, error) {
	format := in.Format
	if format == "" {
		format = "json"
	}
	if format != "json" && format != "graphml" && format != "memory-jsonl" {
		return nil, noema.Errorf(noema.EINVALID, "format must be json, graphml or memory-jsonl").WithParam("format")
	}
	budget, err := budgetOf(in.MaxTokens)
	if err != nil {
		return nil, err
	}
	if format != "json" && in.Cursor != "" {
		return nil, noema.Errorf(noema.EINVALID, "cursor pages the json export only: a %s document is not cut in pages", format).WithParam("cursor")
	}
	g, err := graph.Export(ctx, e.App.GraphIndex)
	if err != nil {
		return nil, err
	}
	out := &ExportOutput{Format: format, NodeCount: len(g.Nodes), EdgeCount: len(g.Edges), Budget: Budget{MaxTokens: budget}}
	if format != "json" {
		var buf bytes.Buffer
		if format == "graphml" {
			err = graph.WriteGraphML(&buf, g)
		} else {
			err = importer.WriteMemoryJSONL(&buf, g.Nodes, g.Edges, func(p string) ([]byte, error) {
				data, _, err := e.App.Vault.ReadFile(p)
				return data, err
			})
		}
		if err != nil {
			return nil, fmt.Errorf("write %s export: %w", format, err)
		}
		out.Data = buf.String()
		out.Tokens = answerTokens(out, textExport)
		if budget > 0 && out.Tokens > budget {
			return nil, noema.Errorf(noema.ETOOLARGE, "the %s export of %d nodes and %d edges is about %d tokens, above max_tokens %d: page the json export (format json, then cursor), or write the whole file from the command line: noema graph export --format %s > graph.%s",
				format, out.NodeCount, out.EdgeCount, out.Tokens, budget, format, map[string]string{"graphml": "graphml", "memory-jsonl": "jsonl"}[format]).WithParam("max_tokens")
		}
		return out, nil
	}
	out.Nodes, out.Edges = g.Nodes, g.Edges
	if out.Nodes == nil {
		out.Nodes = []noema.GraphNode{}
	}
	if out.Edges == nil {
		out.Edges = []noema.GraphEdge{}
	}
	var print string
	var offsets []int
	if budget > 0 {
		// The graph's own bytes, hashed as they stream: a cursor of a
		// changed graph is refused.
		h := sha256.New()
		if err := graph.WriteJSON(h, g); err != nil {
			return nil, fmt.Errorf("hash the export: %w", err)
		}
		print = hex.EncodeToString(h.Sum(nil)[:8])
		offsets, err = readCursor(in.Cursor, "export_graph", print, 2,
			"cursor was returned for another graph: notes, concepts or relations changed since, so its pages would skip or repeat items; leave cursor out to start over")
		if err != nil {
			return nil, err
		}
		out.Nodes, out.Edges = from(out.Nodes, offsets[0]), from(out.Edges, offsets[1])
	} else if in.Cursor != "" {
		return nil, noema.Errorf(noema.EINVALID, "cursor pages a budgeted export: pass max_tokens with it").WithParam("cursor")
	} else {
		offsets = []int{0, 0}
	}
	newCursor := func(o []int) string { return cursor{"export_graph", print, o}.String() }
	if err := fitSections(out, &out.Budget, textExport, offsets, newCursor, list("nodes", &out.Nodes, false), list("edges", &out.Edges, false)); err != nil {
		return nil, err
	}
	return out, nil
}

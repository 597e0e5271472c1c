package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
)

// NodeRef names a node.
type NodeRef struct {
	ID string `json:"id" jsonschema:"a concept id (c_…) or a note URI (memory://…)"`
}

// NeighborsInput pages the edges around a node.
type NeighborsInput struct {
	ID        string `json:"id" jsonschema:"a concept id (c_…) or a note URI (memory://…)"`
	Direction string `json:"direction,omitempty" jsonschema:"out, in or both (default both)" default:"\"both\""`
	Type      string `json:"type,omitempty" jsonschema:"only edges of this type (mentions, or a relation type)"`
	Offset    int    `json:"offset,omitempty" jsonschema:"paging offset (default 0)" default:"0"`
	Limit     int    `json:"limit,omitempty" jsonschema:"page size (default 50, max 500)" default:"50"`
}

// SubgraphInput expands around seed nodes.
type SubgraphInput struct {
	IDs   []string `json:"ids" jsonschema:"seed nodes: concept ids or note URIs"`
	Depth int      `json:"depth,omitempty" jsonschema:"hops to expand, both directions (default 1, max 5)" default:"1"`
	Type  string   `json:"type,omitempty" jsonschema:"only follow edges of this type"`
}

// ExportInput chooses the export format.
type ExportInput struct {
	Format string `json:"format,omitempty" jsonschema:"json (default) or graphml" default:"\"json\""`
}

// ExportOutput is a serialized graph.
type ExportOutput struct {
	Format string `json:"format"`
	Nodes  int    `json:"nodes"`
	Edges  int    `json:"edges"`
	// Data is the whole export: {nodes, edges} JSON, or a GraphML document.
	Data string `json:"data"`
}

func registerGraph(r *registry) {
	add(r, "graph", &mcp.Tool{
		Name:        "get_node",
		Title:       "Get a node",
		Description: "A concept (by id) or a note (by memory:// URI) as a graph node, with its in/out degree of mentions and relations.",
	}, readOnly, func(ctx context.Context, _ *mcp.CallToolRequest, in NodeRef) (*graph.Node, error) {
		return graph.GetNode(ctx, r.app.DB, in.ID)
	}, func(n *graph.Node) string {
		s := fmt.Sprintf("%s %s (%s)", n.Kind, n.Label, n.ID)
		if d := n.Degree; d != nil {
			s += fmt.Sprintf(": out %d mentions, %d relations; in %d mentions, %d relations", d.Out.Mentions, d.Out.Relations, d.In.Mentions, d.In.Relations)
		}
		return s
	})

	add(r, "graph", &mcp.Tool{
		Name:        "neighbors",
		Title:       "Neighbours of a node",
		Description: "Edges around a node with the node at the other end: typed relations first, then mentions (note → concept). Filter by direction and type; paged with total and has_more.",
	}, readOnly, func(ctx context.Context, _ *mcp.CallToolRequest, in NeighborsInput) (*graph.NeighborPage, error) {
		return graph.Neighbors(ctx, r.app.DB, in.ID, graph.NeighborOptions{Direction: in.Direction, Type: in.Type, Offset: in.Offset, Limit: in.Limit})
	}, func(p *graph.NeighborPage) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%d of %d edges around %s\n", len(p.Neighbors), p.Total, p.Node.Label)
		for _, n := range p.Neighbors {
			other := n.Edge.Target
			if n.Node != nil {
				other = n.Node.Label + " (" + n.Node.ID + ")"
			}
			fmt.Fprintf(&b, "- %s %s %s\n", n.Direction, n.Edge.Type, other)
		}
		return b.String()
	})

	add(r, "graph", &mcp.Tool{
		Name:        "subgraph",
		Title:       "Subgraph around nodes",
		Description: "Breadth-first expansion from seed nodes over edges in both directions (depth default 1, max 5; at most 2,000 nodes, then truncated is set).",
	}, readOnly, func(ctx context.Context, _ *mcp.CallToolRequest, in SubgraphInput) (*graph.Graph, error) {
		return graph.Subgraph(ctx, r.app.DB, in.IDs, in.Depth, in.Type)
	}, func(g *graph.Graph) string {
		s := fmt.Sprintf("%d nodes, %d edges", len(g.Nodes), len(g.Edges))
		if g.Truncated {
			s += " (truncated)"
		}
		return s
	})

	add(r, "graph", &mcp.Tool{
		Name:        "export_graph",
		Title:       "Export the graph",
		Description: "The whole graph — notes, concepts, relations and mentions edges — as JSON {nodes, edges} or GraphML (opens in Gephi, Cytoscape, networkx). Deterministic: the same vault exports the same bytes. Also the resource noema://graph/export{?format}.",
	}, readOnly, func(ctx context.Context, _ *mcp.CallToolRequest, in ExportInput) (*ExportOutput, error) {
		return exportGraph(ctx, r, in.Format)
	}, func(o *ExportOutput) string {
		return fmt.Sprintf("%s export: %d nodes, %d edges, %d bytes (in the structured result's data)", o.Format, o.Nodes, o.Edges, len(o.Data))
	})
}

func exportGraph(ctx context.Context, r *registry, format string) (*ExportOutput, error) {
	if format == "" {
		format = "json"
	}
	if format != "json" && format != "graphml" {
		return nil, noema.Errorf(noema.EINVALID, "format must be json or graphml")
	}
	g, err := graph.Export(ctx, r.app.DB)
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
	return &ExportOutput{Format: format, Nodes: len(g.Nodes), Edges: len(g.Edges), Data: buf.String()}, nil
}

// graphResource serves noema://graph/export{?format}.
func graphResource(r *registry) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u, err := url.Parse(req.Params.URI)
		if err != nil {
			return nil, fmt.Errorf("%s: bad resource uri: %v", noema.EINVALID, err)
		}
		out, err := exportGraph(ctx, r, u.Query().Get("format"))
		if err != nil {
			return nil, r.toolError("resources/read", err)
		}
		mime := "application/json"
		if out.Format == "graphml" {
			mime = "application/graphml+xml"
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: out.Data}}}, nil
	}
}

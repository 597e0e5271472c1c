package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
)

func registerResources(r *registry, s *mcp.Server, enabled map[string]bool) {
	if enabled["notes"] {
		s.AddResourceTemplate(&mcp.ResourceTemplate{
			Name:        "note",
			Title:       "A note",
			Description: "A Markdown note of the vault, by path without .md. Reading it counts as an access.",
			MIMEType:    "text/markdown",
			URITemplate: noema.URIScheme + "{+path}",
		}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			n, err := r.app.Notes.Read(ctx, req.Params.URI)
			if err != nil {
				if noema.ErrorCode(err) == noema.ENOTFOUND {
					return nil, mcp.ResourceNotFoundError(req.Params.URI)
				}
				return nil, r.toolError("resources/read", err)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
				URI: n.URI, MIMEType: "text/markdown", Text: n.Content,
			}}}, nil
		})
	}
	if enabled["concepts"] {
		h := conceptsResource(r)
		s.AddResource(&mcp.Resource{
			Name: "concepts", Title: "Concept vocabulary", MIMEType: "application/json", URI: "noema://concepts",
			Description: "Every concept, newest first (first page), as JSON; see the template for filters.",
		}, h)
		s.AddResourceTemplate(&mcp.ResourceTemplate{
			Name: "concepts-filtered", Title: "Concept vocabulary (filtered)", MIMEType: "application/json",
			URITemplate: "noema://concepts{?text,match,offset,limit}",
			Description: "Concepts whose label or alias matches text (match: contains, starts_with, ends_with), newest first, paged.",
		}, h)
	}
	if enabled["graph"] {
		h := graphResource(r)
		s.AddResource(&mcp.Resource{
			Name: "graph-export", Title: "Graph export (JSON)", MIMEType: "application/json", URI: "noema://graph/export",
			Description: "The whole graph as JSON {nodes, edges}.",
		}, h)
		s.AddResourceTemplate(&mcp.ResourceTemplate{
			Name: "graph-export-format", Title: "Graph export", URITemplate: "noema://graph/export{?format}",
			Description: "The whole graph as JSON (format=json) or GraphML (format=graphml).",
		}, h)
	}
	s.AddResource(&mcp.Resource{
		Name:        "status",
		Title:       "Index status",
		Description: "Counts, freshness and sync progress of the index, as JSON.",
		MIMEType:    "application/json",
		URI:         "noema://status",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		st, err := r.app.Status(ctx)
		if err != nil {
			return nil, r.toolError("resources/read", err)
		}
		b, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encode status: %w", err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: "application/json", Text: string(b),
		}}}, nil
	})
}

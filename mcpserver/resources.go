package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/tools"
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
		r.addResource(s, "noema://concepts", "{?text,match,offset,limit}", "concepts", "concepts-filtered", "Concept vocabulary",
			"Every concept, newest first (first page), as JSON; see the template for filters.",
			"Concepts whose label or alias matches text (match: contains, starts_with, ends_with), newest first, paged.",
			func(ctx context.Context, q url.Values) (any, string, error) {
				in := concepts.ListInput{Text: q.Get("text"), Match: q.Get("match")}
				for name, dst := range map[string]*int{"offset": &in.Offset, "limit": &in.Limit} {
					if v := q.Get(name); v != "" {
						n, err := strconv.Atoi(v)
						if err != nil {
							return nil, "", noema.Errorf(noema.EINVALID, "%s must be a number", name)
						}
						*dst = n
					}
				}
				res, err := r.app.Concepts.List(ctx, in)
				return res, "application/json", err
			})
	}
	if enabled["graph"] {
		r.addResource(s, "noema://graph/export", "{?format}", "graph-export", "graph-export-format", "Graph export",
			"The whole graph as JSON {nodes, edges}.",
			"The whole graph as JSON (format=json) or GraphML (format=graphml).",
			func(ctx context.Context, q url.Values) (any, string, error) {
				out, err := tools.ExportGraph(ctx, &tools.Env{App: r.app}, q.Get("format"))
				if err != nil {
					return nil, "", err
				}
				if out.Format == "graphml" {
					return out.Data, "application/graphml+xml", nil
				}
				return out.Data, "application/json", nil
			})
	}
	r.addResource(s, "noema://status", "", "status", "", "Index status",
		"Counts, freshness and sync progress of the index, as JSON.", "",
		func(ctx context.Context, _ url.Values) (any, string, error) {
			st, err := r.app.Status(ctx)
			return st, "application/json", err
		})
}

// addResource adds the resource uri (name) and, when query is not empty,
// the template uri+query (templateName) with the same handler. read returns the content — a
// string as is, anything else as indented JSON — and its MIME type.
func (r *registry) addResource(s *mcp.Server, uri, query, name, templateName, title, about, aboutTemplate string,
	read func(ctx context.Context, q url.Values) (any, string, error)) {
	h := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u, err := url.Parse(req.Params.URI)
		if err != nil {
			return nil, fmt.Errorf("%s: bad resource uri: %v", noema.EINVALID, err)
		}
		v, mime, err := read(ctx, u.Query())
		if err != nil {
			return nil, r.toolError("resources/read", err)
		}
		text, ok := v.(string)
		if !ok {
			b, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return nil, fmt.Errorf("encode %s: %w", name, err)
			}
			text = string(b)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: text}}}, nil
	}
	s.AddResource(&mcp.Resource{Name: name, Title: title, Description: about, MIMEType: "application/json", URI: uri}, h)
	if query != "" {
		s.AddResourceTemplate(&mcp.ResourceTemplate{Name: templateName, Title: title, Description: aboutTemplate, URITemplate: uri + query}, h)
	}
}

package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/tools"
)

// vaultQueryHelp tells how a resource of another vault is named.
const vaultQueryHelp = "On a server of several vaults, add the query parameter vault=NAME for another vault than the default (memory://Note?vault=work)."

func registerResources(r *registry, s *mcp.Server, enabled map[string]bool) {
	if enabled["notes"] {
		s.AddResourceTemplate(&mcp.ResourceTemplate{
			Name:        "note",
			Title:       "A note",
			Description: "A Markdown note of the vault, by path without .md (spaces as is or percent-encoded). Reading it counts as an access. " + vaultQueryHelp,
			MIMEType:    "text/markdown",
			URITemplate: noema.URIScheme + "{+path}",
		}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			n, err := tools.ReadNote(ctx, &tools.Env{App: r.appOf(ctx)}, req.Params.URI)
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
			"Every concept, newest first (first page), as JSON; see the template for filters. "+vaultQueryHelp,
			"Concepts whose label or alias matches text (match: contains, starts_with, ends_with), newest first, paged. "+vaultQueryHelp,
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
				res, err := r.appOf(ctx).Concepts.List(ctx, in)
				return res, "application/json", err
			})
	}
	if enabled["graph"] {
		r.addResource(s, "noema://graph/export", "{?format}", "graph-export", "graph-export-format", "Graph export",
			"The whole graph as JSON {nodes, edges}. "+vaultQueryHelp,
			"The whole graph as JSON (format=json), GraphML (format=graphml) or the MCP memory server's JSON Lines (format=memory-jsonl). "+vaultQueryHelp,
			func(ctx context.Context, q url.Values) (any, string, error) {
				out, err := tools.ExportGraph(ctx, &tools.Env{App: r.appOf(ctx)}, tools.ExportInput{Format: q.Get("format")})
				if err != nil {
					return nil, "", err
				}
				switch out.Format {
				case "graphml":
					return out.Serialized(), "application/graphml+xml", nil
				case "memory-jsonl":
					return out.Serialized(), "application/jsonl", nil
				}
				return out.Serialized(), "application/json", nil
			})
	}
	r.addResource(s, "noema://status", "", "status", "", "Index status",
		"Counts, freshness and sync progress of the index, as JSON. "+vaultQueryHelp, "",
		func(ctx context.Context, _ url.Values) (any, string, error) {
			st, err := r.appOf(ctx).Status(ctx)
			return st, "application/json", err
		})
}

// spacedNoteURIs lets a client read a note whose path holds characters a
// URI may not (memory://A B/C, as users and models write it): the SDK
// matches a resources/read URI against the template memory://{+path}
// before any handler runs, and that match fails on a space. Those
// characters (and a '%' that starts no %XX) are percent-encoded first; the
// note resource decodes the path once (tools.ResolveNote), so
// memory://A B/C and memory://A%20B/C read the same note.
func spacedNoteURIs(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.ReadResourceRequest); ok && method == "resources/read" && r.Params != nil {
			uri := r.Params.URI
			if len(uri) > len(noema.URIScheme) && strings.EqualFold(uri[:len(noema.URIScheme)], noema.URIScheme) {
				r.Params.URI = uri[:len(noema.URIScheme)] + escapeTemplateValue(uri[len(noema.URIScheme):])
			}
		}
		return next(ctx, method, req)
	}
}

// codeResourceNotFound is the JSON-RPC code of a missing resource up to
// protocol 2025-11-25; from 2026-07-28 (SEP-2164) it is invalid params
// (-32602), which go-sdk v1.8.0 uses for every client.
const codeResourceNotFound = -32002

// resourceNotFoundCode gives a missing resource the code of the client's
// protocol revision: -32002 before 2026-07-28 (what those clients, and
// noema's own contract, expect), -32602 from it.
func resourceNotFoundCode(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := req.(*mcp.ReadResourceRequest); ok {
			notFoundCode(r, err)
		}
		return res, err
	}
}

// notFoundCode gives err, when it is the SDK's "Resource not found", the
// code of r's protocol revision.
func notFoundCode(r *mcp.ReadResourceRequest, err error) {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Message == "Resource not found" {
		if r.ProtocolVersion() >= statelessProtocol {
			wire.Code = jsonrpc.CodeInvalidParams
		} else {
			wire.Code = codeResourceNotFound
		}
	}
}

// statelessProtocol is the first revision of SEP-2575 and SEP-2164.
const statelessProtocol = "2026-07-28"

// escapeTemplateValue percent-encodes the bytes of s that a URI template's
// reserved expansion ({+var}, RFC 6570) does not match: everything but
// unreserved and reserved characters and %XX triplets.
func escapeTemplateValue(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(c)
		case c != '%' && c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
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

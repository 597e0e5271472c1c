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
)

// conceptsResource serves noema://concepts{?text,match,offset,limit}.
func conceptsResource(r *registry) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u, err := url.Parse(req.Params.URI)
		if err != nil {
			return nil, fmt.Errorf("%s: bad resource uri: %v", noema.EINVALID, err)
		}
		q := u.Query()
		in := concepts.ListInput{Text: q.Get("text"), Match: q.Get("match")}
		if v := q.Get("offset"); v != "" {
			if in.Offset, err = strconv.Atoi(v); err != nil {
				return nil, fmt.Errorf("%s: offset must be a number", noema.EINVALID)
			}
		}
		if v := q.Get("limit"); v != "" {
			if in.Limit, err = strconv.Atoi(v); err != nil {
				return nil, fmt.Errorf("%s: limit must be a number", noema.EINVALID)
			}
		}
		res, err := r.app.Concepts.List(ctx, in)
		if err != nil {
			return nil, r.toolError("resources/read", err)
		}
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encode concepts: %w", err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
	}
}

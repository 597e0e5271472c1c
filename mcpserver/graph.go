package mcpserver

import (
	"context"
	"fmt"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/tools"
)

// graphResource serves noema://graph/export{?format}.
func graphResource(r *registry) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u, err := url.Parse(req.Params.URI)
		if err != nil {
			return nil, fmt.Errorf("%s: bad resource uri: %v", noema.EINVALID, err)
		}
		out, err := tools.ExportGraph(ctx, &tools.Env{App: r.app}, u.Query().Get("format"))
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

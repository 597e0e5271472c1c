package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
)

// available runs app.Check before every tool call and resource read: a
// vault moved or deleted while serving answers unavailable naming its
// folder (a tool error; a JSON-RPC error for a resource) instead of
// internal errors from an index that is gone, and nothing is written at
// the old path; an index deleted with .noema/ is rebuilt first.
func (r *registry) available(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call", "resources/read":
		default:
			return next(ctx, method, req)
		}
		if err := r.appOf(ctx).Check(ctx); err != nil {
			if method == "resources/read" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: noema.ErrorCode(err) + ": " + noema.ErrorMessage(err)}
			}
			var name string
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
				name = p.Name
			}
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: r.toolError(name, err).Error()}}}, nil
		}
		return next(ctx, method, req)
	}
}

package mcpserver

import (
	"context"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/tools"
)

// checkArguments refuses a tools/call whose arguments do not fit the tool's
// input before the SDK validates them against the schema, with the
// command line's words: "invalid_argument: limit must be at most 100", not
// the SDK's "validating /properties/limit: maximum: 500/1 is greater than
// 100.000000". It checks what the schema states — the parameters known and
// required, each one's JSON type, enum, bounds and lengths (tools.Check) —
// so the SDK's own validation, still run after it, finds nothing more to
// say but in cases it does not foresee.
func checkArguments(list []*tools.Tool) mcp.Middleware {
	type input struct {
		typ      reflect.Type
		required []string
	}
	byName := map[string]input{}
	for _, t := range list {
		in := input{typ: t.In()}
		if schema, err := tools.InputSchema(t.In()); err == nil {
			in.required = schema.Required
		}
		byName[t.Name] = in
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil && method == "tools/call" {
				if in, ok := byName[p.Name]; ok {
					if _, msg := tools.ArgumentProblem(in.typ, in.required, p.Arguments); msg != "" {
						return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: noema.EINVALID + ": " + msg}}}, nil
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}

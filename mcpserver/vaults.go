package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/httpserver"
	"github.com/noema-mem/noema/tools"
)

// A server serves one or more vaults (NewVaults). Every tool call and
// resource read names its vault — a tool's vault parameter, a resource
// URI's vault query parameter (memory://Note?vault=work,
// noema://status?vault=work) — or uses the default: the first vault the
// caller may use. route picks it before anything else runs and hands it to
// the handler in the context (appOf).
//
// What the caller may use is its token's httpserver.Access (every vault,
// read and write, without a token or over stdio). A vault the token is not
// scoped to is not_found, in the very words of a vault that does not
// exist; list_vaults names only the token's vaults; a read-only token gets
// read_only from every tool that is not read-only, and tools/list shows it
// only the read-only tools.

// vaultKey is the context key of the vault a call runs on.
type vaultKey struct{}

// appOf returns the App of the vault route picked for this call.
func (r *registry) appOf(ctx context.Context) *app.App {
	if v, ok := ctx.Value(vaultKey{}).(*tools.Vault); ok {
		return v.App
	}
	return r.vaults[0].App
}

// accessOf returns what the request's token may do.
func accessOf(req mcp.Request) httpserver.Access {
	if extra := req.GetExtra(); extra != nil {
		return httpserver.AccessOf(extra.TokenInfo)
	}
	return httpserver.Access{}
}

// vaultInfos lists the vaults access may use.
func vaultInfos(vaults []tools.Vault, access httpserver.Access) []tools.VaultInfo {
	return tools.VaultInfos(vaults, access.Allows, access.ReadOnly)
}

// route picks the vault of every tool call and resource read (see above),
// refuses what the caller's token may not do, and hides from tools/list
// the tools a read-only token may not call.
func (r *registry) route(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		access := accessOf(req)
		switch method {
		case "tools/call":
			p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
			if !ok || p == nil {
				break
			}
			name, args, err := takeVaultArgument(p.Arguments)
			if err == nil {
				var v *tools.Vault
				if v, err = tools.PickVault(r.vaults, access.Allows, name); err == nil {
					if t := r.tools[p.Name]; t != nil && !t.Hints.ReadOnly && access.ReadOnly {
						err = noema.Errorf(noema.EREADONLY, "this token may only read: %s changes the vault", p.Name)
					}
					p.Arguments = args
					ctx = context.WithValue(ctx, vaultKey{}, v)
				}
			}
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: r.toolError(p.Name, err).Error()}}}, nil
			}
		case "resources/read":
			p, ok := req.GetParams().(*mcp.ReadResourceParams)
			if !ok || p == nil {
				break
			}
			asked := p.URI
			uri, name := takeVaultQuery(asked)
			v, err := tools.PickVault(r.vaults, access.Allows, name)
			if err != nil {
				// As a missing note is, in the code of the client's revision.
				err := mcp.ResourceNotFoundError(asked)
				if rr, ok := req.(*mcp.ReadResourceRequest); ok {
					notFoundCode(rr, err)
				}
				return nil, err
			}
			p.URI = uri
			res, err := next(context.WithValue(ctx, vaultKey{}, v), method, req)
			if rr, ok := res.(*mcp.ReadResourceResult); ok && err == nil && asked != uri {
				for _, c := range rr.Contents {
					if c != nil && c.URI == uri {
						c.URI = asked
					}
				}
			}
			return res, err
		case "tools/list":
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil && access.ReadOnly {
				lr.Tools = slices.DeleteFunc(slices.Clone(lr.Tools), func(t *mcp.Tool) bool {
					return t.Annotations == nil || !t.Annotations.ReadOnlyHint
				})
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// takeVaultArgument takes the vault parameter out of a call's arguments:
// it returns the vault named ("" when none) and the arguments without it.
// A vault that is no string is invalid_argument.
func takeVaultArgument(raw json.RawMessage) (string, json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || !bytes.Contains(raw, []byte(`"`+tools.VaultParam+`"`)) {
		return "", raw, nil
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", raw, nil // not an object: the SDK reports it
	}
	v, ok := args[tools.VaultParam]
	if !ok {
		return "", raw, nil
	}
	delete(args, tools.VaultParam)
	rest, err := json.Marshal(args)
	if err != nil {
		return "", raw, err
	}
	var name *string
	if err := json.Unmarshal(v, &name); err != nil {
		return "", raw, noema.Errorf(noema.EINVALID, "vault must be a string, the name of a vault (list_vaults names them)").WithParam(tools.VaultParam)
	}
	if name == nil {
		return "", rest, nil
	}
	return *name, rest, nil
}

// takeVaultQuery takes the vault query parameter out of a resource URI
// (memory://Note?vault=work, noema://concepts?text=x&vault=work) and
// returns the URI without it and the vault named ("" when none). The rest
// of the URI is kept byte for byte.
func takeVaultQuery(uri string) (string, string) {
	base, query, ok := strings.Cut(uri, "?")
	if !ok {
		return uri, ""
	}
	var kept []string
	name := ""
	for _, part := range strings.Split(query, "&") {
		if v, ok := strings.CutPrefix(part, tools.VaultParam+"="); ok {
			if u, err := url.QueryUnescape(v); err == nil {
				v = u
			}
			name = v
			continue
		}
		kept = append(kept, part)
	}
	if len(kept) == 0 {
		return base, name
	}
	return base + "?" + strings.Join(kept, "&"), name
}

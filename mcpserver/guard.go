package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// guard is the outermost receiving middleware of every server: no request,
// however malformed, may end a session.
//
// go-sdk v1.8.0 formats the data of its "Resource not found" error with %q
// (mcp.ResourceNotFoundError), which writes control characters and invalid
// UTF-8 as Go escapes (\x01, \a, \U000e0001) that are not JSON: the response
// then fails to encode and the SDK ends the session — `noema mcp` exits, an
// HTTP session dies. So guard
//
//   - refuses a resource URI holding invalid UTF-8 or a control character
//     (C0, DEL, C1) before any handler sees it, with an invalid-params error
//     that says what is wrong and where;
//   - and re-encodes the data of any JSON-RPC error that is not valid JSON
//     (a printable-but-unusual URI, say one with a tag character beyond the
//     BMP, still reaches the SDK's formatting when the resource does not
//     exist; and so would any future error built the same way).
//
// It also
//
//   - reads a tools/call whose arguments are JSON null (mcp-go sends that for
//     a tool called without arguments) as a call without arguments: go-sdk
//     v1.8.0 panics applying defaults to a null map;
//   - and turns a panic below it into an internal error, so that one bad
//     request never takes the process (and every session) down.
func guard(next mcp.MethodHandler) mcp.MethodHandler { return guarded(nil)(next) }

// guarded is guard, logging panics to log (nil: nowhere).
func guarded(log *slog.Logger) mcp.Middleware {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return guardHandler(next, log)
	}
}

func guardHandler(next mcp.MethodHandler, log *slog.Logger) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error handling %s", method)}
				log.Error("panic handling a request", "method", method, "panic", p, "stack", string(debug.Stack()))
			}
		}()
		if uri, ok := requestURI(req); ok {
			if err := checkURI(uri); err != nil {
				return nil, err
			}
		}
		if req != nil {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil && string(bytes.TrimSpace(p.Arguments)) == "null" {
				p.Arguments = nil
			}
		}
		res, err = next(ctx, method, req)
		if err != nil {
			err = sanitizeError(req, err)
		}
		return res, err
	}
}

// requestURI returns the resource URI a request names, if it names one.
func requestURI(req mcp.Request) (string, bool) {
	if req == nil {
		return "", false
	}
	switch p := req.GetParams().(type) {
	case *mcp.ReadResourceParams:
		if p != nil {
			return p.URI, true
		}
	case *mcp.SubscribeParams:
		if p != nil {
			return p.URI, true
		}
	case *mcp.UnsubscribeParams:
		if p != nil {
			return p.URI, true
		}
	}
	return "", false
}

// checkURI refuses a resource URI that is not valid UTF-8 or holds a
// control character, with a JSON-RPC invalid-params error. No note path can
// hold either, and RFC 3986 allows neither unescaped.
func checkURI(uri string) error {
	for i, r := range uri {
		switch {
		case r == utf8.RuneError && !validRuneAt(uri, i):
			return invalidURI(uri, fmt.Sprintf("invalid resource URI: not valid UTF-8 (byte 0x%02X at offset %d)", uri[i], i))
		case unicode.IsControl(r):
			return invalidURI(uri, fmt.Sprintf("invalid resource URI: control character U+%04X at offset %d (percent-encode it, or leave it out)", r, i))
		}
	}
	return nil
}

// validRuneAt reports whether the U+FFFD at byte i of s is really written
// there (and not the decoding of an invalid byte).
func validRuneAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 3
}

// invalidURI is the error of a refused URI. Its data repeats the URI as JSON
// (json.Marshal escapes what %q does not).
func invalidURI(uri, msg string) error {
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg, Data: data}
}

// sanitizeError returns err, or, when it is a JSON-RPC error whose data is
// not valid JSON, a copy with data that is (the request's URI, if it has
// one; else none).
func sanitizeError(req mcp.Request, err error) error {
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || len(wire.Data) == 0 || json.Valid(wire.Data) {
		return err
	}
	fixed := &jsonrpc.Error{Code: wire.Code, Message: wire.Message}
	if uri, ok := requestURI(req); ok {
		fixed.Data, _ = json.Marshal(map[string]string{"uri": uri})
	}
	return fixed
}

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

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
					if msg := argumentProblem(in.typ, in.required, p.Arguments); msg != "" {
						return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: noema.EINVALID + ": " + msg}}}, nil
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// argumentProblem says what is wrong with the arguments of a call to a tool
// whose input is typ ("" when nothing is, or when they are no JSON object,
// which the SDK reports).
func argumentProblem(typ reflect.Type, required []string, raw json.RawMessage) string {
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return ""
		}
	}
	fields := map[string]tools.Field{}
	var names []string
	for _, f := range tools.Fields(typ) {
		if f.JSON != "" {
			fields[f.JSON] = f
			names = append(names, f.JSON)
		}
	}
	var unknown []string
	for name := range args {
		if _, ok := fields[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Sprintf("unknown parameter %s (this tool takes %s)", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	for _, name := range names {
		f := fields[name]
		v, ok := args[name]
		if !ok {
			if slices.Contains(required, name) {
				return name + " is required"
			}
			continue
		}
		if string(bytes.TrimSpace(v)) == "null" {
			continue // the SDK says whether null is allowed
		}
		val := reflect.New(f.Type)
		if err := json.Unmarshal(v, val.Interface()); err != nil {
			return name + " " + typeProblem(f.Type, err)
		}
		if problem := tools.Check(f.StructField, val.Elem()); problem != "" {
			return name + " " + problem
		}
	}
	return ""
}

// typeProblem says why a JSON value does not decode into typ.
func typeProblem(typ reflect.Type, err error) string {
	want := jsonKind(typ)
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		base := typ
		for base.Kind() == reflect.Pointer {
			base = base.Elem()
		}
		if te.Type != nil && te.Type != base {
			// A list's item or an object's member.
			return fmt.Sprintf("must be %s, not one holding %s", want, article(te.Value))
		}
		return fmt.Sprintf("must be %s, not %s", want, article(te.Value))
	}
	return fmt.Sprintf("must be %s", want)
}

// jsonKind names the JSON form of typ, with its article.
func jsonKind(typ reflect.Type) string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(jsonKind(typ.Elem()), "a "), "an ") + "s"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a " + typ.String()
}

// article puts an article before a JSON kind as encoding/json names it
// ("string", "number 1.5", "array", "object", "bool").
func article(v string) string {
	switch {
	case v == "bool":
		return "true or false"
	case strings.HasPrefix(v, "number"):
		return "the " + v
	case strings.HasPrefix(v, "a") || strings.HasPrefix(v, "o"):
		return "an " + v
	}
	return "a " + v
}

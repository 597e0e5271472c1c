package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/noema-mem/noema"
)

// Decode returns the input of a call to t from its JSON arguments (an
// object; empty or null is no arguments) the way an MCP call's arrive at
// the handler: the arguments checked as the MCP server checks them
// (ArgumentProblem: invalid_argument naming the parameter, in the same
// words), then each parameter's default tag and the arguments over it. The
// value is of t's In type, ready for Run.
func (t *Tool) Decode(args json.RawMessage) (any, error) {
	raw := bytes.TrimSpace(args)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return nil, noema.Errorf(noema.EINVALID, "the arguments must be a JSON object")
	}
	schema, err := InputSchema(t.in)
	if err != nil {
		return nil, fmt.Errorf("tools: input schema of %s: %w", t.Label(), err)
	}
	if param, problem := ArgumentProblem(t.in, schema.Required, raw); problem != "" {
		return nil, noema.Errorf(noema.EINVALID, "%s", problem).WithParam(param)
	}
	ptr := reflect.New(t.in)
	for _, f := range Fields(t.in) {
		if def, ok := f.Tag.Lookup("default"); ok && f.JSON != "" {
			if err := json.Unmarshal([]byte(def), ptr.Elem().FieldByIndex(f.Index).Addr().Interface()); err != nil {
				return nil, fmt.Errorf("tools: default of %s.%s: %w", t.in, f.Name, err)
			}
		}
	}
	if err := json.Unmarshal(raw, ptr.Interface()); err != nil {
		return nil, noema.Errorf(noema.EINVALID, "the arguments must be a JSON object: %v", err)
	}
	return ptr.Elem().Interface(), nil
}

// Label is how a front end names the tool: its MCP name, else its command.
func (t *Tool) Label() string {
	if t.Name != "" {
		return t.Name
	}
	return t.Command
}

// Lookup returns the declaration a front end calls by name: the MCP tool
// of that name, or a command-line-only command by its words ("graph map"),
// and nil when there is none.
func Lookup(name string) *Tool {
	for _, t := range All() {
		if (t.Name != "" && t.Name == name) || (t.Name == "" && t.Command == name) {
			return t
		}
	}
	return nil
}

// ArgumentProblem says what is wrong with the arguments of a call to a
// tool whose input is typ and whose input schema requires required, in the
// words every front end uses ("limit must be at most 100"), and the
// parameter it is about; "" when nothing is, or when raw is no JSON object
// (which the caller reports). It checks what the schema states: the
// parameters known and required, each one's JSON type, enum, bounds and
// lengths (Check).
func ArgumentProblem(typ reflect.Type, required []string, raw json.RawMessage) (param, problem string) {
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return "", ""
		}
	}
	fields := map[string]Field{}
	var names []string
	for _, f := range Fields(typ) {
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
		// Every tool also takes vault (the front end routes it before the
		// arguments get here).
		return unknown[0], fmt.Sprintf("unknown parameter %s (this tool takes %s)", strings.Join(unknown, ", "), strings.Join(append(names, VaultParam), ", "))
	}
	for _, name := range names {
		f := fields[name]
		v, ok := args[name]
		if !ok {
			if slices.Contains(required, name) {
				return name, name + " is required"
			}
			continue
		}
		if string(bytes.TrimSpace(v)) == "null" {
			continue // the SDK says whether null is allowed
		}
		val := reflect.New(f.Type)
		if err := json.Unmarshal(v, val.Interface()); err != nil {
			return name, name + " " + typeProblem(f.Type, err)
		}
		if problem := Check(f.StructField, val.Elem()); problem != "" {
			return name, name + " " + problem
		}
	}
	return "", ""
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

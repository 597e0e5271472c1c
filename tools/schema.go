package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP returns t as an MCP tool definition: annotations from its hints, the
// input schema from its In type (with defaults, enums and bounds from the
// struct tags) and the output schema from its Out type.
func (t *Tool) MCP() (*mcp.Tool, error) {
	if t.Name == "" {
		return nil, fmt.Errorf("tools: %s is not an MCP tool", t.Command)
	}
	closed := false
	destructive := t.Hints.Destructive
	in, err := InputSchema(t.in)
	if err != nil {
		return nil, fmt.Errorf("tools: input schema of %s: %w", t.Name, err)
	}
	if _, taken := in.Properties[VaultParam]; taken {
		return nil, fmt.Errorf("tools: %s declares %s, which every tool takes", t.Name, VaultParam)
	}
	if in.Properties == nil {
		in.Properties = map[string]*jsonschema.Schema{}
	}
	in.Properties[VaultParam] = vaultSchema()
	out, err := outputSchema(t.out)
	if err != nil {
		return nil, fmt.Errorf("tools: output schema of %s: %w", t.Name, err)
	}
	return &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Title,
			ReadOnlyHint:    t.Hints.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  t.Hints.Idempotent,
			OpenWorldHint:   &closed,
		},
		InputSchema:  in,
		OutputSchema: out,
	}, nil
}

// InputSchema derives the JSON schema of an input struct: the SDK's
// inference, plus each field's default, enum and bounds from its tags, and
// required array fields that do not accept null.
func InputSchema(typ reflect.Type) (*jsonschema.Schema, error) {
	schema, err := jsonschema.ForType(typ, nil)
	if err != nil {
		return nil, err
	}
	for _, f := range Fields(typ) {
		if f.JSON == "" {
			continue
		}
		prop := schema.Properties[f.JSON]
		if prop == nil {
			return nil, fmt.Errorf("%s has no property", f.Name)
		}
		if def, ok := f.Tag.Lookup("default"); ok {
			if !json.Valid([]byte(def)) {
				return nil, fmt.Errorf("default of %s is not JSON: %s", f.Name, def)
			}
			prop.Default = json.RawMessage(def)
		}
		if enum, ok := f.Tag.Lookup("enum"); ok {
			for _, v := range strings.Split(enum, ",") {
				prop.Enum = append(prop.Enum, v)
			}
		}
		maxLength, maxItems := Bounds(f.StructField)
		switch {
		case maxItems > 0 && prop.Items != nil:
			prop.MaxItems = &maxItems
			if maxLength > 0 {
				prop.Items.MaxLength = &maxLength
			}
		case maxLength > 0:
			prop.MaxLength = &maxLength
		}
		for _, b := range []struct {
			tag string
			set **float64
		}{{"minimum", &prop.Minimum}, {"maximum", &prop.Maximum}} {
			if v, ok := f.Tag.Lookup(b.tag); ok {
				n, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return nil, fmt.Errorf("%s of %s: %w", b.tag, f.Name, err)
				}
				*b.set = &n
			}
		}
		if slices.Contains(schema.Required, f.JSON) && len(prop.Types) > 0 {
			// jsonschema-go lets a nil slice be null; a required list is a list.
			prop.Types = slices.DeleteFunc(slices.Clone(prop.Types), func(s string) bool { return s == "null" })
			if len(prop.Types) == 1 {
				prop.Type, prop.Types = prop.Types[0], nil
			}
		}
	}
	return schema, nil
}

// Bounds every string and list parameter has unless its field's tags say
// otherwise: maxLength:"N" (characters, of the string or of each string in
// the list; "none" for text bounded elsewhere, as a note's content is by
// max_note_bytes) and maxItems:"N". A longer input is invalid_argument
// before any handler runs, over MCP and on the command line alike.
const (
	DefaultMaxLength = 1000
	DefaultMaxItems  = 100
)

// Bounds returns the bounds of a parameter: the most characters of a
// string, or of each string of a list (0: none), and the most items of a
// list (0: not a list). An enum has no length bound of its own.
func Bounds(f reflect.StructField) (maxLength, maxItems int) {
	typ := f.Type
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() == reflect.Slice {
		maxItems = DefaultMaxItems
		if v, err := strconv.Atoi(f.Tag.Get("maxItems")); err == nil {
			maxItems = v
		}
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.String || f.Tag.Get("enum") != "" {
		return 0, maxItems // an enum bounds itself
	}
	switch v := f.Tag.Get("maxLength"); v {
	case "":
		maxLength = DefaultMaxLength
	case "none":
	default:
		maxLength, _ = strconv.Atoi(v)
	}
	return maxLength, maxItems
}

// Check returns what is wrong with v, the value of the parameter f, in the
// words both front ends put after the parameter's name ("must be at most
// 100"), or "" when nothing is: its enum, numeric bounds and Bounds.
func Check(f reflect.StructField, v reflect.Value) string {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	maxLength, maxItems := Bounds(f)
	switch v.Kind() {
	case reflect.String:
		if enum, ok := f.Tag.Lookup("enum"); ok && v.String() != "" {
			allowed := strings.Split(enum, ",")
			if !slices.Contains(allowed, v.String()) {
				return fmt.Sprintf("must be one of %s, not %q", strings.Join(allowed, ", "), v.String())
			}
		}
		if n := utf8.RuneCountInString(v.String()); maxLength > 0 && n > maxLength {
			return fmt.Sprintf("is %d characters; the limit is %d", n, maxLength)
		}
	case reflect.Slice:
		if maxItems > 0 && v.Len() > maxItems {
			return fmt.Sprintf("has %d items; the limit is %d", v.Len(), maxItems)
		}
		for i := range v.Len() {
			if e := v.Index(i); e.Kind() == reflect.String && maxLength > 0 {
				if n := utf8.RuneCountInString(e.String()); n > maxLength {
					return fmt.Sprintf("has an item of %d characters (item %d); the limit is %d", n, i+1, maxLength)
				}
			}
		}
	case reflect.Int, reflect.Int64, reflect.Float64:
		n := v.Convert(reflect.TypeFor[float64]()).Float()
		if s, ok := f.Tag.Lookup("minimum"); ok {
			if lo, _ := strconv.ParseFloat(s, 64); n < lo {
				return "must be at least " + s
			}
		}
		if s, ok := f.Tag.Lookup("maximum"); ok {
			if hi, _ := strconv.ParseFloat(s, 64); n > hi {
				return "must be at most " + s
			}
		}
	}
	return ""
}

func outputSchema(typ reflect.Type) (*jsonschema.Schema, error) {
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem() // results are objects, never null
	}
	return jsonschema.ForType(typ, &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Type: "object", Description: "a JSON object"},
	}})
}

// Field is an exported field of an input struct with its JSON name ("" when
// the field is not part of the JSON form: json:"-"). The fields of an
// embedded struct are the struct's own, as encoding/json sees them.
type Field struct {
	reflect.StructField
	// Index is the field's index sequence in the struct (reflect.Value.FieldByIndex).
	Index []int
	JSON  string
}

// Fields lists an input struct's exported fields, those of embedded
// structs in their place.
func Fields(typ reflect.Type) []Field {
	var out []Field
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			for _, inner := range Fields(f.Type) {
				inner.Index = append([]int{i}, inner.Index...)
				out = append(out, inner)
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			name = ""
		} else if name == "" {
			name = f.Name
		}
		out = append(out, Field{f, []int{i}, name})
	}
	return out
}

package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/noema-mem/noema/tools"
)

// param is one input field as the command line offers it: a flag or a
// positional argument, derived from the field's struct tags (see package
// tools for the tags).
type param struct {
	field    reflect.StructField
	value    reflect.Value // the field in the input being filled
	json     string        // the MCP parameter's name, "" when it has none
	flag     string        // the flag's name without dashes; "" for an argument
	arg      string        // the argument's name (REF, QUERY); "" for a flag
	variadic bool          // an argument that takes all the rest
	optional bool          // an argument that may be absent (cli:"arg=NAME,optional")
	stdin    bool          // read from standard input when the flag is absent
	negate   bool          // a *bool offered as --no-NAME, or as --INVERTNAME
	// invertName is the flag that sets a negated *bool to false, when it
	// is not no-NAME (cli:"invert=apply": --apply sets dry_run false).
	invertName string
	help       string
	// negatedHelp is what a negated flag does (its negated tag): the
	// parameter's description says what true does, the flag sets false.
	negatedHelp string
	set         bool // given on the command line
	// cliDefault is the command line's own default (cli:"default=JSON"),
	// when it differs from the MCP parameter's: it may lie outside the
	// parameter's bounds (graph export's max_tokens 0: the whole export).
	cliDefault string
}

// flagName is the flag's name without dashes.
func (p *param) flagName() string {
	switch {
	case p.invertName != "":
		return p.invertName
	case p.negate:
		return "no-" + p.flag
	}
	return p.flag
}

// name is how the command line spells p: --flag or ARG.
func (p *param) name() string {
	if p.arg != "" {
		return p.arg
	}
	return "--" + p.flagName()
}

// input is a command's input being filled from the command line.
type input struct {
	ptr    reflect.Value // *In
	params []*param
}

// newInput allocates an In value, applies every field's default tag, and
// describes its fields as flags and arguments.
func newInput(typ reflect.Type) (*input, error) {
	in := &input{ptr: reflect.New(typ)}
	st := in.ptr.Elem()
	for _, f := range tools.Fields(typ) {
		jsonName := f.JSON
		p := &param{field: f.StructField, value: st.FieldByIndex(f.Index), json: jsonName, help: f.Tag.Get("jsonschema")}
		cliTag, hasCLI := f.Tag.Lookup("cli")
		if cliTag == "-" || (jsonName == "" && !hasCLI) {
			continue
		}
		p.flag = strings.ReplaceAll(jsonName, "_", "-")
		for _, opt := range strings.Split(cliTag, ",") {
			key, val, _ := strings.Cut(opt, "=")
			switch key {
			case "":
			case "arg":
				p.flag, p.arg = "", val
				if p.arg == "" {
					p.arg = strings.ToUpper(jsonName)
				}
				p.variadic = f.Type.Kind() == reflect.Slice
			case "name":
				p.flag = val
			case "stdin":
				p.stdin = true
			case "default":
				p.cliDefault = val
			case "optional":
				p.optional = true
			case "negate", "invert":
				if f.Type != reflect.TypeFor[*bool]() {
					return nil, fmt.Errorf("cli: %s.%s: %s needs a *bool", typ, f.Name, key)
				}
				p.negate = true
				p.invertName = val
				p.negatedHelp = f.Tag.Get("negated")
				if p.negatedHelp == "" {
					return nil, fmt.Errorf("cli: %s.%s: %s needs a negated:\"…\" tag saying what the flag does", typ, f.Name, key)
				}
			default:
				return nil, fmt.Errorf("cli: %s.%s: unknown cli tag option %q", typ, f.Name, key)
			}
		}
		if p.flag == "" && p.arg == "" {
			return nil, fmt.Errorf("cli: %s.%s: no flag name", typ, f.Name)
		}
		if def, ok := f.Tag.Lookup("default"); ok || p.cliDefault != "" {
			if p.cliDefault != "" {
				def = p.cliDefault
			}
			if err := setJSON(p.value, def); err != nil {
				return nil, fmt.Errorf("cli: default of %s.%s: %w", typ, f.Name, err)
			}
		}
		in.params = append(in.params, p)
	}
	return in, nil
}

// setJSON decodes the JSON literal s into v; a time.Duration takes a
// duration string.
func setJSON(v reflect.Value, s string) error {
	if v.Type() == reflect.TypeFor[time.Duration]() {
		var str string
		if err := json.Unmarshal([]byte(s), &str); err != nil {
			return err
		}
		d, err := time.ParseDuration(str)
		if err != nil {
			return err
		}
		v.SetInt(int64(d))
		return nil
	}
	return json.Unmarshal([]byte(s), v.Addr().Interface())
}

// define adds the flags of in to fs.
func (in *input) define(fs *flag.FlagSet) {
	for _, p := range in.params {
		if p.arg != "" {
			continue
		}
		fs.Var(&flagValue{p}, p.flagName(), p.help)
	}
}

// args returns the positional parameters in order.
func (in *input) args() []*param {
	var out []*param
	for _, p := range in.params {
		if p.arg != "" {
			out = append(out, p)
		}
	}
	return out
}

// setArgs assigns positional arguments.
func (in *input) setArgs(pos []string) error {
	params := in.args()
	want := len(params)
	variadic := want > 0 && params[want-1].variadic
	need := want
	if want > 0 && params[want-1].optional {
		need--
	}
	if len(pos) < need || (!variadic && len(pos) > want) {
		var names []string
		for _, p := range params {
			names = append(names, p.arg+map[bool]string{true: "…"}[p.variadic])
		}
		if want == 0 {
			return usagef("takes no arguments, got %q", strings.Join(pos, " "))
		}
		return usagef("takes %s, got %d argument(s)", strings.Join(names, " "), len(pos))
	}
	for i, p := range params {
		if i >= len(pos) {
			break // an optional argument not given
		}
		p.set = true
		if p.variadic {
			p.value.Set(reflect.ValueOf(slices.Clone(pos[i:])))
			break
		}
		p.value.SetString(pos[i])
	}
	return nil
}

// validate checks enums, numeric bounds and lengths the way the MCP schema
// states them (tools.Check), naming the flag.
func (in *input) validate() error {
	for _, p := range in.params {
		if !p.set && p.cliDefault != "" {
			continue // the command line's own default, outside the MCP bounds
		}
		if problem := tools.Check(p.field, p.value); problem != "" {
			return usagef("%s %s", p.name(), problem)
		}
	}
	return nil
}

// missing returns the first flag the tool's input schema requires that was
// not given and has neither a default nor standard input to fall back on,
// or nil.
func (in *input) missing(typ reflect.Type) *param {
	schema, err := tools.InputSchema(typ)
	if err != nil {
		return nil // the MCP side reports a broken schema
	}
	for _, p := range in.params {
		if p.arg != "" || p.set || p.stdin || !slices.Contains(schema.Required, p.json) {
			continue
		}
		if _, ok := p.field.Tag.Lookup("default"); !ok {
			return p
		}
	}
	return nil
}

// stdinParam is the parameter read from standard input when its flag was
// not given, or nil.
func (in *input) stdinParam() *param {
	for _, p := range in.params {
		if p.stdin && !p.set {
			return p
		}
	}
	return nil
}

// flagName maps an MCP parameter name to how the command line spells it.
func (in *input) flagName(jsonName string) string {
	for _, p := range in.params {
		if p.json == jsonName {
			return p.name()
		}
	}
	return ""
}

// usage prints the flags of in, one per line.
func (in *input) usage(w io.Writer) {
	type line struct{ left, help string }
	var lines []line
	width := 0
	for _, p := range in.params {
		left := p.name()
		if p.arg == "" {
			if p.negate {
				left = "--" + p.flagName()
			} else if meta := metavar(p); meta != "" {
				left += " " + meta
			}
		}
		help := p.help
		if p.negate {
			// The flag sets the parameter to false: its own help, and no
			// default (given or not, that is all it does).
			lines = append(lines, line{left, p.negatedHelp})
			width = max(width, len(left))
			continue
		}
		if p.field.Type.Kind() == reflect.Slice && p.arg == "" {
			help += " (repeatable)"
		}
		if def, ok := p.field.Tag.Lookup("default"); ok && !strings.Contains(help, "default") && def != "false" && def != `""` {
			help += " (default " + strings.Trim(def, `"`) + ")"
		}
		if p.stdin {
			help += " (default: read standard input)"
		}
		lines = append(lines, line{left, help})
		width = max(width, len(left))
	}
	for _, l := range lines {
		fmt.Fprintf(w, "  %-*s  %s\n", width, l.left, l.help)
	}
}

// metavar is the placeholder shown after a flag that takes a value.
func metavar(p *param) string {
	t := p.field.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return "DURATION"
	case t.Kind() == reflect.Bool:
		return ""
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64 || t.Kind() == reflect.Float64:
		return "N"
	case t.Kind() == reflect.Map:
		return "JSON"
	case p.field.Tag.Get("enum") != "":
		return strings.ReplaceAll(p.field.Tag.Get("enum"), ",", "|")
	}
	return strings.ToUpper(p.flag[strings.LastIndex(p.flag, "-")+1:])
}

// flagValue sets one field from its flag.
type flagValue struct{ p *param }

func (f *flagValue) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return fmt.Sprint(f.p.value.Interface())
}

// IsBoolFlag lets --flag stand for --flag=true.
func (f *flagValue) IsBoolFlag() bool {
	t := f.p.field.Type
	return t.Kind() == reflect.Bool || t == reflect.TypeFor[*bool]()
}

func (f *flagValue) Set(s string) error {
	p, v := f.p, f.p.value
	first := !p.set
	p.set = true
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		e := reflect.New(t.Elem())
		if err := setScalar(e.Elem(), s); err != nil {
			return err
		}
		if p.negate {
			e.Elem().SetBool(!e.Elem().Bool())
		}
		v.Set(e)
		return nil
	}
	switch t.Kind() {
	case reflect.Slice:
		if first {
			v.Set(reflect.MakeSlice(t, 0, 1)) // a given list replaces the default
		}
		v.Set(reflect.Append(v, reflect.ValueOf(s)))
		return nil
	case reflect.Map:
		m := reflect.New(t)
		if err := json.Unmarshal([]byte(s), m.Interface()); err != nil || m.Elem().IsNil() {
			return errors.New("must be a JSON object")
		}
		v.Set(m.Elem())
		return nil
	}
	return setScalar(v, s)
}

func setScalar(v reflect.Value, s string) error {
	switch {
	case v.Type() == reflect.TypeFor[time.Duration]():
		d, err := time.ParseDuration(s)
		if err != nil {
			return errors.New("must be a duration such as 90s or 30m")
		}
		v.SetInt(int64(d))
	case v.Kind() == reflect.String:
		v.SetString(s)
	case v.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return errors.New("must be true or false")
		}
		v.SetBool(b)
	case v.Kind() == reflect.Int || v.Kind() == reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return errors.New("must be a whole number")
		}
		v.SetInt(n)
	case v.Kind() == reflect.Float64:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return errors.New("must be a number")
		}
		v.SetFloat(n)
	default:
		return fmt.Errorf("cli: unsupported flag type %s", v.Type())
	}
	return nil
}

// flagSyntax rewrites the flag package's messages to the double-dash
// spelling this CLI documents.
var flagSyntax = regexp.MustCompile(`(flag needs an argument: |flag provided but not defined: |for flag |boolean flag )-([\w-]+)`)

func flagError(err error) string {
	return flagSyntax.ReplaceAllString(err.Error(), "$1--$2")
}

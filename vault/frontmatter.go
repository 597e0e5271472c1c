package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/noema-mem/noema"
)

// FrontMatter is the YAML front matter of a note, kept as a yaml.Node tree so
// that unknown keys, their order, comments and styles survive a rewrite.
//
// The top level is always a mapping. Until something is Set or Deleted,
// [FrontMatter.Bytes] returns the parsed bytes unchanged. After a change it
// rewrites only the entries that changed: untouched entries, comments and
// blank lines are copied byte for byte, a changed entry is re-encoded in
// place (its quoting, flow style and line comment kept when the new value has
// the same type), and new keys go after the last entry. When the text cannot
// be edited that way (a flow mapping at the top level, anchors used across
// entries, …) the whole tree is re-encoded, which still keeps keys, order,
// comments and styles, though not the original layout.
//
// A FrontMatter is not safe for concurrent use.
type FrontMatter struct {
	src        []byte
	doc        *yaml.Node // document node; doc.Content[0] == m
	m          *yaml.Node // top-level mapping
	orig       []*yaml.Node
	changed    map[*yaml.Node]bool // key nodes whose value was replaced
	dirty      bool
	crlf       bool
	lineOffset int // added to line numbers in error messages
}

// RawRelation is a typed, directed edge from the note (or concept page)
// whose front matter declares it (see [FrontMatter.Relations]).
//
// To names the target: a concept label (a "[[Label]]" wrapper is removed, as
// are a "#heading" and a "|shown text" inside it), a note by its path with
// .md ("[[folder/Note.md]]"), or a note URI ("memory://path"), kept as
// written; [RelationRef] gives its index form.
type RawRelation struct {
	ID       string         `yaml:"id,omitempty"`
	Type     string         `yaml:"type"`
	To       string         `yaml:"to"`
	Weight   *float64       `yaml:"weight,omitempty"`
	Metadata map[string]any `yaml:"metadata,omitempty"`
	// Property is set when the relation is declared as Obsidian shows it:
	// a "[[To]]" link in the property named by its type. Otherwise it is an
	// entry of the `relations:` list only (the older form).
	Property bool `yaml:"-"`
}

// NewFrontMatter returns an empty front matter, to which keys can be Set.
func NewFrontMatter() *FrontMatter {
	f, _ := parseFrontMatter(nil, 0)
	return f
}

// ParseFrontMatter parses YAML front matter (the text between the "---"
// lines, as returned by [SplitFrontMatter]). Empty input, or input holding
// only comments, gives an empty mapping. Malformed YAML, more than one
// document, a top level that is not a mapping and a key defined twice are
// noema.EINVALID errors whose message names the line.
func ParseFrontMatter(src []byte) (*FrontMatter, error) {
	return parseFrontMatter(src, 0)
}

// parseFrontMatter parses src; lineOffset is added to line numbers in error
// messages (the line of src's first line in its file, minus one).
func parseFrontMatter(src []byte, lineOffset int) (f *FrontMatter, err error) {
	defer func() {
		if r := recover(); r != nil { // the YAML library must not take a caller down
			f, err = nil, noema.Errorf(noema.EINVALID, "invalid front matter: %v", r)
		}
	}()
	f = &FrontMatter{
		src:        src,
		changed:    map[*yaml.Node]bool{},
		crlf:       bytes.Contains(src, []byte("\r\n")),
		lineOffset: lineOffset,
	}
	doc, err := decodeDoc(src)
	if err != nil {
		return nil, f.yamlError(err)
	}
	if doc == nil || len(doc.Content) == 0 ||
		(doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null") {
		f.doc = &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
		if doc != nil {
			f.doc.HeadComment = doc.HeadComment
		}
		f.m = f.doc.Content[0]
		return f, nil
	}
	if doc.Content[0].Kind != yaml.MappingNode {
		return nil, noema.Errorf(noema.EINVALID, "invalid front matter at line %d: not a mapping of keys to values", f.line(doc.Content[0].Line))
	}
	f.doc, f.m = doc, doc.Content[0]
	seen := make(map[string]int, len(f.m.Content)/2)
	for i := 0; i+1 < len(f.m.Content); i += 2 {
		k := f.m.Content[i]
		f.orig = append(f.orig, k)
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if line, dup := seen[k.Value]; dup {
			return nil, noema.Errorf(noema.EINVALID, "invalid front matter at line %d: key %q already defined at line %d", f.line(k.Line), k.Value, f.line(line))
		}
		seen[k.Value] = k.Line
	}
	return f, nil
}

// decodeDoc decodes exactly one YAML document; nil for empty input.
func decodeDoc(src []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, err
		}
		line := extra.Line
		if len(extra.Content) > 0 {
			line = extra.Content[0].Line
		}
		return nil, fmt.Errorf("yaml: line %d: a second YAML document starts here", line)
	}
	return &doc, nil
}

func (f *FrontMatter) line(n int) int { return n + f.lineOffset }

// yamlMessage is the text of a YAML library error without its "yaml: "
// prefix: a *yaml.TypeError's messages, joined.
func yamlMessage(err error) string {
	if te := (*yaml.TypeError)(nil); errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// yamlError turns a YAML library error ("yaml: line 3: …") into an EINVALID
// error naming the line in the file. go.yaml.in/yaml/v3 has no error type
// for syntax errors and puts the line only in the text (fmt.Errorf), so the
// text is parsed here; the tests of ParseFrontMatter pin the lines it reports.
func (f *FrontMatter) yamlError(err error) error {
	msg := yamlMessage(err)
	line := 1 // the library leaves the line out when it is the first
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, convErr := strconv.Atoi(num); convErr == nil {
				line, msg = n, tail
				if isParserProblem(msg) {
					line++ // parser errors count lines from 0, scanner errors from 1
				}
			}
		}
	}
	return noema.Errorf(noema.EINVALID, "invalid front matter at line %d: %s", f.line(line), msg)
}

// isParserProblem reports whether msg comes from the YAML parser (as opposed
// to its scanner); go.yaml.in/yaml/v3 reports those lines 0-based.
func isParserProblem(msg string) bool {
	if rest, ok := strings.CutPrefix(msg, "did not find expected "); ok {
		switch rest {
		case "',' or ']'", "',' or '}'", "'-' indicator", "<document start>", "<stream-start>", "key", "node content":
			return true
		}
		return false
	}
	return strings.HasPrefix(msg, "found duplicate %") || msg == "found incompatible YAML document" ||
		msg == "found undefined tag handle"
}

// find returns the index in f.m.Content of the key named key, or -1.
func (f *FrontMatter) find(key string) int {
	for i := 0; i+1 < len(f.m.Content); i += 2 {
		if k := f.m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return i
		}
	}
	return -1
}

// value returns the value node of key, following an alias.
func (f *FrontMatter) value(key string) *yaml.Node {
	i := f.find(key)
	if i < 0 {
		return nil
	}
	return deref(f.m.Content[i+1])
}

func deref(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 16; depth++ {
		n = n.Alias
	}
	return n
}

// scalar returns the text of a non-null scalar, trimmed.
func scalar(n *yaml.Node) (string, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", false
	}
	return strings.TrimSpace(n.Value), true
}

// Title returns the `title:` value, "" when absent.
func (f *FrontMatter) Title() string {
	s, _ := scalar(f.value("title"))
	return s
}

// Tags returns the `tags:` value. It accepts a list, a single string and a
// string of tags separated by commas or spaces ("a, b c"); a leading '#' is
// stripped, empty tags and repeats are dropped.
func (f *FrontMatter) Tags() []string {
	n := f.value("tags")
	var raw []string
	if s, ok := scalar(n); ok {
		raw = strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	} else {
		raw = scalarItems(n)
	}
	var tags []string
	for _, t := range raw {
		t = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(t), "#"))
		if t != "" && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	return tags
}

// Aliases returns the `aliases:` value: a list, or a single string (which is
// one alias, commas included). Empty entries are dropped.
func (f *FrontMatter) Aliases() []string {
	n := f.value("aliases")
	if s, ok := scalar(n); ok {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	var out []string
	for _, s := range scalarItems(n) {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// scalarItems returns the trimmed scalars of a sequence node.
func scalarItems(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, item := range n.Content {
		if s, ok := scalar(item); ok {
			out = append(out, s)
		}
	}
	return out
}

// Concept returns the `concept:` value: the label of the concept this note is
// the page of. A WikiLink ("[[Label]]", as Obsidian writes links in
// properties) is unwrapped.
func (f *FrontMatter) Concept() string {
	s, _ := scalar(f.value("concept"))
	return unwrapLink(s)
}

// unwrapLink turns "[[Label#h|shown]]" into "Label"; other text is returned
// trimmed.
func unwrapLink(s string) string {
	s = strings.TrimSpace(s)
	inner, ok := strings.CutPrefix(s, "[[")
	if !ok {
		return s
	}
	inner, ok = strings.CutSuffix(inner, "]]")
	if !ok {
		return s
	}
	if i := strings.IndexAny(inner, "|#"); i >= 0 {
		inner = inner[:i]
	}
	return strings.TrimSpace(inner)
}

// ID returns the `id:` value (concept pages store their stable id there).
func (f *FrontMatter) ID() string {
	s, _ := scalar(f.value("id"))
	return s
}

// Time returns the time under key (such as `created` or `modified`).
// Accepted: RFC 3339 ("2024-05-01T10:00:00+02:00"), a date
// ("2024-05-01"), "2024-05-01 10:00:00" and "2024-05-01T10:00", with
// optional fractional seconds. A time without a zone is UTC, so that the
// same file means the same instant on every machine.
func (f *FrontMatter) Time(key string) (time.Time, bool) {
	s, ok := scalar(f.value(key))
	if !ok || s == "" {
		return time.Time{}, false
	}
	// Obsidian writes "2006-01-02" and "2006-01-02T15:04".
	t, _, ok := noema.ParseTime(s)
	return t, ok
}

// relationsList returns the `relations:` list; nil when absent. Each item is
// a mapping with `type` and `to` (required, non-empty) and optional `id`,
// `weight` (a finite number) and `metadata` (a mapping). Anything else is a
// noema.EINVALID error naming the line. Unknown keys in an item are ignored.
func (f *FrontMatter) relationsList() ([]RawRelation, error) {
	n := f.value("relations")
	if n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, noema.Errorf(noema.EINVALID, "invalid front matter at line %d: relations must be a list", f.line(n.Line))
	}
	rels := make([]RawRelation, 0, len(n.Content))
	for _, item := range n.Content {
		r, err := f.relation(deref(item))
		if err != nil {
			return nil, err
		}
		rels = append(rels, r)
	}
	return rels, nil
}

func (f *FrontMatter) relation(item *yaml.Node) (RawRelation, error) {
	var r RawRelation
	if item == nil || item.Kind != yaml.MappingNode {
		line := 0
		if item != nil {
			line = item.Line
		}
		return r, noema.Errorf(noema.EINVALID, "invalid relation at line %d: want a mapping with type and to", f.line(line))
	}
	bad := func(n *yaml.Node, format string, args ...any) error {
		return noema.Errorf(noema.EINVALID, "invalid relation at line %d: %s", f.line(n.Line), fmt.Sprintf(format, args...))
	}
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], deref(item.Content[i+1])
		if v == nil {
			continue
		}
		switch k.Value {
		case "id", "type", "to":
			s, ok := scalar(v)
			if !ok && !(v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null") {
				return r, bad(v, "%s must be a string", k.Value)
			}
			switch k.Value {
			case "id":
				r.ID = s
			case "type":
				r.Type = s
			case "to":
				r.To = unwrapLink(s)
			}
		case "weight":
			if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
				continue
			}
			var w float64
			if v.Kind != yaml.ScalarNode || v.Decode(&w) != nil || math.IsNaN(w) || math.IsInf(w, 0) {
				return r, bad(v, "weight must be a finite number")
			}
			r.Weight = &w
		case "metadata":
			if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
				continue
			}
			if v.Kind != yaml.MappingNode {
				return r, bad(v, "metadata must be a mapping")
			}
			md, err := decodeValue(v)
			if err != nil {
				return r, bad(v, "metadata: %s", yamlMessage(err))
			}
			m, _ := md.(map[string]any)
			r.Metadata = m
		}
	}
	if r.Type == "" {
		return r, bad(item, "missing type")
	}
	if r.To == "" {
		return r, bad(item, "missing to")
	}
	if r.Type == noema.SupersedesKey {
		r.To = supersedesTarget(r.To)
	}
	return r, nil
}

// JSONValue returns v, a value decoded from YAML, in a form encoding/json
// encodes: it is the one YAML-to-JSON normaliser (front matter values, the
// index's metadata JSON). Mappings become map[string]any, and a non-string
// key becomes its text as YAML writes it (1, true, null, 1.5); when two keys
// give the same text, a string key wins over a converted one, and among
// converted ones the first in sorted order wins, so the result does not
// depend on map order. time.Time becomes RFC 3339 text (UTC), and the floats
// JSON cannot represent become YAML's spelling (".nan", ".inf", "-.inf").
// Slices and maps are copied; v is not modified.
func JSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = JSONValue(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		type conv struct {
			text, typ string
			val       any
		}
		var others []conv
		for k, e := range x {
			if ks, ok := k.(string); ok {
				out[ks] = JSONValue(e)
			} else {
				others = append(others, conv{yamlKeyText(k), fmt.Sprintf("%T", k), e})
			}
		}
		sort.Slice(others, func(i, j int) bool {
			if others[i].text != others[j].text {
				return others[i].text < others[j].text
			}
			return others[i].typ < others[j].typ
		})
		for _, c := range others {
			if _, taken := out[c.text]; !taken {
				out[c.text] = JSONValue(c.val)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = JSONValue(e)
		}
		return out
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan"
		case math.IsInf(x, 1):
			return ".inf"
		case math.IsInf(x, -1):
			return "-.inf"
		}
		return x
	}
	return v
}

// yamlKeyText is the text of a non-string mapping key as YAML writes it.
func yamlKeyText(k any) string {
	switch k := k.(type) {
	case nil:
		return "null"
	case time.Time:
		return k.UTC().Format(time.RFC3339Nano)
	case float64:
		if s, ok := JSONValue(k).(string); ok {
			return s
		}
		return strconv.FormatFloat(k, 'g', -1, 64)
	}
	return fmt.Sprint(k)
}

// Get returns the decoded value of key (strings, numbers, bools, nil, []any,
// map[string]any; dates stay strings) and whether the key is present.
func (f *FrontMatter) Get(key string) (any, bool) {
	i := f.find(key)
	if i < 0 {
		return nil, false
	}
	v, err := decodeValue(f.m.Content[i+1])
	if err != nil {
		return nil, false
	}
	return v, true
}

// decodeValue decodes a node into plain Go values (see [FrontMatter.Get]):
// timestamps stay the strings they were written as, and mappings with
// non-string keys become map[string]any.
func decodeValue(n *yaml.Node) (any, error) {
	c := (&cloner{seen: map[*yaml.Node]*yaml.Node{}, timesAsText: true}).clone(n)
	var v any
	if err := c.Decode(&v); err != nil {
		return nil, err
	}
	return JSONValue(v), nil
}

// cloner deep-copies a node tree. Aliases point into the copy; an alias
// whose anchor is no longer in the tree (its entry was deleted or replaced)
// gets a copy of its target in its place, so that the copy encodes to valid
// YAML.
type cloner struct {
	seen        map[*yaml.Node]*yaml.Node
	timesAsText bool // re-tag timestamps as strings
}

func (c *cloner) clone(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if cp, ok := c.seen[n]; ok {
		return cp
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		if target, ok := c.seen[n.Alias]; ok {
			cp := *n
			cp.Alias = target
			return &cp
		}
		return c.clone(n.Alias) // dangling: the target itself takes its place
	}
	cp := *n
	c.seen[n] = &cp
	if c.timesAsText && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!timestamp" {
		cp.Tag = "!!str"
	}
	if n.Content != nil {
		cp.Content = make([]*yaml.Node, len(n.Content))
		for i, x := range n.Content {
			cp.Content[i] = c.clone(x)
		}
	}
	return &cp
}

// Keys returns the top-level keys in order.
func (f *FrontMatter) Keys() []string {
	keys := make([]string, 0, len(f.m.Content)/2)
	for i := 0; i+1 < len(f.m.Content); i += 2 {
		if k := f.m.Content[i]; k.Kind == yaml.ScalarNode {
			keys = append(keys, k.Value)
		}
	}
	return keys
}

// Set sets key to value: in place when the key exists (keeping the old
// value's quoting or flow style and line comment when the new value has the
// same type), else appended after the last key. value is encoded as YAML
// (structs through their yaml tags, time.Time as a timestamp); a *yaml.Node
// is used as is. An empty key is a noema.EINVALID error.
func (f *FrontMatter) Set(key string, value any) error {
	if strings.TrimSpace(key) == "" {
		return noema.Errorf(noema.EINVALID, "front matter key must not be empty")
	}
	var n *yaml.Node
	switch v := value.(type) {
	case *yaml.Node:
		n = v
	case yaml.Node:
		n = &v
	default:
		n = new(yaml.Node)
		if err := n.Encode(value); err != nil {
			return fmt.Errorf("encode front matter %q: %w", key, err)
		}
	}
	if i := f.find(key); i >= 0 {
		keepStyle(n, f.m.Content[i+1])
		f.m.Content[i+1] = n
		f.changed[f.m.Content[i]] = true
	} else {
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
		f.m.Content = append(f.m.Content, k, n)
	}
	f.dirty = true
	return nil
}

// keepStyle carries the presentation of old over to n when both have the
// same type.
func keepStyle(n, old *yaml.Node) {
	if old == nil || n.Kind != old.Kind || n.ShortTag() != old.ShortTag() {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Style == 0 {
			n.Style = old.Style &^ yaml.TaggedStyle
		}
		if n.LineComment == "" {
			n.LineComment = old.LineComment
		}
	case yaml.SequenceNode, yaml.MappingNode:
		n.Style |= old.Style & yaml.FlowStyle
		if n.Style&yaml.FlowStyle != 0 && n.LineComment == "" {
			n.LineComment = old.LineComment
		}
	}
}

// Delete removes key, if present.
func (f *FrontMatter) Delete(key string) {
	if i := f.find(key); i >= 0 {
		f.m.Content = slices.Delete(f.m.Content, i, i+2)
		f.dirty = true
	}
}

// Bytes returns the YAML text: the parsed bytes unchanged if nothing was Set
// or Deleted, else the rewritten text (see [FrontMatter]). Line endings follow
// the original (CRLF stays CRLF).
func (f *FrontMatter) Bytes() ([]byte, error) {
	if !f.dirty {
		return bytes.Clone(f.src), nil
	}
	if out, ok := f.splice(); ok {
		return out, nil
	}
	return f.encodeAll()
}

// encodeAll re-encodes the whole tree.
func (f *FrontMatter) encodeAll() (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("encode front matter: %v", r)
		}
	}()
	if len(f.m.Content) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	doc := (&cloner{seen: map[*yaml.Node]*yaml.Node{}}).clone(f.doc)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode front matter: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode front matter: %w", err)
	}
	out = f.lineEndings(buf.Bytes())
	if !f.sameAs(out) {
		// Never write what would not read back the same.
		return nil, noema.Errorf(noema.EINVALID, "front matter cannot be re-encoded faithfully")
	}
	return out, nil
}

func (f *FrontMatter) lineEndings(b []byte) []byte {
	if !f.crlf {
		return b
	}
	return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
}

// encodeEntry encodes one "key: value" entry, without the key's own
// comments (they stay in the text around it).
func (f *FrontMatter) encodeEntry(k, v *yaml.Node) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("encode front matter: %v", r)
		}
	}()
	kc := *k
	kc.HeadComment, kc.LineComment, kc.FootComment = "", "", ""
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{&kc, v}}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return f.lineEndings(buf.Bytes()), nil
}

// splice rewrites only the changed entries of the original text and checks
// that the result decodes to the current tree; ok is false when it cannot.
func (f *FrontMatter) splice() (out []byte, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	if f.m.Style&yaml.FlowStyle != 0 || hasOtherLineBreaks(f.src) {
		return nil, false
	}
	src := f.src
	lines := lineStarts(src)
	lineText := func(n int) []byte { // 1-based, without line ending
		end := len(src)
		if n < len(lines) {
			end = lines[n]
		}
		return bytes.TrimRight(src[lines[n-1]:end], "\r\n")
	}
	lineEnd := func(n int) int { // offset after line n and its line ending
		if n < len(lines) {
			return lines[n]
		}
		return len(src)
	}

	// Where each original entry starts (its key line) and where its content
	// ends (comments and blank lines after it belong to the next entry).
	type entry struct{ gapStart, keyStart, end int }
	entries := make(map[*yaml.Node]entry, len(f.orig))
	headerEnd, trailerStart := len(src), len(src)
	prevEnd := -1
	for i, k := range f.orig {
		if k.Kind != yaml.ScalarNode || k.Line < 1 || k.Line > len(lines) {
			return nil, false
		}
		text := lineText(k.Line)
		indent := len(text) - len(bytes.TrimLeft(text, " "))
		if indent != k.Column-1 {
			return nil, false // something (an anchor, a '?') precedes the key
		}
		lastLine := len(lines)
		if i+1 < len(f.orig) {
			lastLine = f.orig[i+1].Line - 1
		}
		if lastLine < k.Line || lastLine > len(lines) {
			return nil, false
		}
		for lastLine > k.Line {
			t := lineText(lastLine)
			trimmed := bytes.TrimLeft(t, " \t")
			ind := len(t) - len(trimmed)
			if len(trimmed) == 0 || (trimmed[0] == '#' && ind <= indent) {
				lastLine--
				continue
			}
			break
		}
		e := entry{keyStart: lines[k.Line-1], end: lineEnd(lastLine)}
		if i == 0 {
			e.gapStart = e.keyStart
			headerEnd = e.keyStart
		} else {
			e.gapStart = prevEnd
		}
		if e.gapStart > e.keyStart {
			return nil, false
		}
		prevEnd = e.end
		entries[k] = e
	}
	if prevEnd >= 0 {
		trailerStart = prevEnd
	}

	var b bytes.Buffer
	b.Write(src[:headerEnd])
	nl := []byte("\n")
	if f.crlf {
		nl = []byte("\r\n")
	}
	newline := func() {
		if b.Len() > 0 && !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
			b.Write(nl)
		}
	}
	for i := 0; i+1 < len(f.m.Content); i += 2 {
		k, v := f.m.Content[i], f.m.Content[i+1]
		e, isOrig := entries[k]
		if isOrig && !f.changed[k] {
			newline()
			b.Write(src[e.gapStart:e.end])
			continue
		}
		enc, err := f.encodeEntry(k, v)
		if err != nil {
			return nil, false
		}
		newline()
		if isOrig {
			b.Write(src[e.gapStart:e.keyStart])
		}
		b.Write(enc)
	}
	if trailerStart < len(src) {
		newline()
		b.Write(src[trailerStart:])
	}
	out = b.Bytes()
	if !f.sameAs(out) {
		return nil, false
	}
	return out, true
}

// sameAs reports whether text decodes to the current tree: same keys in the
// same order, same values.
func (f *FrontMatter) sameAs(text []byte) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	g, err := parseFrontMatter(text, 0)
	if err != nil || !slices.Equal(g.Keys(), f.Keys()) {
		return false
	}
	var want, got any
	if len(f.m.Content) > 0 {
		if f.m.Decode(&want) != nil || g.m.Decode(&got) != nil {
			return false
		}
	}
	return reflect.DeepEqual(want, got)
}

// hasOtherLineBreaks reports whether src has line breaks YAML knows besides
// LF and CRLF: a lone CR, NEL, LS or PS.
func hasOtherLineBreaks(src []byte) bool {
	for i, c := range src {
		if c == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			return true
		}
	}
	return bytes.Contains(src, []byte("\u0085")) || bytes.Contains(src, []byte("\u2028")) || bytes.Contains(src, []byte("\u2029"))
}

// lineStarts returns the offset of each line of src (lines end with '\n').
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// SplitFrontMatter splits a note into its front matter and its body. Front
// matter is a first line "---", YAML lines, and a closing line "---" or
// "..." (trailing spaces allowed, LF or CRLF line endings, an optional UTF-8
// byte order mark before the first line). fm is the YAML text between the
// delimiter lines, body what follows the closing line, bodyOffset the byte
// offset of body in content and bodyLine the 1-based line where body starts.
// Without front matter (no opening line, or no closing line), fm is nil, body
// is content, bodyOffset is 0 and bodyLine is 1. An empty front matter
// ("---\n---\n") gives a non-nil, empty fm.
func SplitFrontMatter(content []byte) (fm []byte, body []byte, bodyOffset int, bodyLine int) {
	start := 0
	if bytes.HasPrefix(content, []byte("\xef\xbb\xbf")) {
		start = 3
	}
	first, next, ok := nextLine(content, start)
	if !ok || !isDelimiter(first, "---") {
		return nil, content, 0, 1
	}
	fmStart := next
	line := 2
	for pos := next; pos < len(content); line++ {
		text, after, _ := nextLine(content, pos)
		if isDelimiter(text, "---") || isDelimiter(text, "...") {
			return content[fmStart:pos], content[after:], after, line + 1
		}
		pos = after
	}
	return nil, content, 0, 1
}

// nextLine returns the line at pos without its line ending, the offset of
// the next line, and whether the line had a line ending.
func nextLine(content []byte, pos int) (line []byte, next int, terminated bool) {
	i := bytes.IndexByte(content[pos:], '\n')
	if i < 0 {
		return content[pos:], len(content), false
	}
	line = content[pos : pos+i]
	return bytes.TrimSuffix(line, []byte("\r")), pos + i + 1, true
}

func isDelimiter(line []byte, delim string) bool {
	rest, ok := bytes.CutPrefix(line, []byte(delim))
	return ok && isBlank(rest)
}

// Join builds a file from front matter and body: "---", the front matter,
// "---", then body. A nil front matter or one without keys gives body alone.
// Line endings of the delimiters follow the front matter's (CRLF stays CRLF).
func Join(fm *FrontMatter, body []byte) ([]byte, error) {
	if fm == nil || len(fm.m.Content) == 0 {
		return EndLine(bytes.Clone(body)), nil
	}
	y, err := fm.Bytes()
	if err != nil {
		return nil, err
	}
	nl := "\n"
	if fm.crlf {
		nl = "\r\n"
	}
	out := make([]byte, 0, len(y)+len(body)+10)
	out = append(out, "---"+nl...)
	out = append(out, y...)
	if len(y) > 0 && y[len(y)-1] != '\n' {
		out = append(out, nl...)
	}
	out = append(out, "---"+nl...)
	return EndLine(append(out, body...)), nil
}

// EditFrontMatter returns content with its front matter changed by fn and
// its body kept: content is split (SplitFrontMatter), its front matter
// parsed, given to fn, and joined with the body again (Join). A file
// without front matter gets one when fn sets a key.
func EditFrontMatter(content []byte, fn func(fm *FrontMatter) error) ([]byte, error) {
	fmSrc, body, _, _ := SplitFrontMatter(content)
	fm, err := ParseFrontMatter(fmSrc)
	if err != nil {
		return nil, err
	}
	if err := fn(fm); err != nil {
		return nil, err
	}
	return Join(fm, body)
}

// EndLine returns b ending with a line break: as it is when it is empty or
// already ends with one, else with "\n" added ("\r\n" when b's first line
// ends so). Every file noema writes ends with a newline, as POSIX text files
// and Obsidian's own do.
func EndLine(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] == '\n' {
		return b
	}
	if i := bytes.IndexByte(b, '\n'); i > 0 && b[i-1] == '\r' {
		return append(b, '\r', '\n')
	}
	return append(b, '\n')
}

package vault

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
)

func TestSplitFrontMatter(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		fm       *string // nil: no front matter
		body     string
		off      int
		bodyLine int
	}{
		{"none", "# Title\ntext", nil, "# Title\ntext", 0, 1},
		{"basic", "---\ntitle: a\n---\nbody\n", ptr("title: a\n"), "body\n", 17, 3 + 1},
		{"crlf", "---\r\ntitle: a\r\n---\r\nbody", ptr("title: a\r\n"), "body", 20, 4},
		{"dots closer", "---\na: 1\n...\nbody", ptr("a: 1\n"), "body", 13, 4},
		{"trailing spaces on delimiters", "--- \na: 1\n---\t\nb", ptr("a: 1\n"), "b", 15, 4},
		{"empty", "---\n---\nbody", ptr(""), "body", 8, 3},
		{"at end of file", "---\na: 1\n---", ptr("a: 1\n"), "", 12, 4},
		{"no closer", "---\na: 1\nbody\n", nil, "---\na: 1\nbody\n", 0, 1},
		{"not at start", "\n---\na: 1\n---\n", nil, "\n---\na: 1\n---\n", 0, 1},
		{"four dashes", "----\na: 1\n---\n", nil, "----\na: 1\n---\n", 0, 1},
		{"bom", "\xef\xbb\xbf---\na: 1\n---\nb", ptr("a: 1\n"), "b", 16, 4},
		{"only opener", "---", nil, "---", 0, 1},
		{"multi-line", "---\na: 1\nb:\n  - x\n---\n\nbody", ptr("a: 1\nb:\n  - x\n"), "\nbody", 22, 6},
	}
	for _, tt := range tests {
		fm, body, off, line := SplitFrontMatter([]byte(tt.in))
		if (fm == nil) != (tt.fm == nil) || (tt.fm != nil && string(fm) != *tt.fm) {
			t.Errorf("%s: fm = %q (nil %v), want %v", tt.name, fm, fm == nil, tt.fm)
		}
		if string(body) != tt.body || off != tt.off || line != tt.bodyLine {
			t.Errorf("%s: body %q at %d line %d, want %q at %d line %d", tt.name, body, off, line, tt.body, tt.off, tt.bodyLine)
		}
		if tt.in[off:] != string(body) {
			t.Errorf("%s: body is not content[off:]", tt.name)
		}
	}
}

func ptr(s string) *string { return &s }

const richFM = `# Note metadata, hand-written.
title: "Attention Is All You Need"   # the paper
aliases: [Transformer paper, Vaswani 2017]
tags:
  - ml
  - '#papers'
zeta-unknown: {b: 2, a: 1}
created: 2024-03-01
# why this matters
description: |
  Multi-line text
  kept literally.

relations:
  - type: extends
    to: "[[Sequence Models]]"
    weight: 0.8
  - {type: cites, to: memory://papers/bahdanau, id: r2, metadata: {year: 2014}}
anchor: &a shared
uses-anchor: *a
x_custom: 42 # trailing comment
# the end
`

func TestFrontMatterUntouched(t *testing.T) {
	inputs := []string{
		richFM,
		"",
		"# only a comment\n",
		"a: 1",
		"a: 1\r\nb: [x,   y]\r\n",
		"{a: 1, b: 2}\n",
		"  indented: 1\n  map: 2\n",
		"~\n",
		"key: 'single'\nother: \"double\"\nplain: text   \n",
	}
	for _, in := range inputs {
		fm, err := ParseFrontMatter([]byte(in))
		if err != nil {
			t.Fatalf("ParseFrontMatter(%q): %v", in, err)
		}
		out, err := fm.Bytes()
		if err != nil || string(out) != in {
			t.Errorf("Bytes() = %q, %v; want the input %q unchanged", out, err, in)
		}
	}
}

func mustFM(t *testing.T, src string) *FrontMatter {
	t.Helper()
	fm, err := ParseFrontMatter([]byte(src))
	if err != nil {
		t.Fatalf("ParseFrontMatter: %v", err)
	}
	return fm
}

func mustBytes(t *testing.T, fm *FrontMatter) string {
	t.Helper()
	b, err := fm.Bytes()
	if err != nil {
		t.Fatalf("Bytes: %v", err)
	}
	return string(b)
}

func TestFrontMatterSetKeepsTheRest(t *testing.T) {
	fm := mustFM(t, richFM)
	if err := fm.Set("created", "2025-01-02"); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(richFM, "created: 2024-03-01", "created: \"2025-01-02\"", 1)
	if got := mustBytes(t, fm); got != want {
		t.Errorf("after Set(created):\n%s\nwant:\n%s", got, want)
	}

	// A replaced scalar keeps its quoting and line comment.
	fm = mustFM(t, richFM)
	if err := fm.Set("title", "New Title"); err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(richFM, `title: "Attention Is All You Need"   # the paper`, `title: "New Title" # the paper`, 1)
	if got := mustBytes(t, fm); got != want {
		t.Errorf("after Set(title):\n%s\nwant:\n%s", got, want)
	}

	// A flow list stays a flow list.
	fm = mustFM(t, richFM)
	if err := fm.Set("aliases", []string{"Transformer paper", "AIAYN"}); err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(richFM, "aliases: [Transformer paper, Vaswani 2017]", "aliases: [Transformer paper, AIAYN]", 1)
	if got := mustBytes(t, fm); got != want {
		t.Errorf("after Set(aliases):\n%s\nwant:\n%s", got, want)
	}

	// New keys go after the last entry, before trailing comments.
	fm = mustFM(t, richFM)
	if err := fm.Set("modified", time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(richFM, "# the end\n", "modified: 2025-05-06T07:08:09Z\n# the end\n", 1)
	if got := mustBytes(t, fm); got != want {
		t.Errorf("after Set(modified):\n%s\nwant:\n%s", got, want)
	}
	if got, _ := fm.Time("modified"); !got.Equal(time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)) {
		t.Errorf("Time(modified) = %v", got)
	}
	wantKeys := []string{"title", "aliases", "tags", "zeta-unknown", "created", "description", "relations", "anchor", "uses-anchor", "x_custom", "modified"}
	if got := fm.Keys(); !reflect.DeepEqual(got, wantKeys) {
		t.Errorf("Keys() = %v, want %v", got, wantKeys)
	}

	// Delete removes the entry and the comments right above it.
	fm = mustFM(t, richFM)
	fm.Delete("description")
	fm.Delete("not-there")
	want = strings.Replace(richFM, "# why this matters\ndescription: |\n  Multi-line text\n  kept literally.\n", "", 1)
	if got := mustBytes(t, fm); got != want {
		t.Errorf("after Delete(description):\n%s\nwant:\n%s", got, want)
	}
}

func TestFrontMatterSetOnEmpty(t *testing.T) {
	fm := NewFrontMatter()
	if err := fm.Set("title", "Hello: world"); err != nil {
		t.Fatal(err)
	}
	if err := fm.Set("tags", []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	want := "title: 'Hello: world'\ntags:\n  - a\n  - b\n"
	if got := mustBytes(t, fm); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A comment-only front matter keeps its comment.
	fm = mustFM(t, "# c\n")
	if err := fm.Set("a", 1); err != nil {
		t.Fatal(err)
	}
	if got := mustBytes(t, fm); got != "# c\na: 1\n" {
		t.Errorf("got %q", got)
	}
	// No trailing newline in the original.
	fm = mustFM(t, "a: 1")
	if err := fm.Set("b", 2); err != nil {
		t.Fatal(err)
	}
	if got := mustBytes(t, fm); got != "a: 1\nb: 2\n" {
		t.Errorf("got %q", got)
	}
	if err := fm.Set("", 1); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("Set(\"\") = %v, want EINVALID", err)
	}
}

func TestFrontMatterCRLF(t *testing.T) {
	fm := mustFM(t, "a: 1\r\nb: 2\r\n")
	if err := fm.Set("b", 3); err != nil {
		t.Fatal(err)
	}
	if err := fm.Set("c", "x"); err != nil {
		t.Fatal(err)
	}
	if got := mustBytes(t, fm); got != "a: 1\r\nb: 3\r\nc: x\r\n" {
		t.Errorf("got %q", got)
	}
	out, err := Join(fm, []byte("body\r\n"))
	if err != nil || string(out) != "---\r\na: 1\r\nb: 3\r\nc: x\r\n---\r\nbody\r\n" {
		t.Errorf("Join = %q, %v", out, err)
	}
}

func TestFrontMatterFallbackEncoding(t *testing.T) {
	// A flow mapping at the top level cannot be edited entry by entry; the
	// whole tree is re-encoded, keeping keys, order and values.
	fm := mustFM(t, "{b: 1, a: [x, y], c: 'q'}  # all in one\n")
	if err := fm.Set("a", []string{"z"}); err != nil {
		t.Fatal(err)
	}
	fm.Set("d", true)
	out := mustBytes(t, fm)
	g := mustFM(t, out)
	if got := g.Keys(); !reflect.DeepEqual(got, []string{"b", "a", "c", "d"}) {
		t.Errorf("keys after re-encode = %v (%q)", got, out)
	}
	if v, _ := g.Get("a"); !reflect.DeepEqual(v, []any{"z"}) {
		t.Errorf("a = %#v", v)
	}
	if v, _ := g.Get("c"); v != "q" {
		t.Errorf("c = %#v", v)
	}

	// Deleting the entry that defines an anchor used elsewhere: the text
	// cannot simply lose it, so the tree is re-encoded and stays valid.
	fm = mustFM(t, "a: &x 1\nb: *x\n")
	fm.Delete("a")
	out = mustBytes(t, fm)
	if v, ok := mustFM(t, out).Get("b"); !ok || v != 1 {
		t.Errorf("b = %#v in %q", v, out)
	}
}

func TestFrontMatterAccessors(t *testing.T) {
	fm := mustFM(t, richFM)
	if got := fm.Title(); got != "Attention Is All You Need" {
		t.Errorf("Title() = %q", got)
	}
	if got := fm.Tags(); !reflect.DeepEqual(got, []string{"ml", "papers"}) {
		t.Errorf("Tags() = %q", got)
	}
	if got := fm.Aliases(); !reflect.DeepEqual(got, []string{"Transformer paper", "Vaswani 2017"}) {
		t.Errorf("Aliases() = %q", got)
	}
	if got, ok := fm.Time("created"); !ok || !got.Equal(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Time(created) = %v, %v", got, ok)
	}
	if _, ok := fm.Time("title"); ok {
		t.Errorf("Time(title) parsed")
	}
	if _, ok := fm.Time("missing"); ok {
		t.Errorf("Time(missing) parsed")
	}
	if v, ok := fm.Get("zeta-unknown"); !ok || !reflect.DeepEqual(v, map[string]any{"a": 1, "b": 2}) {
		t.Errorf("Get(zeta-unknown) = %#v, %v", v, ok)
	}
	if v, ok := fm.Get("uses-anchor"); !ok || v != "shared" {
		t.Errorf("Get(uses-anchor) = %#v, %v", v, ok)
	}
	if v, ok := fm.Get("created"); !ok || v != "2024-03-01" {
		t.Errorf("Get(created) = %#v (dates stay strings)", v)
	}
	if _, ok := fm.Get("nope"); ok {
		t.Errorf("Get(nope) found")
	}

	tags, aliases := (*FrontMatter).Tags, (*FrontMatter).Aliases
	listTests := []struct {
		name string
		get  func(*FrontMatter) []string
		src  string
		want string
	}{
		{"Tags", tags, "tags: a, b c,#d", "a|b|c|d"},
		{"Tags", tags, "tags: single", "single"},
		{"Tags", tags, "tags: [x, '#y', x, '']", "x|y"},
		{"Tags", tags, "tags:\n  - ' spaced '\n  - 7", "spaced|7"},
		{"Tags", tags, "tags: ~", ""},
		{"Tags", tags, "tags: {a: 1}", ""},
		{"Tags", tags, "tag: ignored", ""},
		{"Aliases", aliases, "aliases: Smith, John", "Smith, John"},
		{"Aliases", aliases, "aliases: [a, '', b]", "a|b"},
		{"Aliases", aliases, "aliases:\n  - x", "x"},
		{"Aliases", aliases, "aliases: ''", ""},
	}
	for _, tt := range listTests {
		if got := strings.Join(tt.get(mustFM(t, tt.src)), "|"); got != tt.want {
			t.Errorf("%s() of %q = %q, want %q", tt.name, tt.src, got, tt.want)
		}
	}
	scalarTests := []struct{ src, concept, id, title string }{
		{"concept: Gradient Checkpointing\nid: c_123\ntitle: 2024", "Gradient Checkpointing", "c_123", "2024"},
		{"concept: '[[Gradient Checkpointing|gc]]'", "Gradient Checkpointing", "", ""},
		{"concept: [a, b]\nid: ~", "", "", ""},
	}
	for _, tt := range scalarTests {
		fm := mustFM(t, tt.src)
		if fm.Concept() != tt.concept || fm.ID() != tt.id || fm.Title() != tt.title {
			t.Errorf("%q: concept %q id %q title %q", tt.src, fm.Concept(), fm.ID(), fm.Title())
		}
	}
	timeTests := []struct {
		src  string
		want time.Time
	}{
		{"t: 2024-03-01T10:20:30Z", time.Date(2024, 3, 1, 10, 20, 30, 0, time.UTC)},
		{"t: 2024-03-01T10:20:30.5+02:00", time.Date(2024, 3, 1, 8, 20, 30, 5e8, time.UTC)},
		{"t: 2024-03-01 10:20:30", time.Date(2024, 3, 1, 10, 20, 30, 0, time.UTC)},
		{"t: '2024-03-01 10:20'", time.Date(2024, 3, 1, 10, 20, 0, 0, time.UTC)},
		{"t: 2024-03-01T10:20", time.Date(2024, 3, 1, 10, 20, 0, 0, time.UTC)},
		{"t: 2024-03-01T10:20:30", time.Date(2024, 3, 1, 10, 20, 30, 0, time.UTC)},
		{"t: 2024-03-01", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range timeTests {
		got, ok := mustFM(t, tt.src).Time("t")
		if !ok || !got.Equal(tt.want) {
			t.Errorf("Time of %q = %v, %v; want %v", tt.src, got, ok, tt.want)
		}
	}
}

func TestParseFrontMatterErrors(t *testing.T) {
	tests := []struct {
		src, msg string
	}{
		{"a: 1\nb: [x\n", "line 2"},
		{"a: 1\nb: 2\nc 2\nd: 3\n", "line 3"},
		{"a: 1\n- b\n", "line 2"},
		{"- a\n- b\n", "not a mapping"},
		{"just text\n", "not a mapping"},
		{"a: 1\nb: 2\na: 3\n", `line 3: key "a" already defined at line 1`},
		{"a: 1\n---\nb: 2\n", "second YAML document"},
		{"a: \"unterminated\n", "found unexpected end of stream"},
		{"a:\n\t- b\n", "line 2"},
	}
	for _, tt := range tests {
		_, err := ParseFrontMatter([]byte(tt.src))
		if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseFrontMatter(%q) = %v; want EINVALID mentioning %q", tt.src, err, tt.msg)
		}
	}
}

func TestRelations(t *testing.T) {
	fm := mustFM(t, richFM)
	rels, err := fm.Relations()
	if err != nil {
		t.Fatal(err)
	}
	w := 0.8
	want := []RawRelation{
		{Type: "extends", To: "Sequence Models", Weight: &w},
		{ID: "r2", Type: "cites", To: "memory://papers/bahdanau", Metadata: map[string]any{"year": 2014}},
	}
	if !reflect.DeepEqual(rels, want) {
		t.Errorf("Relations() = %+v, want %+v", rels, want)
	}

	// Relations written back with Set read back the same.
	w2 := 1.5
	next := append(rels, RawRelation{ID: "r3", Type: "part_of", To: "Deep Learning", Weight: &w2, Metadata: map[string]any{"k": []any{"a", 1}, "n": map[string]any{"x": true}}})
	if err := fm.Set("relations", next); err != nil {
		t.Fatal(err)
	}
	again, err := mustFM(t, mustBytes(t, fm)).Relations()
	if err != nil || !reflect.DeepEqual(again, next) {
		t.Errorf("round trip = %+v, %v; want %+v", again, err, next)
	}

	none, err := mustFM(t, "title: x").Relations()
	if none != nil || err != nil {
		t.Errorf("no relations = %v, %v", none, err)
	}
	if none, err := mustFM(t, "relations:").Relations(); none != nil || err != nil {
		t.Errorf("null relations = %v, %v", none, err)
	}

	bad := []struct{ src, msg string }{
		{"relations: nope", "line 1: relations must be a list"},
		{"relations:\n  - just text", "line 2"},
		{"relations:\n  - to: X", "missing type"},
		{"relations:\n  - type: t", "missing to"},
		{"relations:\n  - type: t\n    to: '  '", "missing to"},
		{"relations:\n  - type: t\n    to: '[[ ]]'", "missing to"},
		{"relations:\n  - type: [a]\n    to: X", "type must be a string"},
		{"relations:\n  - type: t\n    to: X\n    weight: heavy", "line 4: weight must be a finite number"},
		{"relations:\n  - type: t\n    to: X\n    weight: .nan", "weight must be a finite number"},
		{"relations:\n  - type: t\n    to: X\n    metadata: [1]", "metadata must be a mapping"},
	}
	for _, tt := range bad {
		_, err := mustFM(t, tt.src).Relations()
		if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Relations() of %q = %v; want EINVALID mentioning %q", tt.src, err, tt.msg)
		}
	}

	// Non-string metadata keys become strings (JSON-compatible).
	rels, err = mustFM(t, "relations:\n  - type: t\n    to: X\n    metadata: {1: a, nested: {2: b}}").Relations()
	if err != nil || !reflect.DeepEqual(rels[0].Metadata, map[string]any{"1": "a", "nested": map[string]any{"2": "b"}}) {
		t.Errorf("metadata = %#v, %v", rels, err)
	}
}

func TestJoin(t *testing.T) {
	out, err := Join(nil, []byte("body"))
	if err != nil || string(out) != "body\n" { // every file noema writes ends with a newline
		t.Errorf("Join(nil) = %q, %v", out, err)
	}
	out, err = Join(NewFrontMatter(), []byte("body"))
	if err != nil || string(out) != "body\n" {
		t.Errorf("Join(empty) = %q, %v", out, err)
	}
	file := "---\n" + richFM + "---\n# Body\n"
	fmText, body, _, _ := SplitFrontMatter([]byte(file))
	fm := mustFM(t, string(fmText))
	out, err = Join(fm, body)
	if err != nil || string(out) != file {
		t.Errorf("Join(untouched) = %q, %v; want the file back", out, err)
	}
	fm = mustFM(t, "a: 1") // no trailing newline
	out, err = Join(fm, []byte("b"))
	if err != nil || string(out) != "---\na: 1\n---\nb\n" {
		t.Errorf("Join = %q, %v", out, err)
	}
}

func TestEndLine(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a\n", "a\n": "a\n", "a\r\nb": "a\r\nb\r\n", "a\nb": "a\nb\n", "\n": "\n"} {
		if got := string(EndLine([]byte(in))); got != want {
			t.Errorf("EndLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseFrontMatter(f *testing.F) {
	for _, s := range []string{richFM, "", "a: 1", "{a: 1}", "a: &x [1]\nb: *x\n", "- x", "a: |\n  t\n\nb: 2\n", "a: 1\r\nb: 2\r\n", "a:\n- x\n# c\n- y\n", "? complex\n: value\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		fm, err := ParseFrontMatter(src)
		if err != nil {
			if noema.ErrorCode(err) != noema.EINVALID {
				t.Fatalf("error %v is not EINVALID", err)
			}
			return
		}
		out, err := fm.Bytes()
		if err != nil || !bytes.Equal(out, src) {
			t.Fatalf("untouched Bytes() = %q, %v; want %q", out, err, src)
		}
		fm.Title()
		fm.Tags()
		fm.Aliases()
		fm.Concept()
		fm.Relations()
		fm.Time("created")
		// An edit never yields text that reads back differently.
		keys := fm.Keys()
		if err := fm.Set("fuzz", "v"); err != nil {
			t.Fatal(err)
		}
		if len(keys) > 0 {
			fm.Delete(keys[0])
		}
		out, err = fm.Bytes()
		if err != nil {
			return // refused rather than written wrong
		}
		g, err := ParseFrontMatter(out)
		if err != nil {
			t.Fatalf("edited front matter %q does not parse: %v", out, err)
		}
		if !reflect.DeepEqual(g.Keys(), fm.Keys()) {
			t.Fatalf("keys %v, want %v", g.Keys(), fm.Keys())
		}
		if v, _ := g.Get("fuzz"); v != "v" {
			t.Fatalf("fuzz = %#v", v)
		}
	})
}

package importer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/importer"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/notes"
)

// notesOf snapshots a's notes (the vault's files outside .noema).
func notesOf(t *testing.T, a *app.App) map[string]string {
	t.Helper()
	return treetest.NotesOnly(treetest.Files(t, a.Vault.Root))
}

func service(a *app.App) *importer.Service {
	return importer.New(a.Vault, a.DB.Concepts(), a.Indexer, a.Config.MaxNoteBytes)
}

// exportJSONL exports a's graph in the memory server's format.
func exportJSONL(t *testing.T, a *app.App) []byte {
	t.Helper()
	g, err := graph.Export(context.Background(), a.GraphIndex)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err = importer.WriteMemoryJSONL(&buf, g.Nodes, g.Edges, func(p string) ([]byte, error) {
		data, _, err := a.Vault.ReadFile(p)
		return data, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// meaning is a memory-jsonl graph as sets: entities by name with their
// type and sorted observations, relations as "from|type|to".
type meaning struct {
	Entities  map[string]string // name → type + "\n" + sorted observations
	Relations []string
}

func meaningOf(t *testing.T, data []byte) meaning {
	t.Helper()
	g, err := importer.ParseMemoryJSONL(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, data)
	}
	m := meaning{Entities: map[string]string{}}
	for _, e := range g.Entities {
		obs := slices.Clone(e.Observations)
		slices.Sort(obs)
		m.Entities[e.Name] = e.EntityType + "\n" + strings.Join(obs, "\n")
	}
	for _, r := range g.Relations {
		m.Relations = append(m.Relations, r.From+"|"+r.RelationType+"|"+r.To)
	}
	slices.Sort(m.Relations)
	return m
}

func importFile(t *testing.T, a *app.App, path string, dry bool) *importer.Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := service(a).ImportMemoryJSONL(context.Background(), f, importer.Options{DryRun: dry})
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return rep
}

// TestMemoryJSONL imports a file in the memory server's format (written as
// its saveGraph writes: no newline at the end), imports it again, and
// exports it back: the same entities, types, observations and relations,
// less what noema could not map.
func TestMemoryJSONL(t *testing.T) {
	a := noematest.AppWith(t, nil)
	fixture := filepath.Join("testdata", "memory.jsonl")

	dry := importFile(t, a, fixture, true)
	if files := notesOf(t, a); len(files) != 0 {
		t.Fatalf("a dry run wrote %v", files)
	}
	rep := importFile(t, a, fixture, false)
	want := importer.Counts{Created: 3 + 6 + 4, Skipped: 0, CouldNotMap: 3}
	if rep.Counts != want || dry.Counts != want {
		t.Fatalf("counts %+v (dry run %+v), want %+v: %s", rep.Counts, dry.Counts, want, rep.Message)
	}
	if rep.Operation == "" || len(rep.Files) != 3 {
		t.Fatalf("operation %q, files %v", rep.Operation, rep.Files)
	}
	ops, err := a.Notes.Operations(context.Background(), notes.OperationsInput{})
	if err != nil || len(ops.Operations) != 1 || ops.Operations[0].Tool != "import memory-jsonl" || ops.Operations[0].ID != rep.Operation {
		t.Fatalf("operation log %+v, %v", ops, err)
	}
	before := notesOf(t, a)

	again := importFile(t, a, fixture, false)
	if again.Counts != (importer.Counts{Created: 0, Skipped: 13, CouldNotMap: 3}) || len(again.Files) != 0 || again.Operation != "" {
		t.Fatalf("second run: %+v, files %v: %s", again.Counts, again.Files, again.Message)
	}
	if after := notesOf(t, a); !treetest.Same(before, after) {
		t.Fatal("the second run changed files")
	}

	c, err := a.Concepts.Get(context.Background(), "Charles Babbage")
	if err != nil || c.Label != "Charles_Babbage" || c.Page != "memory://concepts/Charles_Babbage" {
		t.Fatalf("concept %+v, %v", c, err)
	}

	src, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	wantM := meaningOf(t, src)
	delete(wantM.Entities, "C#") // a # cannot be in a concept's name
	wantM.Relations = slices.DeleteFunc(wantM.Relations, func(r string) bool { return strings.Contains(r, "|title|") })
	got := meaningOf(t, exportJSONL(t, a))
	if !sameMeaning(got, wantM) {
		t.Fatalf("export differs in meaning:\n got %+v\nwant %+v", got, wantM)
	}
}

func sameMeaning(a, b meaning) bool {
	if len(a.Entities) != len(b.Entities) || !slices.Equal(a.Relations, b.Relations) {
		return false
	}
	for k, v := range a.Entities {
		if b.Entities[k] != v {
			return false
		}
	}
	return true
}

// TestMemoryJSONLAddsToExistingPages: a later file adds its new
// observations and relations to the pages an earlier import made, and
// to a concept page the vault already had.
func TestMemoryJSONLAddsToExistingPages(t *testing.T) {
	a := noematest.AppWith(t, map[string]string{
		"concepts/Rust.md": "---\nconcept: Rust\n---\nA systems language.\n",
	})
	first := `{"type":"entity","name":"Rust","entityType":"language","observations":["Has ownership"]}` + "\n"
	rep, err := service(a).ImportMemoryJSONL(context.Background(), strings.NewReader(first), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts != (importer.Counts{Created: 1, Skipped: 1}) {
		t.Fatalf("%+v: %s", rep.Counts, rep.Message)
	}
	second := first + `{"type":"entity","name":"Cargo","entityType":"tool","observations":[]}` + "\n" +
		`{"type":"relation","from":"Rust","to":"Cargo","relationType":"built_with"}` + "\n"
	rep, err = service(a).ImportMemoryJSONL(context.Background(), strings.NewReader(second), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts != (importer.Counts{Created: 2, Skipped: 2}) {
		t.Fatalf("%+v: %s", rep.Counts, rep.Message)
	}
	page, _, err := a.Vault.ReadFile("concepts/Rust.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "A systems language.") || !strings.Contains(string(page), "## Observations\n\n- Has ownership\n") ||
		!strings.Contains(string(page), "built_with:") {
		t.Fatalf("page:\n%s", page)
	}
}

// TestMemoryJSONLByteOrderMark: a file saved with a byte order mark reads
// as without.
func TestMemoryJSONLByteOrderMark(t *testing.T) {
	g, err := importer.ParseMemoryJSONL(strings.NewReader("\uFEFF" + `{"type":"entity","name":"Ada","entityType":"person"}` + "\r\n"))
	if err != nil || len(g.Entities) != 1 || g.Entities[0].Name != "Ada" {
		t.Fatalf("%+v, %v", g, err)
	}
}

// TestMemoryJSONLBadInput: each bad file is refused with a stable code and
// a message naming its line, and the vault is left as it was.
func TestMemoryJSONLBadInput(t *testing.T) {
	good := `{"type":"entity","name":"Ada","entityType":"person","observations":["x"]}` + "\n"
	scenarios := []struct {
		Name  string
		Input string
		Code  string
		Says  string
	}{
		{"Truncated", good + `{"type":"entity","name":"Bo`, noema.EINVALID, "line 2: not a whole JSON object"},
		{"UnknownType", good + `{"type":"person","name":"Bo"}`, noema.EINVALID, `line 2: unknown record type "person"`},
		{"NoType", `{"name":"Bo"}`, noema.EINVALID, `line 1: a record without "type"`},
		{"MissingField", good + "\n" + `{"type":"relation","from":"Ada","to":"Bo"}`, noema.EINVALID, "line 3: a relation needs"},
		{"WrongFieldType", `{"type":"entity","name":"Ada","entityType":"person","observations":"x"}`, noema.EINVALID, `line 1: not a whole JSON object (truncated or malformed: field "observations" holds a JSON string)`},
		{"InvalidUTF8", good + "{\"type\":\"entity\",\"name\":\"B\xffo\",\"entityType\":\"x\"}", noema.EINVALID, "line 2: not valid UTF-8"},
		{"PathTrick", `{"type":"entity","name":"../x","entityType":"x"}`, noema.EINVALID, `line 1: the entity name "../x" is a path that leaves its folder`},
		{"AbsolutePath", `{"type":"entity","name":"/etc/passwd","entityType":"x"}`, noema.EINVALID, "line 1: the entity name"},
		{"ControlCharacter", `{"type":"entity","name":"a\u0007b","entityType":"x"}`, noema.EINVALID, "contains a control character"},
		{"RelationPathTrick", good + `{"type":"relation","from":"Ada","to":"a/../../b","relationType":"knows"}`, noema.EINVALID, "line 2: the relation's to"},
		{"SameNameTwice", good + good, noema.ECONFLICT, `line 2: entity "Ada" is also on line 1`},
		{"SameConcept", good + `{"type":"entity","name":"ada","entityType":"x"}`, noema.ECONFLICT, `line 2: entity "ada" and "Ada" on line 1 name one concept`},
		{"SameFileName", `{"type":"entity","name":"TCP/IP","entityType":"x"}` + "\n" + `{"type":"entity","name":"TCP:IP","entityType":"x"}`, noema.ECONFLICT, "would share the page concepts/TCP-IP.md"},
		{"CollidesWithNote", `{"type":"entity","name":"Garbage Collection","entityType":"x"}`, noema.ECONFLICT, "line 1: entity \"Garbage Collection\" names the note notes/Garbage Collection.md"},
		{"CollidesWithPath", `{"type":"entity","name":"Heap","entityType":"x"}`, noema.ECONFLICT, "line 1: entity \"Heap\" goes to concepts/Heap.md, which holds another note"},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			a := noematest.AppWith(t, map[string]string{
				"notes/Garbage Collection.md": "Tracing [[Garbage Collection]].\n",
				"concepts/Heap.md":            "---\ntitle: Heap notes\n---\nNot a concept page.\n",
			})
			before := notesOf(t, a)
			_, err := service(a).ImportMemoryJSONL(context.Background(), strings.NewReader(sc.Input), importer.Options{})
			if noema.ErrorCode(err) != sc.Code || !strings.Contains(noema.ErrorMessage(err), sc.Says) {
				t.Fatalf("error %v, want %s saying %q", err, sc.Code, sc.Says)
			}
			if after := notesOf(t, a); !treetest.Same(before, after) {
				t.Fatal("a refused import changed files")
			}
		})
	}
}

// TestMemoryJSONLTooLarge: a file above the bound is too_large before any
// of it is parsed.
func TestMemoryJSONLTooLarge(t *testing.T) {
	a := noematest.AppWith(t, nil)
	line := `{"type":"entity","name":"Ada","entityType":"person","observations":["` + strings.Repeat("x", 1000) + `"]}` + "\n"
	big := io.LimitReader(repeatReader(line), importer.MaxInputBytes+1)
	_, err := service(a).ImportMemoryJSONL(context.Background(), big, importer.Options{})
	if noema.ErrorCode(err) != noema.ETOOLARGE || !strings.Contains(noema.ErrorMessage(err), "larger than 64 MiB") {
		t.Fatalf("error %v, want too_large", err)
	}
	if files := notesOf(t, a); len(files) != 0 {
		t.Fatalf("wrote %v", files)
	}
}

type repeated struct {
	s string
	i int
}

func repeatReader(s string) io.Reader { return &repeated{s: s} }

func (r *repeated) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.s[r.i:])
		n += c
		r.i = (r.i + c) % len(r.s)
	}
	return n, nil
}

// memoryJSONLSeeds adds the fuzz seeds of ParseMemoryJSONL.
func memoryJSONLSeeds(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "memory.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"type":"entity","name":"a","entityType":"b","observations":["c"]}` + "\n\n" + `{"type":"relation","from":"a","to":"b","relationType":"c"}`))
	f.Add([]byte(`{"type":"entity","name":"../a"`))
}

// checkMemoryJSONL checks ParseMemoryJSONL on data: the parser never panics, fails only with its
// codes, and what it accepts has the fields the format requires.
func checkMemoryJSONL(t *testing.T, data []byte) {
	g, err := importer.ParseMemoryJSONL(bytes.NewReader(data))
	if err != nil {
		if code := noema.ErrorCode(err); code != noema.EINVALID {
			t.Fatalf("code %s: %v", code, err)
		}
		if !strings.HasPrefix(noema.ErrorMessage(err), "line ") {
			t.Fatalf("the error names no line: %v", err)
		}
		return
	}
	for _, e := range g.Entities {
		if strings.TrimSpace(e.Name) == "" || e.Line < 1 || slices.Contains(strings.Split(e.Name, "/"), "..") {
			t.Fatalf("entity %+v", e)
		}
	}
	for _, r := range g.Relations {
		if strings.TrimSpace(r.From) == "" || strings.TrimSpace(r.To) == "" || strings.TrimSpace(r.RelationType) == "" {
			t.Fatalf("relation %+v", r)
		}
	}
	// What was accepted renders back to records the parser reads the
	// same: the export's encoding is a fixed point.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, e := range g.Entities {
		enc.Encode(map[string]any{"type": "entity", "name": e.Name, "entityType": e.EntityType, "observations": e.Observations})
	}
	g2, err := importer.ParseMemoryJSONL(&buf)
	if err != nil || len(g2.Entities) != len(g.Entities) {
		t.Fatalf("re-encoded entities do not parse: %v", err)
	}
}

package importer_test

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/importer"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/vault"
)

var basicFolder = filepath.Join("testdata", "basic-memory")

// TestBasicMemory imports a basic-memory project written after its
// documented format: every note at its path with its text as it was,
// observations' tags as the note's tags, relation lines as typed
// relations; a second run skips everything.
func TestBasicMemory(t *testing.T) {
	ctx := context.Background()
	a := noematest.AppWith(t, nil)
	rep, err := service(a).ImportBasicMemory(ctx, basicFolder, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 4 notes, 8 observations (not the open task, not the fenced lines), 5
	// relations; not mapped: shopping.txt, the relation types "title" and
	// "is (sort of) like".
	if want := (importer.Counts{Created: 4 + 8 + 5, CouldNotMap: 3}); rep.Counts != want {
		t.Fatalf("counts %+v, want %+v: %s", rep.Counts, want, rep.Message)
	}
	again, err := service(a).ImportBasicMemory(ctx, basicFolder, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (importer.Counts{Skipped: 17, CouldNotMap: 3}); again.Counts != want || len(again.Files) != 0 {
		t.Fatalf("second run %+v, files %v, want %+v", again.Counts, again.Files, want)
	}

	vaultNotes := treetest.NotesOnly(treetest.Files(t, a.Vault.Root))
	if len(vaultNotes) != 4 {
		t.Fatalf("vault notes %v", slices.Sorted(maps.Keys(vaultNotes)))
	}
	for rel, got := range vaultNotes {
		src, err := os.ReadFile(filepath.Join(basicFolder, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		_, wantBody, _, _ := vault.SplitFrontMatter(src)
		_, gotBody, _, _ := vault.SplitFrontMatter([]byte(got))
		if !bytes.Equal(gotBody, wantBody) {
			t.Errorf("%s: the text changed:\n%s", rel, gotBody)
		}
	}
	n, err := a.Notes.Read(ctx, "memory://coffee/Pour Over Technique")
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"coffee", "brewing", "gear", "kettle"} {
		if !slices.Contains(n.Tags, tag) {
			t.Errorf("tags %v lack %s", n.Tags, tag)
		}
	}
	g, err := graph.Export(ctx, a.GraphIndex)
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, e := range g.Edges {
		if e.Kind == noema.EdgeRelation {
			rels = append(rels, e.Type)
		}
	}
	slices.Sort(rels)
	if want := []string{"contrasts_with", "part_of", "taught_by", "uses", "works_with"}; !slices.Equal(rels, want) {
		t.Errorf("relations %v, want %v", rels, want)
	}
	exported := meaningOf(t, exportJSONL(t, a))
	if got, want := exported.Entities["Ana Souza"], "Person\n[fact] Roasts her own beans at home\n[role] Runs the Saturday brewing workshop #teaching"; got != want {
		t.Errorf("exported Ana Souza = %q, want %q", got, want)
	}
	if !slices.Contains(exported.Relations, "Pour Over Technique|taught_by|Ana Souza") {
		t.Errorf("exported relations %v", exported.Relations)
	}
}

// TestBasicMemoryBadInput: a folder with a bad file is refused whole,
// naming the file, and the vault is left as it was.
func TestBasicMemoryBadInput(t *testing.T) {
	good := "---\ntitle: Good\n---\n- [fact] fine\n"
	scenarios := []struct {
		Name  string
		Files map[string]string
		Code  string
		Says  string
	}{
		{"InvalidUTF8", map[string]string{"good.md": good, "bad.md": "- [fact] caf\xe9\n"}, noema.EINVALID, "bad.md: not valid UTF-8"},
		{"MalformedFrontMatter", map[string]string{"good.md": good, "bad.md": "---\ntitle: [unclosed\n---\ntext\n"}, noema.EINVALID, "bad.md"},
		{"TooLarge", map[string]string{"good.md": good, "big.md": strings.Repeat("- [fact] x\n", 200)}, noema.ETOOLARGE, "big.md: larger than max_note_bytes"},
		{"NotPortable", map[string]string{"good.md": good, "a:b.md": good}, noema.EINVALID, `a:b.md: invalid name "a:b.md"`},
		{"CollidesWithNote", map[string]string{"good.md": good, "Existing.md": "---\ntitle: Existing\npermalink: elsewhere\n---\nother\n"}, noema.ECONFLICT, "Existing.md: the vault has another note at Existing.md"},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, content := range sc.Files {
				if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			a := noematest.AppWith(t, map[string]string{"Existing.md": "---\ntitle: Existing\npermalink: mine\n---\nmine\n"})
			before := notesOf(t, a)
			s := service(a)
			s.MaxNoteBytes = 1000
			_, err := s.ImportBasicMemory(context.Background(), dir, importer.Options{})
			if noema.ErrorCode(err) != sc.Code || !strings.Contains(noema.ErrorMessage(err), sc.Says) {
				t.Fatalf("error %v, want %s saying %q", err, sc.Code, sc.Says)
			}
			if !treetest.Same(before, notesOf(t, a)) {
				t.Fatal("a refused import changed files")
			}
		})
	}
	a := noematest.AppWith(t, nil)
	if _, err := service(a).ImportBasicMemory(context.Background(), filepath.Join(t.TempDir(), "none"), importer.Options{}); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Fatalf("a missing folder: %v", err)
	}
}

// TestParseBasicMemory reads the documented line forms.
func TestParseBasicMemory(t *testing.T) {
	src := "---\ntitle: T\ntype: Person\npermalink: people/t\ntags: [a, b]\n---\n" +
		"- [decision] Use JWT tokens #security #auth (after the review)\n" +
		"* [idea] Plain star bullet\n" +
		"- [ ] an open task\n" +
		"- [x] a done task\n" +
		"- implements [[API Spec]]\n" +
		"- depends_on [[User Schema|the schema]] (since v2)\n" +
		"- [[Just a link]]\n" +
		"```\n- [code] not an observation\n- in_code [[Nope]]\n```\n"
	bn, err := importer.ParseBasicMemory("t.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if bn.Title != "T" || bn.Type != "Person" || bn.Permalink != "people/t" || !slices.Equal(bn.Tags, []string{"a", "b"}) {
		t.Fatalf("front matter %+v", bn)
	}
	want := []importer.BasicObservation{
		{Text: "[decision] Use JWT tokens #security #auth (after the review)", Category: "decision", Content: "Use JWT tokens #security #auth", Context: "after the review", Tags: []string{"security", "auth"}, Line: 7},
		{Text: "[idea] Plain star bullet", Category: "idea", Content: "Plain star bullet", Line: 8},
	}
	if len(bn.Observations) != len(want) {
		t.Fatalf("observations %+v", bn.Observations)
	}
	for i := range want {
		o := bn.Observations[i]
		if o.Text != want[i].Text || o.Category != want[i].Category || o.Content != want[i].Content || o.Context != want[i].Context || !slices.Equal(o.Tags, want[i].Tags) || o.Line != want[i].Line {
			t.Errorf("observation %d = %+v, want %+v", i, o, want[i])
		}
	}
	wantRels := []importer.BasicRelation{{Type: "implements", Target: "API Spec", Line: 11}, {Type: "depends_on", Target: "User Schema", Context: "since v2", Line: 12}}
	if !slices.Equal(bn.Relations, wantRels) {
		t.Errorf("relations %+v, want %+v", bn.Relations, wantRels)
	}
}

// basicMemorySeeds adds the fuzz seeds of ParseBasicMemory.
func basicMemorySeeds(f *testing.F) {
	for _, name := range []string{"coffee/Pour Over Technique.md", "people/Ana Souza.md", "Tea Brewing.md"} {
		data, err := os.ReadFile(filepath.Join(basicFolder, filepath.FromSlash(name)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("---\ntitle: [\n---\n- [a] b (c)\n- r [[T]]\n"))
}

// checkBasicMemory checks ParseBasicMemory on data: the parser never panics, fails only with
// invalid_argument naming the file, and what it finds is on lines of the
// file with the parts the format requires.
func checkBasicMemory(t *testing.T, data []byte) {
	bn, err := importer.ParseBasicMemory("f.md", data)
	if err != nil {
		if noema.ErrorCode(err) != noema.EINVALID || !strings.HasPrefix(noema.ErrorMessage(err), "f.md") {
			t.Fatalf("error %v", err)
		}
		return
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	for _, o := range bn.Observations {
		if o.Category == "" || o.Line < 1 || o.Line > lines || !strings.HasPrefix(o.Text, "[") {
			t.Fatalf("observation %+v of %d lines", o, lines)
		}
	}
	for _, r := range bn.Relations {
		if r.Type == "" || r.Target == "" || r.Line < 1 || r.Line > lines {
			t.Fatalf("relation %+v of %d lines", r, lines)
		}
	}
}

package importer_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/importer"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
)

var mem0File = filepath.Join("testdata", "mem0.json")

func importMem0(t *testing.T, s *importer.Service, data string) (*importer.Report, error) {
	t.Helper()
	return s.ImportMem0(context.Background(), strings.NewReader(data), importer.Options{})
}

// TestMem0 imports a mem0 export: one dated note per memory under
// mem0/<user>/, the memory its text and its ids and times in its front
// matter; a second run, even after the notes were edited, skips every
// memory by its id.
func TestMem0(t *testing.T) {
	ctx := context.Background()
	a := noematest.AppWith(t, nil)
	data, err := os.ReadFile(mem0File)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := importMem0(t, service(a), string(data))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts != (importer.Counts{Created: 4}) {
		t.Fatalf("counts %+v: %s", rep.Counts, rep.Message)
	}
	files := notesOf(t, a)
	maria := files["mem0/maria/2025-03-14 Prefers oat milk in coffee.md"]
	for _, want := range []string{"title: 2025-03-14 Prefers oat milk in coffee\n", `created: "2025-03-14T15:12:45Z"`, "mem0_id: 6f1c2a9e-0b7d-4c1e-9a53-2f8e4d7b1c01\n",
		"user_id: maria\n", "  - preferences\n", "source: chat", "---\nPrefers oat milk in coffee\n"} {
		if !strings.Contains(maria, want) {
			t.Errorf("maria's note lacks %q:\n%s", want, maria)
		}
	}
	for _, rel := range []string{"mem0/li/2025-03-14 Prefers oat milk in coffee.md", "mem0/agent review-bot/2025-04-02 Summarizes pull requests in three bullet points.md",
		"mem0/maria/2025-04-02 Is training for a half marathon in October.md"} {
		if _, ok := files[rel]; !ok {
			t.Errorf("no note %s among %d", rel, len(files))
		}
	}
	n, err := a.Notes.Read(ctx, "memory://mem0/maria/2025-04-02 Is training for a half marathon in October")
	if err != nil || n.Title != "2025-04-02 Is training for a half marathon in October" || !strings.Contains(n.Content, "updated: \"2025-05-20T07:30:00Z\"") {
		t.Fatalf("note %+v, %v", n, err)
	}

	// Edited since: still the same memory, by its id.
	rel := "mem0/maria/2025-03-14 Prefers oat milk in coffee.md"
	if err := os.WriteFile(filepath.Join(a.Vault.Root, rel), []byte(maria+"Also likes cardamom.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noematest.Sync(t, a)
	before := notesOf(t, a)
	again, err := importMem0(t, service(a), string(data))
	if err != nil {
		t.Fatal(err)
	}
	if again.Counts != (importer.Counts{Skipped: 4}) || len(again.Files) != 0 || !treetest.Same(before, notesOf(t, a)) {
		t.Fatalf("second run %+v, files %v", again.Counts, again.Files)
	}
}

// TestMem0BadInput: each bad export is refused with a stable code naming
// the memory or line, and the vault is left as it was.
func TestMem0BadInput(t *testing.T) {
	one := `{"id":"m1","memory":"Likes tea","user_id":"ana","created_at":"2025-01-02T03:04:05Z"}`
	scenarios := []struct {
		Name  string
		Input string
		Code  string
		Says  string
	}{
		{"Truncated", "[\n" + one + ",\n" + `{"id":"m2","memo`, noema.EINVALID, "line 3: not valid JSON (truncated"},
		{"InvalidUTF8", "[\n" + `{"id":"m1","memory":"caf` + "\xe9" + `"}]`, noema.EINVALID, "line 2: not valid UTF-8"},
		{"NoList", `{"count": 3}`, noema.EINVALID, "holds no list of memories"},
		{"NotAnObject", `[` + one + `, 42]`, noema.EINVALID, "memory 2: not a memory object"},
		{"NoText", `[{"id":"m1"}]`, noema.EINVALID, `memory 1 (id m1): a memory needs a string "id" and "memory"`},
		{"BadTime", `[{"id":"m1","memory":"x","created_at":"yesterday"}]`, noema.EINVALID, `memory 1 (id m1): created_at "yesterday" is not an ISO 8601 time`},
		{"PathTrick", `[{"id":"m1","memory":"x","user_id":"../../etc"}]`, noema.EINVALID, `memory 1 (id m1): user_id "../../etc" is a path that leaves its folder`},
		{"SameID", `{"results":[` + one + `,` + one + `]}`, noema.ECONFLICT, "memory 2 (id m1): memory 1 has the same id"},
		{"CollidesWithNote", `[` + one + `]`, noema.ECONFLICT, "memory 1 (id m1): its note would be mem0/ana/2025-01-02 Likes tea.md, which holds a note that is not this memory"},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			a := noematest.AppWith(t, map[string]string{"mem0/ana/2025-01-02 Likes tea.md": "my own note\n"})
			before := notesOf(t, a)
			_, err := importMem0(t, service(a), sc.Input)
			if noema.ErrorCode(err) != sc.Code || !strings.Contains(noema.ErrorMessage(err), sc.Says) {
				t.Fatalf("error %v, want %s saying %q", err, sc.Code, sc.Says)
			}
			if !treetest.Same(before, notesOf(t, a)) {
				t.Fatal("a refused import changed files")
			}
		})
	}
}

// mem0Seeds adds the fuzz seeds of ParseMem0.
func mem0Seeds(f *testing.F) {
	seed, err := os.ReadFile(mem0File)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`[{"id":"a","memory":"b","user_id":"c","created_at":"2025-01-01 00:00:00"}]`))
	f.Add([]byte(`{"memories":[{"id":"a","memory":"b","agent_id":"../x"}]}`))
}

// checkMem0 checks ParseMem0 on data: the parser never panics, fails only with its codes, and
// every memory it accepts has an id, a place and names that stay in
// their folder.
func checkMem0(t *testing.T, data []byte) {
	mems, err := importer.ParseMem0(bytes.NewReader(data))
	if err != nil {
		if code := noema.ErrorCode(err); code != noema.EINVALID {
			t.Fatalf("code %s: %v", code, err)
		}
		return
	}
	for i, m := range mems {
		if m.ID == "" || m.Index != i+1 {
			t.Fatalf("memory %d: %+v", i, m)
		}
		for _, name := range []string{m.UserID, m.AgentID, m.RunID, m.AppID} {
			if strings.HasPrefix(name, "/") || strings.Contains("/"+name+"/", "/../") {
				t.Fatalf("memory %d: a path name %q", i, name)
			}
		}
	}
}

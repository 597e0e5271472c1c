package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type importOut struct {
	Counts    struct{ Created, Skipped, CouldNotMap int }
	Files     []string
	Operation string
	Message   string
}

// TestImportCommands runs each import from the command line on its
// package's fixture: --dry-run writes nothing, the import is one operation
// that noema undo reverts, a second run skips everything, and a bad file
// exits 1 with its code.
func TestImportCommands(t *testing.T) {
	fixtures := filepath.Join("..", "importer", "testdata")
	scenarios := []struct {
		Name    string
		Args    []string
		Created int
	}{
		{"MemoryJSONL", []string{"import", "memory-jsonl", filepath.Join(fixtures, "memory.jsonl")}, 13},
		{"BasicMemory", []string{"import", "basic-memory", filepath.Join(fixtures, "basic-memory")}, 17},
		{"Mem0", []string{"import", "mem0", filepath.Join(fixtures, "mem0.json")}, 4},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			vault := filepath.Join(t.TempDir(), "vault")
			var dry, first, again importOut
			runJSON(t, vault, 0, &dry, append(sc.Args, "--dry-run")...)
			if dry.Counts.Created != sc.Created || dry.Operation != "" || notesIn(t, vault) != 0 {
				t.Fatalf("dry run %+v wrote %d notes", dry, notesIn(t, vault))
			}
			runJSON(t, vault, 0, &first, sc.Args...)
			if first.Counts.Created != sc.Created || first.Operation == "" || notesIn(t, vault) != len(first.Files) {
				t.Fatalf("import %+v, %d notes", first, notesIn(t, vault))
			}
			runJSON(t, vault, 0, &again, sc.Args...)
			if again.Counts.Created != 0 || again.Counts.Skipped != sc.Created || len(again.Files) != 0 {
				t.Fatalf("second run %+v", again)
			}
			if out, code := run(t, vault, "", sc.Args...); code != 0 || !strings.Contains(out, "created nothing") {
				t.Fatalf("text: exit %d, %q", code, out)
			}
			runJSON(t, vault, 0, nil, "undo", first.Operation)
			if n := notesIn(t, vault); n != 0 {
				t.Fatalf("undo left %d notes", n)
			}
		})
	}

	vault := filepath.Join(t.TempDir(), "vault")
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"type":"entity","name":"A","entityType":"x"}`+"\n"+`{"type":"entity","na`), 0o644); err != nil {
		t.Fatal(err)
	}
	var refused errOut
	runJSON(t, vault, 1, &refused, "import", "memory-jsonl", bad)
	if refused.Error.Code != "invalid_argument" || !strings.HasPrefix(refused.Error.Message, "line 2: ") {
		t.Fatalf("a truncated file: %+v", refused)
	}
	runJSON(t, vault, 1, &refused, "import", "mem0", filepath.Join(t.TempDir(), "missing.json"))
	if refused.Error.Code != "not_found" {
		t.Fatalf("a missing file: %+v", refused)
	}
}

// notesIn counts the Markdown files of the vault outside dot-folders.
func notesIn(t *testing.T, vault string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(vault, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			n++
		}
		return nil
	})
	return n
}

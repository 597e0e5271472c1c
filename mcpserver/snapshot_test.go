package mcpserver_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/noema-mem/noema/mcpserver"
)

var update = flag.Bool("update", false, "rewrite the tool snapshots in testdata/tools")

// TestToolSnapshots pins every tool's definition (name, description,
// annotations, input and output schemas) to testdata/tools/<name>.json, so
// a change to what clients see is always a reviewed change. Run with
// -update to rewrite them; a missing snapshot is a failure, never written
// silently.
func TestToolSnapshots(t *testing.T) {
	dir := filepath.Join("testdata", "tools")
	seen := map[string]bool{}
	for _, tool := range listTools(t, mcpserver.Options{}) {
		got, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join(dir, tool.Name+".json")
		seen[tool.Name+".json"] = true
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: no snapshot (run go test ./mcpserver -run ToolSnapshots -update): %v", tool.Name, err)
			continue
		}
		if string(want) != string(got) {
			t.Errorf("%s: definition differs from %s (run with -update if intended):\n%s", tool.Name, path, got)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !seen[e.Name()] {
			t.Errorf("snapshot %s has no tool", e.Name())
		}
	}
}

package indexer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/vault"
)

// TestIncrementalRegistryMatchesFull makes random edits through SyncPaths
// (the path note operations take) and checks after each one that a full
// recompute of the concept registry would change nothing.
func TestIncrementalRegistryMatchesFull(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := open(t, dir)
	r := rand.New(rand.NewPCG(7, 11))
	words := []string{"Alpha", "beta", "Gamma Ray", "gamma-ray", "Delta", "epsilon", "Zeta", "Note Three", "note_seven"}
	names := []string{"note one", "note two", "Note Three", "note four", "Note Five", "note six", "note seven"}
	for step := range 300 {
		name := names[r.IntN(len(names))]
		rel := vault.Slug(name) + ".md"
		var content string
		switch r.IntN(10) {
		case 0:
			os.Remove(filepath.Join(dir, rel))
		case 1:
			content = fmt.Sprintf("---\naliases: [%s]\n---\n[[%s]]\n", words[r.IntN(len(words))], words[r.IntN(len(words))])
		case 2:
			content = fmt.Sprintf("---\nconcept: %s\n---\nA page.\n", words[r.IntN(len(words))])
		case 3:
			content = fmt.Sprintf("---\nmodified: 2026-0%d-01\n---\n[[%s]]\n", 1+r.IntN(9), words[r.IntN(len(words))])
		default:
			var links []string
			for range r.IntN(4) {
				links = append(links, "[["+words[r.IntN(len(words))]+"]]")
			}
			content = strings.Join(links, " ") + "\n"
		}
		if content != "" {
			treetest.Write(t, dir, rel, content)
		}
		if _, err := ix.SyncPaths(ctx, []string{rel}, ""); err != nil {
			t.Fatal(err)
		}
		incremental := noematest.ConceptTables(t, ix.DB)
		if full := noematest.Recomputed(t, ix.DB, vault.Key); full != incremental {
			t.Fatalf("step %d (%s = %q): incremental registry differs from a full recompute:\n%s", step, rel, content, firstDiff(full, incremental))
		}
	}
}

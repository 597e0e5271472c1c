package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema/internal/treetest"
)

// notesOf returns the vault's notes: its files outside .noema but the
// temporary files a killed writer leaves (sync removes them after 5
// minutes).
func notesOf(t *testing.T, vault string) map[string]string {
	t.Helper()
	out := treetest.Files(t, vault)
	for p := range out {
		if strings.HasPrefix(p, ".noema/") || strings.HasPrefix(filepath.Base(p), ".") {
			delete(out, p)
		}
	}
	return out
}

// TestUndoKilled: noema undo of a 300-note merge killed with SIGKILL at
// random moments leaves, once the vault is opened again, every note as the
// merge left it and no undo in the history, or every note as before the
// merge and the undo in the history — never a mix.
func TestUndoKilled(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	for i := range 300 {
		treetest.Write(t, vault, fmt.Sprintf("n/note %03d.md", i), fmt.Sprintf("# Note %d\n\nOn [[GC]] and [[Garbage Collection]].\n", i))
	}
	runJSON(t, vault, 0, nil, "sync")
	runJSON(t, vault, 0, nil, "concept", "merge", "GC", "--into", "Garbage Collection", "--apply", "--force")
	type history struct {
		Operations []struct{ ID, Tool string }
		Total      int
	}
	newest := func() (string, int) {
		var h history
		runJSON(t, vault, 0, &h, "history", "--limit", "1")
		return h.Operations[0].ID, h.Total
	}
	merged := notesOf(t, vault)
	id, _ := newest()
	start := time.Now()
	runJSON(t, vault, 0, nil, "undo", id)
	full := time.Since(start)
	original := notesOf(t, vault)
	if treetest.Same(original, merged) {
		t.Fatal("the undo changed nothing")
	}
	states := map[bool]map[string]string{true: merged, false: original}
	isMerged := false
	kills, done := 0, 0
	for round := range 12 {
		id, total := newest()
		cmd := exec.Command(binary, "--vault", vault, "undo", id)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.Int64N(int64(full))))
		cmd.Process.Kill() // SIGKILL
		err := cmd.Wait()
		killed := err != nil && strings.Contains(err.Error(), "killed")
		if killed {
			kills++
		}
		_, after := newest() // opening the vault recovers
		got := notesOf(t, vault)
		switch {
		case treetest.Same(got, states[!isMerged]):
			if after != total+1 {
				t.Fatalf("round %d: the undo is done, but the history holds %d operations, was %d", round, after, total)
			}
			isMerged = !isMerged
			done++
		case treetest.Same(got, states[isMerged]):
			if after != total {
				t.Fatalf("round %d: the undo is not done, but the history holds %d operations, was %d", round, after, total)
			}
		default:
			var diff []string
			for p, c := range got {
				if states[isMerged][p] != c && states[!isMerged][p] != c {
					diff = append(diff, p)
				}
			}
			t.Fatalf("round %d (killed %v): the notes are neither before nor after the undo: %d files %v; %d files, want %d", round, killed, len(diff), diff[:min(len(diff), 5)], len(got), len(merged))
		}
		if _, err := os.Stat(filepath.Join(vault, ".noema", "changeset.journal")); err == nil {
			t.Fatalf("round %d: a journal is left after recovery", round)
		}
	}
	t.Logf("%d of 12 undos killed, %d done (a full undo takes %s)", kills, done, full.Round(time.Millisecond))
}

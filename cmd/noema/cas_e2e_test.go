package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestCLISameChecksumEditsAcrossProcesses runs pairs of `noema note edit
// --checksum C` processes at once against one note: exactly one of each
// pair may succeed (exit 0), the other must fail with checksum_mismatch,
// and every acknowledged line must be in the file.
func TestCLISameChecksumEditsAcrossProcesses(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	var w struct{ URI, Checksum string }
	runJSON(t, vault, 0, &w, "note", "write", "--title", "Shared", "--content", "start")
	const pairs = 12
	var acked []string
	for i := range pairs {
		var r struct{ Checksum string }
		runJSON(t, vault, 0, &r, "note", "read", w.URI)
		var wg sync.WaitGroup
		outs := make([]string, 2)
		codes := make([]int, 2)
		for j := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, _, code, err := execute(vault, "", "--json", "note", "edit", w.URI,
					"--op", "append", "--content", fmt.Sprintf("line %d-%d", i, j), "--checksum", r.Checksum)
				if err != nil {
					code = -1
				}
				outs[j], codes[j] = out, code
			}()
		}
		wg.Wait()
		ok := 0
		for j := range 2 {
			switch {
			case codes[j] == 0:
				ok++
				acked = append(acked, fmt.Sprintf("line %d-%d", i, j))
			case codes[j] == 1 && strings.Contains(outs[j], "checksum_mismatch"):
			default:
				t.Fatalf("pair %d, process %d: exit %d: %s", i, j, codes[j], outs[j])
			}
		}
		if ok != 1 {
			t.Fatalf("pair %d: %d processes acknowledged, want exactly 1: %q", i, ok, outs)
		}
	}
	b, err := os.ReadFile(filepath.Join(vault, "Shared.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range acked {
		if !strings.Contains(string(b), line+"\n") {
			t.Errorf("acknowledged %q lost", line)
		}
	}
}

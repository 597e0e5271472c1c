package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/noema-mem/noema/internal/corpus"
)

var bounds = flag.Bool("bounds", false, "run TestBounds: memory and time of every process with a 10,000- and a 100,000-link note in a 10,000-note vault")

// boundsRun is one process of TestBounds: its peak resident memory and
// wall time.
type boundsRun struct {
	maxRSS int64 // bytes
	wall   time.Duration
}

// measure runs the binary on vault and returns its peak RSS and wall time;
// a non-zero exit fails the test.
func measure(t *testing.T, vault string, args ...string) boundsRun {
	t.Helper()
	// The child's peak RSS starts at this process's at the fork (Go
	// starts children with vfork): keep it small.
	debug.FreeOSMemory()
	cmd := exec.Command(binary, append([]string{"--vault", vault}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("noema %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage on this platform")
	}
	return boundsRun{maxRSS: int64(ru.Maxrss) * 1024, wall: wall}
}

// linkList writes a note of n distinct links, each to a new concept named
// by four base-36 digits after prefix (about 9 bytes a link).
func linkList(t *testing.T, path, prefix string, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("# " + prefix + " list\n\n")
	for i := range n {
		s := strconv.FormatInt(int64(i), 36)
		fmt.Fprintf(&b, "[[%s%s]] ", prefix, strings.Repeat("0", 4-len(s))+s)
		if i%10 == 9 {
			b.WriteByte('\n')
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBounds checks issue 19's bounds on whole processes (the real
// binary, peak RSS from getrusage): in a 10,000-note generated vault, a
// note of 10,000 distinct links adds at most 100 MB to any process
// (sync, every analyze_graph op, build_context at depth 4, export), and
// with a 100,000-link file (900 KB) no process exceeds 1 GB and every
// analyze_graph op answers within 10 s. (A child's peak RSS includes this
// process's at the fork, so the figures are upper bounds.) Before
// co-occurrence was bounded
// (graph.CooccurrenceWindow) the first cost 2.3–2.9 GB and the second
// ~24 GB, until the kernel killed it. It takes a few minutes:
//
//	go test -count=1 -timeout 30m -v -run '^TestBounds$' ./cmd/noema/ -bounds
func TestBounds(t *testing.T) {
	if !*bounds {
		t.Skip("run with -bounds: go test -count=1 -timeout 30m -v -run '^TestBounds$' ./cmd/noema/ -bounds")
	}
	vault := filepath.Join(t.TempDir(), "vault")
	m, err := corpus.Generate(context.Background(), vault, corpus.Options{Seed: 42, Notes: 10000})
	if err != nil {
		t.Fatal(err)
	}
	hub := m.Concepts[0].Label
	analyze := [][]string{
		{"graph", "analyze", "pagerank"},
		{"graph", "analyze", "communities"},
		{"graph", "analyze", "centrality"},
		{"graph", "analyze", "predict_links"},
		{"graph", "analyze", "paths", "--from", hub, "--to", m.Concepts[1].Label},
	}
	others := [][]string{
		{"context", hub, "--depth", "4"},
		{"context", "b0000", "--depth", "4"},
		{"graph", "export"},
	}
	// round syncs, then runs every command once, and returns what each
	// process cost, by command.
	round := func(name string) map[string]boundsRun {
		out := map[string]boundsRun{}
		r := measure(t, vault, "sync")
		out["sync"] = r
		t.Logf("%-8s %-40s %7.0f MB %8.2fs", name, "sync", float64(r.maxRSS)/1e6, r.wall.Seconds())
		for _, args := range append(append([][]string{}, analyze...), others...) {
			if args[0] == "context" && args[1] == "b0000" && name == "base" {
				continue // the list's concept does not exist yet
			}
			r := measure(t, vault, args...)
			key := strings.Join(args[:min(3, len(args))], " ")
			out[key] = r
			t.Logf("%-8s %-40s %7.0f MB %8.2fs", name, key, float64(r.maxRSS)/1e6, r.wall.Seconds())
		}
		return out
	}
	base := round("base")
	linkList(t, filepath.Join(vault, "lists", "ten-thousand.md"), "b", 10000)
	ten := round("10k")
	for k, r := range ten {
		b, ok := base[k]
		if !ok {
			b = base["context "+hub+" --depth"]
		}
		if d := r.maxRSS - b.maxRSS; d > 100e6 {
			t.Errorf("%s: a 10,000-link note adds %.0f MB (%.0f → %.0f MB), want ≤ 100 MB", k, float64(d)/1e6, float64(b.maxRSS)/1e6, float64(r.maxRSS)/1e6)
		}
	}
	linkList(t, filepath.Join(vault, "lists", "hundred-thousand.md"), "h", 100000)
	hundred := round("100k")
	for k, r := range hundred {
		if r.maxRSS > 1e9 {
			t.Errorf("%s with a 100,000-link file: %.0f MB, want ≤ 1 GB", k, float64(r.maxRSS)/1e6)
		}
		if strings.HasPrefix(k, "graph analyze") && r.wall > 10*time.Second {
			t.Errorf("%s with a 100,000-link file: %v, want ≤ 10 s", k, r.wall)
		}
	}
}

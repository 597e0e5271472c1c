package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var scaleWrites = flag.String("scale-writes", "", "run BenchmarkScaleWrites at this size: 10k, 30k or 100k")

// BenchmarkScaleWrites measures the write rows of BenchmarkScale —
// write_note, edit_note (append) and build_context right after a write, over
// MCP — and the first build_context, without the sync rows: the vault of
// -scale-writes is synced with --embed once into -scale-cache (kept for
// later runs, by the binary measured first), copied with its index for
// every run and synced again (the copy's new inodes), then `noema serve`
// answers -scale-ops rounds of each call. -scale-bin measures another
// build, so two builds can be compared on one machine state in minutes
// rather than the hour a 100k BenchmarkScale takes:
//
//	go test -run '^$' -bench ScaleWrites -benchtime 1x ./cmd/noema/ -scale-writes=100k -scale-bin OLD
//
// -scale-pprof DIR saves a CPU profile of the server from the first write.
func BenchmarkScaleWrites(b *testing.B) {
	if *scaleWrites == "" {
		b.Skip("run with -scale-writes=10k|30k|100k")
	}
	mode, ok := scaleModes[*scaleWrites]
	if !ok || mode.notes == 0 {
		b.Fatalf("-scale-writes: unknown size %q", *scaleWrites)
	}
	src, sv := cachedVault(b, mode)
	// Cached as synced-<size> (synced-100k), where other benchmarks look for it.
	vault := filepath.Join(b.TempDir(), "vault")
	syncedCopy(b, *scaleWrites, src, vault)
	ctx := context.Background()
	start := time.Now()
	url, _, prof := startServe(b, vault)
	var cs *mcp.ClientSession
	for {
		var err error
		cs, err = mcp.NewClient(&mcp.Implementation{Name: "scale", Version: "v0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err == nil {
			break
		}
		if time.Since(start) > 5*time.Minute {
			b.Fatalf("the server did not answer within 5 minutes: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		d := time.Since(t0)
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			b.Fatalf("%s %v: %s", name, args, res.Content[0].(*mcp.TextContent).Text)
		}
		return d
	}
	call("find_concepts", map[string]any{"query": sv.Queries[0], "limit": 20})
	b.Logf("serve: start to first answer %.2f s", time.Since(start).Seconds())
	first := call("build_context", map[string]any{"concept": sv.Others[1]})
	// With -scale-pprof, a CPU profile of -scale-pprof-cpu seconds from the
	// first write (cpu-writes.pprof): with -scale-ops large enough, of the
	// write_note rounds and what they start in the background.
	stopCPU := prof.cpu(b, "writes")
	writes, edits, contexts := writeRounds(sv, *scaleOps, call)
	stopCPU()
	ms := func(d []time.Duration) string {
		s := slices.Clone(d)
		slices.Sort(s)
		return fmt.Sprintf("p50 %.1f max %.1f", msOf(p50(d)), msOf(s[len(s)-1]))
	}
	fmt.Printf("%s: first build_context %.1f ms | write_note %s | edit_note %s | build_context after a write %s\n",
		mode.name, msOf(first), ms(writes), ms(edits), ms(contexts))
	b.ReportMetric(msOf(p50(writes)), "write-p50-ms")
	b.ReportMetric(msOf(p50(edits)), "edit-p50-ms")
	b.ReportMetric(msOf(p50(contexts)), "context-after-write-p50-ms")
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/internal/benchdata"
	"github.com/noema-mem/noema/internal/corpus"
)

var (
	scaleFlag       = flag.String("scale", "", "run BenchmarkScale at these comma-separated sizes: 10k, 30k, 100k (generated notes) or 100k-concepts, 1m-concepts (label vaults)")
	scaleDir        = flag.String("scale-cache", filepath.Join(os.TempDir(), "noema-scale"), "BenchmarkScale keeps its generated vaults here and copies them for every run")
	scaleOps        = flag.Int("scale-ops", 20, "BenchmarkScale: writes, edits and build_context rounds measured at each size")
	scaleBin        = flag.String("scale-bin", "", "BenchmarkScale measures this noema binary instead of this tree's (to compare builds side by side on one machine)")
	scaleSynced     = flag.Bool("scale-synced", false, "BenchmarkScale: serve a copy of a vault synced with --embed once (kept in -scale-cache as synced-SIZE) and skip the cold, no-op and --embed sync rows")
	scaleSettle     = flag.Duration("scale-settle", 0, "BenchmarkScale: after the rounds, ask build_context every 5 s, up to this long, until its community is current (not stale, not still being computed), and report the server's peak RSS then")
	scalePprofCPU   = flag.Int("scale-pprof-cpu", 10, "BenchmarkScale with -scale-pprof: seconds of the CPU profile taken from the first find_concepts round")
	scalePprof      = flag.String("scale-pprof", "", "BenchmarkScale: save the server's heap profiles (after the first answer, after the first search, at the end) and a CPU profile of the find_concepts rounds into this folder (the server's NOEMA_PPROF)")
	scaleFindWait   = flag.Duration("scale-find-wait", 0, "BenchmarkScale: wait this long after the first search before the find_concepts rounds (their cost once the start's background work has ended, against their cost beside it)")
	scaleTrace      = flag.Duration("scale-trace", 0, "BenchmarkScale with -scale-pprof: also save an execution trace of the server of this long from the first find_concepts round (trace-find.out; go tool trace -pprof=sched shows how long goroutines waited for a processor)")
	scaleStderr     = flag.String("scale-stderr", "", "BenchmarkScale: write the server's standard error after its first line to this file (with GODEBUG=gctrace=1 in the environment: its collections)")
	scalePprofStart = flag.Bool("scale-pprof-start", false, "BenchmarkScale with -scale-pprof: take the CPU profile from the server's start (its first answer and what it starts beside) instead of from the find_concepts rounds")
)

// scaleMode is one size BenchmarkScale runs at.
type scaleMode struct {
	name     string
	notes    int // generated notes (corpus); 0 for a label vault
	concepts int // labels of a label vault (100 links a note)
}

var scaleModes = map[string]scaleMode{
	"10k":           {name: "10k notes", notes: 10000},
	"30k":           {name: "30k notes", notes: 30000},
	"100k":          {name: "100k notes", notes: 100000},
	"100k-concepts": {name: "100k concepts", concepts: 100000},
	"1m-concepts":   {name: "1M concepts", concepts: 1000000},
}

// scaleRow is one row of issue 21's table: its name and its target.
type scaleRow struct{ key, name, target string }

var scaleRows = []scaleRow{
	{"write", "write_note p50 (1.5 KB, 8 links, one to the hub)", "≤ 15 ms at 10k and 100k notes"},
	{"edit", "edit_note append p50 (a hub link)", "≤ 15 ms at 10k and 100k notes"},
	{"context", "build_context right after a write, p50 / max", "≤ 50 ms at 100k notes"},
	{"search", "first hybrid search after start", "≤ 1 s at 100k notes"},
	{"rss", "server RSS idle → after first search", "≤ 1 GB at 100k notes, ≤ 3 GB at 1M concepts"},
	{"peak", "server peak RSS (VmHWM, whole run)", "≤ 1 GB at 100k notes, ≤ 3 GB at 1M concepts"},
	{"start", "serve: start to first answer", "≤ 5 s at 1M concepts"},
	{"cold", "cold sync: wall, peak RSS", "≤ 30 s at 100k notes"},
	{"embed", "sync --embed: wall, peak RSS", "peak ≤ 2 GB at 1M concepts"},
	{"noop", "no-op re-sync", "≤ 0.3 s at 100k notes"},
	{"find", "find_concepts p50 (typos)", "≤ 50 ms at 1M concepts"},
	{"settled", "server peak RSS once build_context's communities are current (-scale-settle)", "≤ 3 GB at 1M concepts"},
	{"similar", "find_similar_concepts p50 (first call)", "(no target: the first call waits for the concept vectors)"},
}

// BenchmarkScale measures issue 21's table with the real binary at each
// size named by -scale: sync (cold, no-op, --embed) as processes of their
// own (wall time and peak RSS from getrusage), then `noema serve` and, over
// MCP (streamable HTTP, the SDK client), the time from its start to the
// first answer, the first hybrid search, find_concepts, write_note,
// edit_note and build_context right after a write, with the server's
// resident memory read from its /proc status (VmRSS, and VmHWM, its peak).
// It prints the rows beside their targets, one column a size; the targets
// are checked by reading, not asserted (a loaded machine moves them).
// Vaults are generated once into -scale-cache and copied for every run:
//
//	go test -run '^$' -bench Scale -benchtime 1x -timeout 2h ./cmd/noema/ -scale=10k,100k
//	go test -run '^$' -bench Scale -benchtime 1x -timeout 2h ./cmd/noema/ -scale=1m-concepts
//
// 10k notes take about a minute; the first 100k run generates its vault
// (a few minutes) and syncs it three times.
func BenchmarkScale(b *testing.B) {
	if *scaleFlag == "" {
		b.Skip("run with -scale=10k|30k|100k|100k-concepts|1m-concepts (comma-separated)")
	}
	var names []string
	results := map[string]map[string]string{}
	for _, key := range strings.Split(*scaleFlag, ",") {
		mode, ok := scaleModes[key]
		if !ok {
			b.Fatalf("-scale: unknown size %q", key)
		}
		names = append(names, mode.name)
		b.Run(key, func(b *testing.B) {
			results[mode.name] = runScale(b, mode)
		})
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n| | %s | target |\n|---|", strings.Join(names, " | "))
	sb.WriteString(strings.Repeat("---|", len(names)+1) + "\n")
	for _, r := range scaleRows {
		fmt.Fprintf(&sb, "| %s |", r.name)
		for _, n := range names {
			v := results[n][r.key]
			if v == "" {
				v = "–"
			}
			fmt.Fprintf(&sb, " %s |", v)
		}
		fmt.Fprintf(&sb, " %s |\n", r.target)
	}
	fmt.Print(sb.String())
}

// scaleVault is a generated vault and what the benchmark needs of it.
type scaleVault struct {
	Hub     string   `json:"hub"`     // the most linked concept
	Others  []string `json:"others"`  // other concepts, most linked first
	Queries []string `json:"queries"` // find_concepts queries (misspelt labels)
	Notes   []string `json:"notes"`   // paths of existing notes to edit
}

// cachedVault generates the vault of mode into -scale-cache once (a
// "ready.json" file marks it complete) and returns its folder.
func cachedVault(b *testing.B, mode scaleMode) (string, scaleVault) {
	key := fmt.Sprintf("notes-%d", mode.notes)
	if mode.notes == 0 {
		key = fmt.Sprintf("labels-%d", mode.concepts)
	}
	dir := filepath.Join(*scaleDir, key)
	ready := filepath.Join(dir, "ready.json")
	var sv scaleVault
	if data, err := os.ReadFile(ready); err == nil {
		if err := json.Unmarshal(data, &sv); err != nil {
			b.Fatal(err)
		}
		return filepath.Join(dir, "vault"), sv
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	vault := filepath.Join(dir, "vault")
	t0 := time.Now()
	if mode.notes > 0 {
		m, err := corpus.Generate(context.Background(), vault, corpus.Options{Seed: 42, Notes: mode.notes})
		if err != nil {
			b.Fatal(err)
		}
		sv.Hub = m.Concepts[0].Label
		for _, c := range m.Concepts[1:min(len(m.Concepts), 400)] {
			sv.Others = append(sv.Others, c.Label)
		}
		for i := 0; len(sv.Queries) < 50; i += 7 {
			l := m.Concepts[i%len(m.Concepts)].Label
			// A typo: one letter dropped from the middle.
			p := len(l) / 2
			sv.Queries = append(sv.Queries, l[:p]+l[p+1:])
		}
		for i := 0; len(sv.Notes) < 200; i += len(m.Notes) / 200 {
			sv.Notes = append(sv.Notes, m.Notes[i].Path)
		}
	} else {
		labels := benchdata.Labels(mode.concepts)
		if err := benchdata.WriteVault(vault, labels, 100); err != nil {
			b.Fatal(err)
		}
		sv.Hub = labels[0]
		sv.Others = slices.Clone(labels[1:400])
		sv.Queries = benchdata.Generate().Queries
		for i := 0; len(sv.Notes) < 200; i += mode.concepts / 100 / 200 {
			sv.Notes = append(sv.Notes, fmt.Sprintf("n%06d.md", i*100))
		}
	}
	data, err := json.Marshal(sv)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(ready, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %s in %v", vault, time.Since(t0).Round(time.Second))
	return vault, sv
}

// copyTree copies the files under src (not .noema) to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".noema" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return err
		}
		return os.Chtimes(out, info.ModTime(), info.ModTime())
	})
}

// runScale measures every row at one size and returns the cells by row key.
func runScale(b *testing.B, mode scaleMode) map[string]string {
	src, sv := cachedVault(b, mode)
	vault := filepath.Join(b.TempDir(), "vault")
	cells := map[string]string{}
	mb := func(bytes int64) string { return fmt.Sprintf("%.0f MB", float64(bytes)/1e6) }
	if *scaleSynced {
		key := fmt.Sprintf("notes-%d", mode.notes)
		if mode.notes == 0 {
			key = fmt.Sprintf("labels-%d", mode.concepts)
		}
		syncedCopy(b, key, src, vault)
		for _, k := range []string{"cold", "noop", "embed"} {
			cells[k] = "(synced copy)"
		}
	} else {
		if err := copyTree(src, vault); err != nil {
			b.Fatal(err)
		}
		debug.FreeOSMemory()
		cold := measureScale(b, vault, "sync")
		cells["cold"] = fmt.Sprintf("%.1f s, %s", cold.wall.Seconds(), mb(cold.maxRSS))
		b.ReportMetric(cold.wall.Seconds(), "cold-sync-s")
		noop := measureScale(b, vault, "sync")
		cells["noop"] = fmt.Sprintf("%.2f s", noop.wall.Seconds())
		b.ReportMetric(noop.wall.Seconds(), "noop-sync-s")
		embed := measureScale(b, vault, "sync", "--embed")
		cells["embed"] = fmt.Sprintf("%.1f s, %s", embed.wall.Seconds(), mb(embed.maxRSS))
		b.ReportMetric(float64(embed.maxRSS)/1e6, "embed-peak-MB")
	}

	ctx := context.Background()
	start := time.Now()
	url, pid, prof := startServe(b, vault)
	stopStartCPU := func() {}
	if *scalePprofStart {
		stopStartCPU = prof.cpu(b, "start")
	}
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
	first := time.Since(start)
	// On a shared machine the wall time is mostly waiting for a core: the
	// server's own CPU time says what the first answer costs.
	cells["start"] = fmt.Sprintf("%.2f s (%.1f CPU s)", first.Seconds(), procCPU(pid))
	b.ReportMetric(first.Seconds(), "first-answer-s")
	idle := procStatus(pid, "VmRSS")
	prof.heap(b, "first-answer")
	search := call("search_notes", map[string]any{"query": sv.Others[3] + " " + sv.Others[10]})
	cells["search"] = fmt.Sprintf("%.2f s", search.Seconds())
	b.ReportMetric(search.Seconds(), "first-search-s")
	after := procStatus(pid, "VmRSS")
	cells["rss"] = mb(idle) + " → " + mb(after)
	b.ReportMetric(float64(after)/1e6, "rss-after-search-MB")
	prof.heap(b, "first-search")

	time.Sleep(*scaleFindWait)
	var find []time.Duration
	stopCPU := func() {}
	if !*scalePprofStart {
		stopCPU = prof.cpu(b, "find")
	}
	stopTrace := prof.trace(b, "find", *scaleTrace)
	// The server's CPU over the rounds counts its background work too (at
	// a million concepts the start's warm-ups are still running): with
	// -scale-pprof, the profile's tool=find_concepts label tells them apart.
	cpu0 := procCPU(pid)
	for i := range 50 {
		find = append(find, call("find_concepts", map[string]any{"query": sv.Queries[i%len(sv.Queries)], "limit": 20}))
	}
	findCPU := (procCPU(pid) - cpu0) * 1000 / 50
	stopCPU()
	stopTrace()
	cells["find"] = fmt.Sprintf("%.1f ms (server %.0f CPU ms a call)", msOf(p50(find)), findCPU)
	b.ReportMetric(msOf(p50(find)), "find-p50-ms")
	b.ReportMetric(findCPU, "find-server-cpu-ms")

	var similar []time.Duration
	for i := range 20 {
		similar = append(similar, call("find_similar_concepts", map[string]any{"concept": sv.Others[(i*5)%len(sv.Others)], "max_results": 10}))
	}
	cells["similar"] = fmt.Sprintf("%.1f ms (%.0f ms)", msOf(p50(similar)), msOf(similar[0]))
	b.ReportMetric(msOf(p50(similar)), "similar-p50-ms")

	writes, edits, contexts := writeRounds(sv, *scaleOps, call)
	cells["write"] = fmt.Sprintf("%.1f ms", msOf(p50(writes)))
	cells["edit"] = fmt.Sprintf("%.1f ms", msOf(p50(edits)))
	cells["context"] = fmt.Sprintf("%.1f / %.1f ms", msOf(p50(contexts)), msOf(slices.Max(contexts)))
	b.ReportMetric(msOf(p50(writes)), "write-p50-ms")
	b.ReportMetric(msOf(p50(edits)), "edit-p50-ms")
	b.ReportMetric(msOf(p50(contexts)), "context-after-write-p50-ms")
	if *scaleSettle > 0 {
		t0 := time.Now()
		settled := false
		for !settled && time.Since(t0) < *scaleSettle {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "build_context", Arguments: map[string]any{"concept": sv.Others[0]}})
			if err != nil {
				b.Fatalf("build_context: %v", err)
			}
			if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError && communityLine.MatchString(text) && !strings.Contains(text, "[stale:") {
				settled = true
			} else {
				time.Sleep(5 * time.Second)
			}
		}
		state := "current"
		if !settled {
			state = "not current yet"
		}
		cells["settled"] = fmt.Sprintf("%s (%s after %.0f s more)", mb(procStatus(pid, "VmHWM")), state, time.Since(t0).Seconds())
	}
	prof.heap(b, "end")
	stopStartCPU()
	peak := procStatus(pid, "VmHWM")
	cells["peak"] = mb(peak)
	b.ReportMetric(float64(peak)/1e6, "server-peak-MB")
	for _, r := range scaleRows {
		b.Logf("%-50s %-24s %s", r.name, cells[r.key], r.target)
	}
	return cells
}

// measureScale is measure without this process's memory in the child's
// peak: the manifest and labels are dropped before it runs.
func measureScale(b *testing.B, vault string, args ...string) boundsRun {
	debug.FreeOSMemory()
	cmd := exec.Command(scaleBinary(), append([]string{"--vault", vault}, args...)...)
	var errb strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("noema %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Skip("no rusage on this platform")
	}
	return boundsRun{maxRSS: int64(ru.Maxrss) * 1024, wall: wall}
}

// communityLine is build_context's line naming the concept's community
// (tools: "community N (M concepts)").
var communityLine = regexp.MustCompile(`(?m)^community \d+ \(`)

// syncedCopy copies to vault (with its index) the vault src synced with
// --embed once into -scale-cache/synced-KEY by the binary measured first,
// and syncs the copy again with --embed (its new inodes; nothing to embed),
// unmeasured: as in a full run, the binary measured has then written the
// files it keeps beside the index (the concept names and chunk vectors
// snapshots, which another build's are not).
func syncedCopy(b *testing.B, key, src, vault string) {
	synced := filepath.Join(*scaleDir, "synced-"+key)
	if _, err := os.Stat(filepath.Join(synced, "ok")); err != nil {
		if err := os.RemoveAll(synced); err != nil {
			b.Fatal(err)
		}
		if err := copyTree(src, filepath.Join(synced, "vault")); err != nil {
			b.Fatal(err)
		}
		measureScale(b, filepath.Join(synced, "vault"), "sync", "--embed")
		if err := os.WriteFile(filepath.Join(synced, "ok"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if out, err := exec.Command("cp", "-a", filepath.Join(synced, "vault"), vault).CombinedOutput(); err != nil {
		b.Skipf("copy the synced vault with cp -a: %v: %s", err, out)
	}
	measureScale(b, vault, "sync", "--embed")
}

// serverProfiles takes a server's profiles over NOEMA_PPROF into
// -scale-pprof (nothing without it).
type serverProfiles struct{ addr, dir string }

// heap saves the server's heap profile (after a GC) as heap-NAME.pprof.
func (p serverProfiles) heap(b *testing.B, name string) {
	if p.addr == "" {
		return
	}
	p.save(b, "http://"+p.addr+"/debug/pprof/heap?gc=1", "heap-"+name+".pprof")
}

// cpu starts a CPU profile of the server of -scale-pprof-cpu seconds,
// saved as cpu-NAME.pprof; the returned function waits for it.
func (p serverProfiles) cpu(b *testing.B, name string) func() {
	if p.addr == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.save(b, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", p.addr, *scalePprofCPU), "cpu-"+name+".pprof")
	}()
	return func() { <-done }
}

// trace starts an execution trace of the server of d, saved as
// trace-NAME.out (nothing when d is 0); the returned function waits for it.
func (p serverProfiles) trace(b *testing.B, name string, d time.Duration) func() {
	if p.addr == "" || d <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.save(b, fmt.Sprintf("http://%s/debug/pprof/trace?seconds=%g", p.addr, d.Seconds()), "trace-"+name+".out")
	}()
	return func() { <-done }
}

func (p serverProfiles) save(b *testing.B, url, file string) {
	resp, err := http.Get(url)
	if err != nil {
		b.Logf("profile %s: %v", url, err)
		return
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Logf("profile %s: %v %s %s", url, err, resp.Status, data)
		return
	}
	if err := os.WriteFile(filepath.Join(p.dir, file), data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// startServe runs `noema serve` on a loopback port, with the global flags
// global (--store URL), and returns its MCP URL, its process id and its
// profiles (-scale-pprof); it is stopped when the benchmark ends.
func startServe(b *testing.B, vault string, global ...string) (string, int, serverProfiles) {
	args := append(append([]string{"--vault", vault}, global...), "serve", "--addr", "127.0.0.1:0")
	cmd := exec.Command(scaleBinary(), args...)
	var prof serverProfiles
	if *scalePprof != "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		prof = serverProfiles{addr: ln.Addr().String(), dir: *scalePprof}
		ln.Close()
		if err := os.MkdirAll(prof.dir, 0o755); err != nil {
			b.Fatal(err)
		}
		cmd.Env = append(os.Environ(), "NOEMA_PPROF="+prof.addr)
	}
	errs, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	sc := bufio.NewScanner(errs)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, " over MCP at "); i >= 0 {
			var rest io.Writer = io.Discard
			if *scaleStderr != "" {
				f, err := os.Create(*scaleStderr)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { f.Close() })
				rest = f
			}
			go io.Copy(rest, errs)
			url, _, _ := strings.Cut(line[i+len(" over MCP at "):], " ")
			return url, cmd.Process.Pid, prof
		}
	}
	b.Fatalf("noema serve ended before it served: %v", errors.Join(sc.Err(), cmd.Wait()))
	return "", 0, prof
}

// scaleBinary is the binary BenchmarkScale measures: -scale-bin, else the
// one built from this tree.
func scaleBinary() string {
	if *scaleBin != "" {
		return *scaleBin
	}
	return binary
}

// procStatus is the field (VmRSS, VmHWM) of process pid's status, in bytes.
func procStatus(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// procCPU is process pid's user and system CPU time so far, in seconds
// (/proc/PID/stat, in clock ticks of 1/100 s); 0 when unreadable.
func procCPU(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	_, rest, ok := strings.Cut(string(data), ") ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	user, _ := strconv.ParseFloat(f[11], 64)
	sys, _ := strconv.ParseFloat(f[12], 64)
	return (user + sys) / 100
}

func p50(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// scaleNote is the i-th note the scale benchmarks write: about 1.5 KB in
// paragraphs, linking the hub and seven other concepts.
func scaleNote(sv scaleVault, i int) string {
	var sb strings.Builder
	links := []string{sv.Hub}
	for k := range 7 {
		links = append(links, sv.Others[(i*7+k*13)%len(sv.Others)])
	}
	fmt.Fprintf(&sb, "A note written by the scale benchmark, number %d.\n\n", i)
	for k := 0; sb.Len() < 1500; k++ {
		fmt.Fprintf(&sb, "Paragraph %d goes over the matter once more, with plain words about what was done and why it mattered then. ", k)
		if k < len(links) {
			fmt.Fprintf(&sb, "It names [[%s]]. ", links[k])
		}
		if k%3 == 2 {
			sb.WriteString("\n\n")
		}
	}
	for k := 0; k < len(links); k++ { // every link, however long the text ran
		if !strings.Contains(sb.String(), "[["+links[k]+"]]") {
			fmt.Fprintf(&sb, "\nSee [[%s]].", links[k])
		}
	}
	return sb.String()
}

// writeRounds runs the scale benchmarks' measured rounds over MCP: n
// write_note calls, n edit_note appends linking the hub, and n
// build_context calls each right after a write. call makes one tool call
// and returns its latency.
func writeRounds(sv scaleVault, n int, call func(name string, args map[string]any) time.Duration) (writes, edits, contexts []time.Duration) {
	for i := range n {
		writes = append(writes, call("write_note", map[string]any{"title": fmt.Sprintf("Scale write %d", i), "content": scaleNote(sv, i), "folder": "scale"}))
	}
	for i := range n {
		edits = append(edits, call("edit_note", map[string]any{"uri": sv.Notes[i%len(sv.Notes)], "op": "append",
			"content": fmt.Sprintf("\nAppended %d: more about [[%s]].\n", i, sv.Hub)}))
	}
	for i := range n {
		call("write_note", map[string]any{"title": fmt.Sprintf("Scale context %d", i), "content": scaleNote(sv, n+i), "folder": "scale"})
		contexts = append(contexts, call("build_context", map[string]any{"concept": sv.Others[(i*7)%len(sv.Others)]}))
	}
	return writes, edits, contexts
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/internal/pgtest"
	"github.com/noema-mem/noema/postgres"
	"github.com/noema-mem/noema/storecopy"
	"github.com/noema-mem/noema/vault"
)

var (
	teamFlag    = flag.String("team", "", "run BenchmarkTeam at this size: 1k or 10k generated notes (needs NOEMA_TEST_POSTGRES)")
	teamOps     = flag.Int("team-ops", 50, "BenchmarkTeam: rounds of write_note, edit_note, search_notes and find_concepts on each server")
	teamLoad    = flag.Duration("team-load", 20*time.Second, "BenchmarkTeam: how long the throughput rows write")
	teamWriters = flag.Int("team-writers", 2, "BenchmarkTeam: writers on each of the three PostgreSQL servers in the throughput rows")
)

var teamModes = map[string]scaleMode{
	"1k":  {name: "1k notes", notes: 1000},
	"10k": scaleModes["10k"],
}

// BenchmarkTeam measures a team's PostgreSQL store beside the folder store
// in one run (issue 22, part 3), with the real binary over MCP (streamable
// HTTP on loopback). A generated vault of -team notes is pushed to a fresh
// database on the server NOEMA_TEST_POSTGRES names (storecopy, the push of
// `noema vault push`); then
//
//   - start: `noema serve` on a copy of the folder (cold: no index) and
//     `noema serve --store` on an empty folder following the database (it
//     catches up before it serves), each timed from the process's start to
//     its first answer and to an index holding every note;
//   - latency: -team-ops rounds of write_note, edit_note (append),
//     search_notes and find_concepts, interleaved call by call between the
//     two servers (folder first in even rounds, PostgreSQL first in odd);
//   - load: two more servers follow the database, and -team-writers
//     writers on each of the three write new notes for -team-load; every
//     write's arrival in the other two servers' folders is seen through
//     fsnotify, giving the change feed's lag at that load.
//
// With -scale-pprof DIR it saves CPU profiles (-scale-pprof-cpu seconds)
// of the first PostgreSQL server from the start of the latency rounds and
// of the load. It prints the rows with the machine's load average (/proc/loadavg)
// beside them; nothing is asserted (a loaded machine moves the figures):
//
//	source /tmp/lead-pgenv  # or: eval "$(.ci/postgres start)"
//	go test -run '^$' -bench Team -benchtime 1x -timeout 30m ./cmd/noema/ -team=10k
func BenchmarkTeam(b *testing.B) {
	if *teamFlag == "" {
		b.Skip("run with -team=1k|10k and NOEMA_TEST_POSTGRES")
	}
	mode, ok := teamModes[*teamFlag]
	if !ok {
		b.Fatalf("-team: unknown size %q", *teamFlag)
	}
	runTeam(b, mode)
}

// benchServer is one `noema serve` and an MCP session to it.
type benchServer struct {
	dir   string
	url   string
	pid   int
	prof  serverProfiles
	cs    *mcp.ClientSession
	start time.Time
}

// serveBench starts `noema serve` on dir with the global flags global and
// waits for its first answer (find_concepts of query), returning the time
// from the process's start to that answer.
func serveBench(b *testing.B, dir, query string, global ...string) (*benchServer, time.Duration) {
	s := &benchServer{dir: dir, start: time.Now()}
	s.url, s.pid, s.prof = startServe(b, dir, global...)
	s.cs = connectBench(b, s.url)
	s.call(b, "find_concepts", map[string]any{"query": query, "limit": 20})
	return s, time.Since(s.start)
}

// connectBench opens an MCP session to url, retrying for up to 5 minutes.
func connectBench(b *testing.B, url string) *mcp.ClientSession {
	start := time.Now()
	for {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "team-bench", Version: "v0"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err == nil {
			b.Cleanup(func() { cs.Close() })
			return cs
		}
		if time.Since(start) > 5*time.Minute {
			b.Fatalf("%s did not answer within 5 minutes: %v", url, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// call makes one tool call and returns its latency and its text.
func (s *benchServer) call(b *testing.B, name string, args map[string]any) (time.Duration, string) {
	return callBench(b, s.cs, name, args)
}

func callBench(b *testing.B, cs *mcp.ClientSession, name string, args map[string]any) (time.Duration, string) {
	t0 := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	d := time.Since(t0)
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		b.Fatalf("%s %v: %s", name, args, text)
	}
	return d, text
}

var statusNotes = regexp.MustCompile(`(?m)^notes:\s+(\d+)`)

// whole waits until s's index holds n notes (its status), polling every
// 50 ms, and returns the time since s started.
func (s *benchServer) whole(b *testing.B, n int) time.Duration {
	for {
		_, text := s.call(b, "status", map[string]any{})
		m := statusNotes.FindStringSubmatch(text)
		if m == nil {
			b.Fatalf("status without a notes line:\n%s", text)
		}
		if have, _ := strconv.Atoi(m[1]); have >= n {
			return time.Since(s.start)
		}
		if time.Since(s.start) > 10*time.Minute {
			b.Fatalf("%s: the index holds %s of %d notes after 10 minutes", s.dir, m[1], n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// settle waits, up to three minutes, until the servers' background work
// (the first sync, embedding) is done: no server used more than 0.05 s of
// CPU in the last second. It logs how long it waited, or that it gave up.
func settle(b *testing.B, servers ...*benchServer) {
	start := time.Now()
	last := make([]float64, len(servers))
	for time.Since(start) < 3*time.Minute {
		busy := false
		for i, s := range servers {
			c := procCPU(s.pid)
			busy = busy || c-last[i] > 0.05
			last[i] = c
		}
		if !busy {
			b.Logf("settled after %.0f s", time.Since(start).Seconds())
			return
		}
		time.Sleep(time.Second)
	}
	b.Logf("still busy after %.0f s; measuring anyway", time.Since(start).Seconds())
}

// loadavg is the machine's load average over the last minute.
func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	return f[0]
}

// countNotes counts the .md files under dir outside dot-folders.
func countNotes(b *testing.B, dir string) int {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != dir {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			n++
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// quantileMs is the q-quantile of d in milliseconds.
func quantileMs(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return msOf(s[min(len(s)-1, int(q*float64(len(s))))])
}

// teamTable collects the printed rows.
type teamTable struct{ rows []string }

func (t *teamTable) add(format string, args ...any) {
	t.rows = append(t.rows, fmt.Sprintf(format, args...))
}

func runTeam(b *testing.B, mode scaleMode) {
	ctx := context.Background()
	src, sv := cachedVault(b, mode)
	total := countNotes(b, src)
	dsn := pgtest.NewDatabase(b)
	if _, err := postgres.Migrate(ctx, dsn); err != nil {
		b.Fatal(err)
	}
	store := dsn + "&vault=bench"
	var tab teamTable
	tab.add("| %s | folder | PostgreSQL | PostgreSQL ÷ folder | load (1 min) |", mode.name)
	tab.add("|---|---|---|---|---|")

	// Push: the folder's notes onto the database, as `noema vault push` does.
	folderDir := filepath.Join(b.TempDir(), "folder")
	if err := copyTree(src, folderDir); err != nil {
		b.Fatal(err)
	}
	pushed := teamPush(b, folderDir, store)
	tab.add("| push %d notes to the database (storecopy) | – | %.2f s | | %s |", total, pushed.Seconds(), loadavg())
	b.ReportMetric(pushed.Seconds(), "push-s")

	// Start: the folder server cold, then a server following the database
	// from an empty folder.
	f, fFirst := serveBench(b, folderDir, sv.Queries[0])
	fWhole := f.whole(b, total)
	fLoad := loadavg()
	settle(b, f)
	p, pFirst := serveBench(b, filepath.Join(b.TempDir(), "copy1"), sv.Queries[0], "--store", store)
	pWhole := p.whole(b, total)
	pLoad := loadavg()
	tab.add("| serve: start to first answer (folder: cold, no index; PostgreSQL: empty folder, catch-up) | %.2f s | %.2f s | %.2f | %s, %s |",
		fFirst.Seconds(), pFirst.Seconds(), pFirst.Seconds()/fFirst.Seconds(), fLoad, pLoad)
	tab.add("| serve: start to an index of all %d notes | %.2f s | %.2f s | %.2f | %s, %s |",
		total, fWhole.Seconds(), pWhole.Seconds(), pWhole.Seconds()/fWhole.Seconds(), fLoad, pLoad)
	b.ReportMetric(pFirst.Seconds(), "catchup-first-answer-s")
	b.ReportMetric(fFirst.Seconds(), "folder-first-answer-s")
	settle(b, f, p)

	// Latency, call by call: A, B, B, A, …
	stopCPU := p.prof.cpu(b, "team-postgres-latency")
	lat := teamLatency(b, sv, f, p, *teamOps)
	stopCPU()
	for _, r := range lat {
		fp, pp := quantileMs(r.folder, 0.5), quantileMs(r.postgres, 0.5)
		tab.add("| %s p50 (p90), %d calls | %.1f ms (%.1f) | %.1f ms (%.1f) | %.2f | %s |",
			r.name, len(r.folder), fp, quantileMs(r.folder, 0.9), pp, quantileMs(r.postgres, 0.9), pp/fp, r.load)
		b.ReportMetric(pp, r.name+"-postgres-p50-ms")
		b.ReportMetric(fp, r.name+"-folder-p50-ms")
	}

	// Load: three servers on the database, writers on each.
	servers := []*benchServer{p}
	for i := 2; i <= 3; i++ {
		s, _ := serveBench(b, filepath.Join(b.TempDir(), fmt.Sprintf("copy%d", i)), sv.Queries[0], "--store", store)
		servers = append(servers, s)
	}
	settle(b, servers...)
	stopCPU = p.prof.cpu(b, "team-postgres-load")
	ld := teamLoadRun(b, sv, servers, *teamWriters, *teamLoad)
	stopCPU()
	tab.add("| load: 3 servers × %d writers for %s, write_note acknowledged | | %.0f writes/s (%d, %d failed) | | %s |",
		*teamWriters, *teamLoad, ld.rate, len(ld.writes), ld.failed, ld.load)
	tab.add("| load: write_note p50 (p99) | | %.1f ms (%.1f) | | |", quantileMs(ld.writes, 0.5), quantileMs(ld.writes, 0.99))
	tab.add("| load: lag until another server's folder has the write, p50 (p99, max), %d arrivals | | %.1f ms (%.1f, %.1f); %d never arrived | | |",
		len(ld.lags), quantileMs(ld.lags, 0.5), quantileMs(ld.lags, 0.99), quantileMs(ld.lags, 1), ld.missing)
	b.ReportMetric(ld.rate, "load-writes/s")
	b.ReportMetric(quantileMs(ld.lags, 0.5), "lag-p50-ms")
	b.ReportMetric(quantileMs(ld.lags, 0.99), "lag-p99-ms")
	fmt.Println()
	for _, r := range tab.rows {
		fmt.Println(r)
	}
}

// teamPush copies the notes of the folder dir onto the store storeURL
// names and returns how long it took.
func teamPush(b *testing.B, dir, storeURL string) time.Duration {
	ctx := context.Background()
	v, err := vault.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	db, err := postgres.OpenStore(ctx, storeURL, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	t0 := time.Now()
	if _, err := storecopy.Copy(ctx, v.Store(), db, storecopy.Options{}); err != nil {
		b.Fatal(err)
	}
	return time.Since(t0)
}

// teamCalls is one latency row: the calls' durations on each server.
type teamCalls struct {
	name             string
	folder, postgres []time.Duration
	load             string
}

// teamLatency runs n rounds of each call on f and p, alternating which
// server goes first, and returns the rows.
func teamLatency(b *testing.B, sv scaleVault, f, p *benchServer, n int) []teamCalls {
	// One search each first: the first search loads what later ones reuse.
	for _, s := range []*benchServer{f, p} {
		s.call(b, "search_notes", map[string]any{"query": sv.Others[0]})
	}
	calls := []struct {
		name string
		args func(i int) map[string]any
	}{
		{"write_note", func(i int) map[string]any {
			return map[string]any{"title": fmt.Sprintf("Team write %d", i), "content": scaleNote(sv, i), "folder": "team"}
		}},
		{"edit_note", func(i int) map[string]any {
			return map[string]any{"uri": sv.Notes[i%len(sv.Notes)], "op": "append", "content": fmt.Sprintf("\nAppended %d: more about [[%s]].\n", i, sv.Hub)}
		}},
		{"search_notes", func(i int) map[string]any {
			return map[string]any{"query": sv.Others[(i*3)%len(sv.Others)] + " " + sv.Others[(i*3+7)%len(sv.Others)]}
		}},
		{"find_concepts", func(i int) map[string]any {
			return map[string]any{"query": sv.Queries[i%len(sv.Queries)], "limit": 20}
		}},
	}
	var rows []teamCalls
	for _, c := range calls {
		r := teamCalls{name: c.name}
		for i := range n {
			order := []*benchServer{f, p}
			if i%2 == 1 {
				order = []*benchServer{p, f}
			}
			for _, s := range order {
				d, _ := s.call(b, c.name, c.args(i))
				if s == f {
					r.folder = append(r.folder, d)
				} else {
					r.postgres = append(r.postgres, d)
				}
			}
		}
		r.load = loadavg()
		rows = append(rows, r)
	}
	return rows
}

// teamLoadResult is what the throughput rows measured.
type teamLoadResult struct {
	rate    float64         // acknowledged writes per second
	writes  []time.Duration // write_note latencies
	lags    []time.Duration // from a write's acknowledgement to its file in another server's folder
	missing int             // (write, other server) pairs that never arrived
	failed  int
	load    string
}

// teamLoadRun has writers writers on each server write new notes into
// folder "load" for d, and times each write's arrival in the other
// servers' folders through fsnotify.
func teamLoadRun(b *testing.B, sv scaleVault, servers []*benchServer, writers int, d time.Duration) teamLoadResult {
	// The folder must exist everywhere before it can be watched.
	servers[0].call(b, "write_note", map[string]any{"title": "Load seed", "content": "The load rows write next to this note.", "folder": "load"})
	for _, s := range servers {
		for {
			if _, err := os.Stat(filepath.Join(s.dir, "load", "Load seed.md")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	type key struct {
		server int
		name   string
	}
	var mu sync.Mutex
	arrived := map[key]time.Time{}
	for i, s := range servers {
		w, err := fsnotify.NewWatcher()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { w.Close() })
		if err := w.Add(filepath.Join(s.dir, "load")); err != nil {
			b.Fatal(err)
		}
		go func() {
			for ev := range w.Events {
				if ev.Op&(fsnotify.Create|fsnotify.Rename) == 0 || !strings.HasSuffix(ev.Name, ".md") {
					continue
				}
				now := time.Now()
				k := key{i, filepath.Base(ev.Name)}
				mu.Lock()
				if _, ok := arrived[k]; !ok {
					arrived[k] = now
				}
				mu.Unlock()
			}
		}()
	}
	type ack struct {
		server int
		name   string
		at     time.Time
		took   time.Duration
	}
	var acks []ack
	failed := 0
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for si, s := range servers {
		for w := range writers {
			cs := connectBench(b, s.url)
			wg.Go(func() {
				for n := 0; time.Now().Before(deadline); n++ {
					title := fmt.Sprintf("Load s%d w%d n%d", si, w, n)
					t0 := time.Now()
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write_note",
						Arguments: map[string]any{"title": title, "content": scaleNote(sv, n), "folder": "load"}})
					at := time.Now()
					mu.Lock()
					if err != nil || res.IsError {
						failed++
					} else {
						acks = append(acks, ack{si, title + ".md", at, at.Sub(t0)})
					}
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	took := time.Since(start)
	out := teamLoadResult{failed: failed, load: loadavg()}
	out.rate = float64(len(acks)) / took.Seconds()
	// Give the last writes 10 s to arrive everywhere.
	for wait := time.Now(); time.Since(wait) < 10*time.Second; time.Sleep(100 * time.Millisecond) {
		mu.Lock()
		n := len(arrived)
		mu.Unlock()
		if n >= len(acks)*len(servers) {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range acks {
		out.writes = append(out.writes, a.took)
		for o := range servers {
			if o == a.server {
				continue
			}
			t, ok := arrived[key{o, a.name}]
			if !ok {
				out.missing++
				continue
			}
			out.lags = append(out.lags, max(0, t.Sub(a.at)))
		}
	}
	return out
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// The soak test (issue 8, "Trust"): 8 mixed writers on one vault — 2 stdio
// MCP servers, 2 HTTP MCP servers, 3 CLI writers that exec the binary per
// operation, and 1 editor that writes its own files without noema (as
// Obsidian would) — while a killer SIGKILLs a random noema process every
// 0.5–2 s. Killed servers are restarted and their clients reconnect. Every
// acknowledged write (a tool result without error, a CLI exit status 0, a
// completed file write) is recorded; at a checkpoint half-way and at the
// end, with the writers paused or stopped, a `noema sync` must leave:
//
//   - lost: no acknowledged line, note or relation missing from the files;
//   - corrupt: every note parses, no partial or duplicated line, no temp
//     file or stray file visible as a note, no concept page created twice
//     (a conflict when the files are indexed from scratch), no sync warning;
//   - index disagreements: the export after sync equals the export of a
//     copy of the files indexed from scratch (reindex), a second sync
//     changes nothing, and the index holds exactly the files on disk;
//
// and no call may hang or fail with anything but a legitimate refusal
// (checksum_mismatch after a read). An operation whose process was killed
// is unacknowledged: neither counted nor required. On failure the vault and
// the logs (logs/ops.log: every call and every kill) are kept.
//
// It is skipped unless -soak is given. Put the package before -soak: go
// test hands an unknown flag and every argument after it to the test
// binary, so `go test -soak 2m ./cmd/noema/` tests the current directory's
// package instead, and passes without running anything.
//
//	go test -count=1 -run '^TestSoak$' ./cmd/noema/ -soak=2m -v
var (
	soak     = flag.Duration("soak", 0, "run the soak test for this long (0: skip it)")
	soakSeed = flag.Uint64("soak.seed", 0, "the soak test's random seed (0: from the clock)")
)

const (
	soakShared   = 8                // shared notes every noema writer appends to
	soakConcepts = 16               // [[Soak Concept k]]
	soakCallTime = 30 * time.Second // a call that takes longer has hung
	soakMaxOps   = 1_000_000        // bound on every loop besides the clock
	soakNoteRows = 150              // lines before a writer starts a new note
	soakRejected = -32005           // go-sdk's jsonrpc2.ErrRejected: a request that did not reach the server
)

// soakLineRE is a complete line written by a writer; any other line that
// contains "soak w" is a partial line.
var soakLineRE = regexp.MustCompile(`^- soak w(\d+) op (\d+) via ([a-z]+) \[\[Soak Concept (\d+)\]\] end$`)

func soakLineText(w, op int, via string, k int) string {
	return fmt.Sprintf("- soak w%d op %06d via %s [[Soak Concept %d]] end", w, op, via, k)
}

// soakAck is one acknowledged write.
type soakAck struct {
	writer, op int
	via, what  string
	at         time.Duration
}

func (a soakAck) String() string {
	return fmt.Sprintf("writer %d (%s) op %d %s, acknowledged at %v", a.writer, a.via, a.op, a.what, a.at.Round(time.Millisecond))
}

type soakRelation struct {
	id, from, typ, to string
	ack               soakAck
}

// soakOutcome is what became of one call.
type soakOutcome int

const (
	soakOK       soakOutcome = iota // acknowledged
	soakRefused                     // the server answered with an error code
	soakUnacked                     // the process died or the connection broke: unknown
	soakHung                        // no answer within soakCallTime
	soakProtocol                    // a JSON-RPC error or an unexpected exit status
)

// soakClient performs tool calls for one writer.
type soakClient interface {
	call(ctx context.Context, tool string, args map[string]any) (res map[string]any, code, msg string, out soakOutcome)
	// recover is called after soakUnacked or soakHung: restart or reconnect.
	recover(ctx context.Context)
	close()
}

type soakWriterStats struct {
	via                                            string
	ops, acked, refused, unacked, hung, unexpected int
	reconnects                                     int
}

type soakState struct {
	t                 *testing.T
	dir, vault, logs  string
	logFile           *os.File
	opsLog            *os.File // one line per call and per kill, for investigating a failure
	start, deadline   time.Time
	pause             sync.RWMutex                  // writers and the killer hold it shared; checkpoints exclusively
	mu                sync.Mutex                    // guards everything below
	lines             map[string]map[string]soakAck // note path → acknowledged line → ack
	direct            map[string]string             // path → exact content the file editor last wrote
	relations         []soakRelation
	noteURIs          []string // acknowledged notes, targets for relations
	sharedURIs        []string
	stats             []*soakWriterStats
	servers           []*soakServer
	cli               map[*os.Process]string // CLI processes in flight → subcommand
	kills             map[string]int
	unexpected        []string
	readStale         int // reads that missed a line acknowledged before them
	acked             atomic.Int64
	killCount         atomic.Int64
	httpClient        *http.Client
	checkpointReports []string
}

func TestSoak(t *testing.T) {
	if *soak <= 0 {
		t.Skip("the soak test runs with -soak DURATION: go test -count=1 -run '^TestSoak$' ./cmd/noema/ -soak=2m")
	}
	seed := *soakSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("soak: seed %d (-soak.seed %d reproduces the choices, not the timing)", seed, seed)
	dir, err := os.MkdirTemp("", "noema-soak")
	if err != nil {
		t.Fatal(err)
	}
	s := &soakState{
		t: t, dir: dir, vault: filepath.Join(dir, "vault"), logs: filepath.Join(dir, "logs"),
		lines: map[string]map[string]soakAck{}, direct: map[string]string{},
		cli: map[*os.Process]string{}, kills: map[string]int{},
		httpClient: &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: soakCallTime},
	}
	os.MkdirAll(s.vault, 0o755)
	os.MkdirAll(s.logs, 0o755)
	if s.logFile, err = os.OpenFile(filepath.Join(s.logs, "stderr.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		t.Fatal(err)
	}
	defer s.logFile.Close()
	if s.opsLog, err = os.OpenFile(filepath.Join(s.logs, "ops.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		t.Fatal(err)
	}
	defer s.opsLog.Close()
	s.setup()

	s.start = time.Now()
	s.deadline = s.start.Add(*soak)
	// The writers: 2 stdio, 2 HTTP, 3 CLI, 1 file editor.
	var clients []soakClient
	for i := range 2 {
		clients = append(clients, s.newServer(fmt.Sprint("stdio", i), false))
	}
	for i := range 2 {
		clients = append(clients, s.newServer(fmt.Sprint("http", i), true))
	}
	for range 3 {
		clients = append(clients, &soakCLI{s: s})
	}
	vias := []string{"stdio", "stdio", "http", "http", "cli", "cli", "cli", "file"}
	for _, v := range vias {
		s.stats = append(s.stats, &soakWriterStats{via: v})
	}
	var wg sync.WaitGroup
	for w, c := range clients {
		wg.Go(func() { s.noemaWriter(w, c, rand.New(rand.NewPCG(seed, uint64(w)))) })
	}
	wg.Go(func() { s.fileEditor(len(clients), rand.New(rand.NewPCG(seed, 100))) })
	killerDone := make(chan struct{})
	go func() { defer close(killerDone); s.killer(rand.New(rand.NewPCG(seed, 200))) }()

	// A checkpoint half-way, with the writers paused and the servers up.
	var cpLost, cpCorrupt, cpDisagree int
	if *soak >= time.Minute {
		select {
		case <-time.After(*soak / 2):
		case <-killerDone:
		}
		if time.Now().Before(s.deadline.Add(-10 * time.Second)) {
			s.pause.Lock()
			began := time.Now()
			cpLost, cpCorrupt, cpDisagree = s.verify("checkpoint")
			s.checkpointReports = append(s.checkpointReports, fmt.Sprintf("checkpoint at %v: %d lost, %d corrupt, %d index disagreements (%v)",
				began.Sub(s.start).Round(time.Second), cpLost, cpCorrupt, cpDisagree, time.Since(began).Round(time.Millisecond)))
			s.pause.Unlock()
		}
	}
	wg.Wait()
	<-killerDone
	for _, c := range clients {
		c.close()
	}
	elapsed := time.Since(s.start)

	// The index as the writers left it, before any repair: for the record.
	if before, err := s.export(s.vault); err == nil {
		s.runCLI("--json", "sync")
		if after, err := s.export(s.vault); err == nil {
			if n := soakDiffExports(nil, before, after); n > 0 {
				t.Logf("soak: the index as the killed writers left it differed from the files in %d nodes/edges; sync repaired them", n)
			}
		}
	}
	lost, corrupt, disagree := s.verify("final")
	disagree += cpDisagree
	lost = max(lost, cpLost)
	corrupt = max(corrupt, cpCorrupt)

	s.mu.Lock()
	defer s.mu.Unlock()
	for w, st := range s.stats {
		t.Logf("soak: writer %d (%s): %d ops, %d acknowledged, %d refused (checksum_mismatch), %d unacknowledged (killed), %d hung, %d unexpected errors, %d reconnects",
			w, st.via, st.ops, st.acked, st.refused, st.unacked, st.hung, st.unexpected, st.reconnects)
	}
	var kinds []string
	for k, n := range s.kills {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	t.Logf("soak: kills: %s", strings.Join(kinds, ", "))
	for _, r := range s.checkpointReports {
		t.Logf("soak: %s", r)
	}
	hung, unexpected := 0, 0
	for _, st := range s.stats {
		hung += st.hung
		unexpected += st.unexpected
	}
	summary := fmt.Sprintf("soak: %d writers, %d acknowledged, %d lost, %d corrupt, %d index disagreements, %d kills, %v",
		len(vias), s.acked.Load(), lost, corrupt, disagree, s.killCount.Load(), elapsed.Round(time.Second))
	extra := fmt.Sprintf("soak: %d hung calls, %d unexpected errors, %d stale reads, %d relations, %d notes",
		hung, unexpected, s.readStale, len(s.relations), len(s.noteURIs))
	t.Log(summary)
	t.Log(extra)
	fmt.Println(summary)
	fmt.Println(extra)
	for _, u := range s.unexpected {
		t.Logf("soak: unexpected: %s", u)
	}
	if lost+corrupt+disagree > 0 || hung+unexpected+s.readStale > 0 {
		t.Errorf("soak failed: %d lost, %d corrupt, %d index disagreements, %d hung calls, %d unexpected errors, %d stale reads (goal: all 0); vault and logs kept in %s",
			lost, corrupt, disagree, hung, unexpected, s.readStale, dir)
		return
	}
	os.RemoveAll(dir)
}

// setup creates the shared notes, which link every concept.
func (s *soakState) setup() {
	var links []string
	for k := range soakConcepts {
		links = append(links, fmt.Sprintf("[[Soak Concept %d]]", k))
	}
	for i := range soakShared {
		out, code, _, _ := s.runCLI("--json", "note", "write", "--title", fmt.Sprint("Soak Shared ", i), "--folder", "shared",
			"--content", "Shared by every writer: "+strings.Join(links, " ")+"\n")
		var w struct{ URI, Path string }
		if code != 0 || json.Unmarshal(out, &w) != nil {
			s.t.Fatalf("setup: note write: exit %d: %s", code, out)
		}
		s.sharedURIs = append(s.sharedURIs, w.URI)
		s.noteURIs = append(s.noteURIs, w.URI)
	}
}

// runCLI runs the binary on the vault, registered as a target for the
// killer when kind is not empty. signaled reports a death by signal.
func (s *soakState) runCLIKillable(ctx context.Context, v, kind string, args ...string) (stdout []byte, code int, signaled bool, err error) {
	cmd := exec.CommandContext(ctx, binary, append([]string{"--vault", v}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, s.logFile
	if err := cmd.Start(); err != nil {
		return nil, -1, false, err
	}
	if kind != "" {
		s.mu.Lock()
		s.cli[cmd.Process] = kind
		s.mu.Unlock()
	}
	err = cmd.Wait()
	if kind != "" {
		s.mu.Lock()
		delete(s.cli, cmd.Process)
		s.mu.Unlock()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return out.Bytes(), -1, true, nil
		}
		return out.Bytes(), ee.ExitCode(), false, nil
	}
	return out.Bytes(), 0, false, err
}

// runCLI runs the binary on the vault for the test itself (not killable).
func (s *soakState) runCLI(args ...string) ([]byte, int, bool, error) {
	return s.runCLIOn(s.vault, args...)
}

// runCLIOn runs the binary on v (the vault or a copy), not killable.
func (s *soakState) runCLIOn(v string, args ...string) ([]byte, int, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return s.runCLIKillable(ctx, v, "", args...)
}

func (s *soakState) since() time.Duration { return time.Since(s.start) }

// logOp appends one line to logs/ops.log.
func (s *soakState) logOp(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.opsLog, "%s +%.3fs "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05.000"), s.since().Seconds()}, args...)...)
}

func (s *soakState) noteUnexpected(w int, format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats[w].unexpected++
	if len(s.unexpected) < 30 {
		s.unexpected = append(s.unexpected, fmt.Sprintf("writer %d (%s) at %v: ", w, s.stats[w].via, s.since().Round(time.Millisecond))+fmt.Sprintf(format, args...))
	}
}

// ackLine records an acknowledged line in the note at path.
func (s *soakState) ackLine(path, line string, a soakAck) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lines[path] == nil {
		s.lines[path] = map[string]soakAck{}
	}
	s.lines[path][line] = a
	s.acked.Add(1)
	s.stats[a.writer].acked++
}

// noemaWriter drives one MCP or CLI client: appends to its own notes and to
// the shared ones (sometimes compare-and-swap after a read), new notes,
// relations, reads, and (CLI) sync and reindex.
func (s *soakState) noemaWriter(w int, c soakClient, rng *rand.Rand) {
	via := s.stats[w].via
	var own []string // URI of each own note
	ownPath := map[string]string{}
	ownRows := map[string]int{}
	uriPath := func(uri string) string { return strings.TrimPrefix(uri, "memory://") + ".md" }
	for op := 0; op < soakMaxOps && time.Now().Before(s.deadline); op++ {
		s.pause.RLock()
		ctx, cancel := context.WithTimeout(context.Background(), soakCallTime)
		k := rng.IntN(soakConcepts)
		line := soakLineText(w, op, via, k)
		ack := soakAck{writer: w, op: op, via: via}
		// call performs one tool call and sorts its outcome; it reports
		// whether the call was acknowledged.
		call := func(tool string, args map[string]any, refusable bool) (map[string]any, bool) {
			began := time.Now()
			res, code, msg, out := c.call(ctx, tool, args)
			s.logOp("w%d %s op %d %s %s -> %s %s %.200q (%v)", w, via, op, tool, soakArgs(args),
				[]string{"ok", "refused", "unacknowledged", "hung", "protocol error"}[out], code, msg, time.Since(began).Round(time.Millisecond))
			refused := out == soakRefused && refusable && code == "checksum_mismatch"
			s.mu.Lock()
			st := s.stats[w]
			st.ops++
			switch {
			case refused:
				st.refused++
			case out == soakUnacked:
				st.unacked++
			case out == soakHung:
				st.hung++
			}
			s.mu.Unlock()
			switch {
			case out == soakOK:
				return res, true
			case refused: // a legitimate refusal: nothing written
			case out == soakRefused || out == soakProtocol:
				s.noteUnexpected(w, "%s %v: %s: %s", tool, args, code, msg)
			default: // unacknowledged or hung
				if out == soakHung {
					s.noteUnexpected(w, "%s %v: no answer in %v", tool, args, soakCallTime)
				}
				s.mu.Lock()
				s.stats[w].reconnects++
				s.mu.Unlock()
				c.recover(ctx)
			}
			return nil, false
		}
		r := rng.Float64()
		cur := ""
		if len(own) > 0 {
			cur = own[len(own)-1]
		}
		switch {
		case cur == "" || ownRows[cur] >= soakNoteRows || r < 0.10: // a new note
			title := fmt.Sprintf("w%d n%06d", w, op)
			res, ok := call("write_note", map[string]any{"title": title, "folder": fmt.Sprint("w", w), "content": "Written by a writer of the soak test.\n" + line + "\n"}, false)
			if ok {
				uri, _ := res["uri"].(string)
				path, _ := res["path"].(string)
				if uri == "" || path == "" {
					s.noteUnexpected(w, "write_note %q: result without uri/path: %v", title, res)
					break
				}
				ack.what = "write_note " + path
				ack.at = s.since()
				s.ackLine(path, line, ack)
				own = append(own, uri)
				ownPath[uri] = path
				ownRows[uri] = 1
				s.mu.Lock()
				s.noteURIs = append(s.noteURIs, uri)
				s.mu.Unlock()
			}
		case r < 0.65: // append to an own note or a shared one
			uri := own[rng.IntN(len(own))]
			if r >= 0.40 {
				uri = s.sharedURIs[rng.IntN(len(s.sharedURIs))]
			}
			if _, ok := call("edit_note", map[string]any{"uri": uri, "op": "append", "content": line}, false); ok {
				ack.what = "append to " + uriPath(uri)
				ack.at = s.since()
				s.ackLine(uriPath(uri), line, ack)
				ownRows[uri]++
			}
		case r < 0.80: // read, then append with expected_checksum
			uri := own[rng.IntN(len(own))]
			if rng.IntN(2) == 0 {
				uri = s.sharedURIs[rng.IntN(len(s.sharedURIs))]
			}
			want := s.ackedLines(uriPath(uri))
			res, ok := call("read_note", map[string]any{"uri": uri}, false)
			if !ok {
				break
			}
			s.checkRead(w, uri, res, want)
			sum, _ := res["checksum"].(string)
			if _, ok := call("edit_note", map[string]any{"uri": uri, "op": "append", "content": line, "expected_checksum": sum}, true); ok {
				ack.what = "checksum append to " + uriPath(uri)
				ack.at = s.since()
				s.ackLine(uriPath(uri), line, ack)
				ownRows[uri]++
			}
		case r < 0.93: // a relation
			var from string
			switch x := rng.IntN(10); {
			case x < 5:
				from = own[rng.IntN(len(own))]
			case x < 8:
				from = s.sharedURIs[rng.IntN(len(s.sharedURIs))]
			default:
				from = fmt.Sprint("Soak Concept ", rng.IntN(soakConcepts))
			}
			to := fmt.Sprint("Soak Concept ", k)
			if rng.IntN(10) < 6 {
				s.mu.Lock()
				to = s.noteURIs[rng.IntN(len(s.noteURIs))]
				s.mu.Unlock()
			}
			if to == from {
				to = fmt.Sprint("Soak Concept ", (k+1)%soakConcepts)
			}
			typ := fmt.Sprintf("soak_w%d_op%06d", w, op)
			res, ok := call("create_relation", map[string]any{"from": from, "type": typ, "to": to}, false)
			if ok {
				id, _ := res["id"].(string)
				ack.what = fmt.Sprintf("create_relation %s %s %s = %s", from, typ, to, id)
				ack.at = s.since()
				s.mu.Lock()
				s.relations = append(s.relations, soakRelation{id: id, from: from, typ: typ, to: to, ack: ack})
				s.stats[w].acked++
				s.mu.Unlock()
				s.acked.Add(1)
			}
		default: // reads, and (CLI) a sync or a reindex that the killer may cut short
			if via == "cli" && rng.IntN(3) == 0 {
				tool := "sync"
				if rng.IntN(8) == 0 {
					tool = "reindex"
				}
				call(tool, nil, false)
				break
			}
			uri := own[rng.IntN(len(own))]
			want := s.ackedLines(uriPath(uri))
			if res, ok := call("read_note", map[string]any{"uri": uri}, false); ok {
				s.checkRead(w, uri, res, want)
			}
		}
		cancel()
		s.pause.RUnlock()
		time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
	}
}

// soakArgs renders tool arguments on one line for the ops log.
func soakArgs(args map[string]any) string {
	var keys []string
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q ", k, fmt.Sprint(args[k]))
	}
	return strings.TrimSpace(b.String())
}

// ackedLines is a copy of the lines acknowledged in path so far.
func (s *soakState) ackedLines(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for l := range s.lines[path] {
		out = append(out, l)
	}
	return out
}

// checkRead: a read must show every line acknowledged before it began.
func (s *soakState) checkRead(w int, uri string, res map[string]any, want []string) {
	content, _ := res["content"].(string)
	have := map[string]bool{}
	for _, l := range strings.Split(content, "\n") {
		have[l] = true
	}
	for _, l := range want {
		if !have[l] {
			s.mu.Lock()
			s.readStale++
			s.mu.Unlock()
			s.noteUnexpected(w, "read_note %s misses the acknowledged line %q", uri, l)
			return
		}
	}
}

// fileEditor writes its own notes under direct/ without noema, as an editor
// such as Obsidian would: new files, appended lines, in place or by an
// atomic rename, and same-size rewrites that put the old mtime back (as
// `touch -r`, `cp -p` or `rsync -t` do).
func (s *soakState) fileEditor(w int, rng *rand.Rand) {
	dir := filepath.Join(s.vault, "direct")
	os.MkdirAll(dir, 0o755)
	var files []string // vault-relative paths
	content := map[string]string{}
	write := func(rel, c string, atomic bool) error {
		abs := filepath.Join(s.vault, rel)
		if !atomic {
			return os.WriteFile(abs, []byte(c), 0o644)
		}
		tmp := filepath.Join(filepath.Dir(abs), "."+filepath.Base(abs)+".editor-tmp")
		if err := os.WriteFile(tmp, []byte(c), 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, abs)
	}
	for op := 0; op < soakMaxOps && time.Now().Before(s.deadline); op++ {
		s.pause.RLock()
		k := rng.IntN(soakConcepts)
		line := soakLineText(w, op, "file", k)
		ack := soakAck{writer: w, op: op, via: "file"}
		atomic := rng.IntN(2) == 0
		r := rng.Float64()
		var rel, next, what string
		restoreMtime := time.Time{}
		switch {
		case len(files) == 0 || r < 0.15:
			rel = fmt.Sprintf("direct/d-%06d.md", op)
			next = fmt.Sprintf("# Direct %d\n%s\n", op, line)
			if rng.IntN(2) == 0 {
				next = fmt.Sprintf("---\ntitle: Direct note %d\nstate: A\ntags: [soak]\n---\n", op) + next
			}
			what = "create " + rel
		case r < 0.85:
			rel = files[rng.IntN(len(files))]
			next = content[rel] + line + "\n"
			what = "append to " + rel
		default:
			rel = files[rng.IntN(len(files))]
			c := content[rel]
			switch {
			case strings.Contains(c, "\nstate: A\n"):
				next = strings.Replace(c, "\nstate: A\n", "\nstate: B\n", 1)
			case strings.Contains(c, "\nstate: B\n"):
				next = strings.Replace(c, "\nstate: B\n", "\nstate: A\n", 1)
			default:
				next = strings.Replace(c, "# Direct", "# DIRECT", 1)
				if next == c {
					next = strings.Replace(c, "# DIRECT", "# Direct", 1)
				}
			}
			if fi, err := os.Stat(filepath.Join(s.vault, rel)); err == nil {
				restoreMtime = fi.ModTime()
			}
			line = ""
			what = "same-size rewrite keeping the mtime of " + rel
		}
		if err := write(rel, next, atomic); err != nil {
			s.noteUnexpected(w, "%s: %v", what, err)
		} else {
			if !restoreMtime.IsZero() {
				os.Chtimes(filepath.Join(s.vault, rel), restoreMtime, restoreMtime)
			}
			if _, ok := content[rel]; !ok {
				files = append(files, rel)
				s.mu.Lock()
				s.noteURIs = append(s.noteURIs, "memory://"+strings.TrimSuffix(rel, ".md"))
				s.mu.Unlock()
			}
			content[rel] = next
			ack.what, ack.at = what, s.since()
			s.logOp("w%d file op %d %s (atomic %v)", w, op, what, atomic)
			s.mu.Lock()
			s.direct[rel] = next
			s.stats[w].ops++
			s.mu.Unlock()
			if line != "" {
				s.ackLine(rel, line, ack)
			} else {
				s.mu.Lock()
				s.stats[w].acked++
				s.mu.Unlock()
				s.acked.Add(1)
			}
		}
		s.pause.RUnlock()
		time.Sleep(time.Duration(10+rng.IntN(40)) * time.Millisecond)
	}
}

// killer SIGKILLs a random noema process — a server or a CLI command in
// flight — every 0.5–2 s.
func (s *soakState) killer(rng *rand.Rand) {
	for i := 0; i < soakMaxOps; i++ {
		time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
		if !time.Now().Before(s.deadline) {
			return
		}
		s.pause.RLock()
		type victim struct {
			p    *os.Process
			kind string
		}
		var victims []victim
		for _, sv := range s.servers {
			sv.mu.Lock()
			if sv.proc != nil {
				victims = append(victims, victim{sv.proc, sv.kind})
			}
			sv.mu.Unlock()
		}
		s.mu.Lock()
		for p, kind := range s.cli {
			victims = append(victims, victim{p, "cli " + kind})
		}
		s.mu.Unlock()
		if len(victims) > 0 {
			v := victims[rng.IntN(len(victims))]
			// os.Process uses a pidfd: a process already reaped is not
			// signalled (ErrProcessDone), never a reused PID.
			if err := v.p.Signal(syscall.SIGKILL); err == nil {
				s.logOp("KILL %s pid %d", v.kind, v.p.Pid)
				s.killCount.Add(1)
				s.mu.Lock()
				s.kills[v.kind]++
				s.mu.Unlock()
			}
		}
		s.pause.RUnlock()
	}
}

// soakServer is a `noema mcp` or `noema serve` process and a client
// session to it, restarted when it dies.
type soakServer struct {
	s    *soakState
	name string
	kind string // "stdio" or "http"
	http bool
	mu   sync.Mutex // guards proc for the killer
	proc *os.Process
	cs   *mcp.ClientSession
	done chan struct{} // http: closed when the server process has exited
	cmd  *exec.Cmd     // http
}

func (s *soakState) newServer(name string, http bool) *soakServer {
	sv := &soakServer{s: s, name: name, http: http, kind: "stdio server"}
	if http {
		sv.kind = "http server"
	}
	s.servers = append(s.servers, sv)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sv.recover(ctx)
	if sv.cs == nil {
		s.t.Fatalf("%s: could not start", name)
	}
	return sv
}

func (sv *soakServer) setProc(p *os.Process) {
	sv.mu.Lock()
	sv.proc = p
	sv.mu.Unlock()
}

// recover closes the session, restarts the server if it died (or, for
// stdio, always: the session is the process) and reconnects, retrying
// until it works or the soak is over.
func (sv *soakServer) recover(context.Context) {
	if sv.cs != nil {
		cs := sv.cs
		sv.cs = nil
		closed := make(chan struct{})
		go func() { cs.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
		}
	}
	for attempt := 0; attempt < 100; attempt++ {
		if attempt > 0 && !time.Now().Before(sv.s.deadline) {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := sv.connect(ctx)
		cancel()
		if err == nil {
			return
		}
		fmt.Fprintf(sv.s.logFile, "soak: %s: connect: %v\n", sv.name, err)
		time.Sleep(100 * time.Millisecond)
	}
}

func (sv *soakServer) connect(ctx context.Context) error {
	s := sv.s
	client := mcp.NewClient(&mcp.Implementation{Name: "soak-" + sv.name, Version: "v0"}, nil)
	if !sv.http {
		cmd := exec.Command(binary, "--vault", s.vault, "mcp")
		cmd.Stderr = s.logFile
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 3 * time.Second}, nil)
		if cmd.Process != nil {
			sv.setProc(cmd.Process)
		}
		if err != nil {
			if cmd.Process != nil {
				cmd.Process.Kill()
			}
			return err
		}
		sv.cs = cs
		return nil
	}
	if sv.done != nil {
		select {
		case <-sv.done: // dead: start another below
			sv.done = nil
		default: // alive: only reconnect
		}
	}
	if sv.done == nil {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		addr := l.Addr().String()
		l.Close()
		cmd := exec.Command(binary, "--vault", s.vault, "serve", "--addr", addr)
		cmd.Stderr = s.logFile
		if err := cmd.Start(); err != nil {
			return err
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		sv.cmd, sv.done = cmd, done
		sv.setProc(cmd.Process)
		up := false
		for !up {
			select {
			case <-done:
				return fmt.Errorf("noema serve on %s exited", addr)
			case <-ctx.Done():
				cmd.Process.Kill()
				return fmt.Errorf("noema serve on %s: not up: %w", addr, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
			if resp, err := s.httpClient.Get("http://" + addr + "/healthz"); err == nil {
				resp.Body.Close()
				up = resp.StatusCode == http.StatusOK
			}
		}
	}
	endpoint := "http://" + sv.cmd.Args[len(sv.cmd.Args)-1] + "/mcp"
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: s.httpClient, MaxRetries: -1}, nil)
	if err != nil {
		return err
	}
	sv.cs = cs
	return nil
}

func (sv *soakServer) call(ctx context.Context, tool string, args map[string]any) (map[string]any, string, string, soakOutcome) {
	if sv.cs == nil {
		return nil, "", "no session", soakUnacked
	}
	res, err := sv.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		var wire *jsonrpc.Error
		switch {
		case ctx.Err() != nil:
			return nil, "", err.Error(), soakHung
		case errors.As(err, &wire) && wire.Code == soakRejected:
			// The SDK's client: the request never reached the server
			// (connection refused: the server was killed).
			return nil, "", err.Error(), soakUnacked
		case errors.As(err, &wire):
			return nil, fmt.Sprint(wire.Code), wire.Message, soakProtocol
		}
		return nil, "", err.Error(), soakUnacked
	}
	out, code, msg := toolAnswer(res)
	if res.IsError {
		return nil, code, msg, soakRefused
	}
	return out, "", "", soakOK
}

func (sv *soakServer) close() {
	if sv.cs != nil {
		closed := make(chan struct{})
		go func() { sv.cs.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
		}
	}
	if sv.http && sv.done != nil {
		sv.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-sv.done:
		case <-time.After(10 * time.Second):
			sv.cmd.Process.Kill()
			<-sv.done
		}
	}
	sv.setProc(nil)
}

// soakCLI runs one process per call.
type soakCLI struct{ s *soakState }

func (c *soakCLI) call(ctx context.Context, tool string, args map[string]any) (map[string]any, string, string, soakOutcome) {
	str := func(k string) string { v, _ := args[k].(string); return v }
	var argv []string
	switch tool {
	case "write_note":
		argv = []string{"note", "write", "--title", str("title"), "--folder", str("folder"), "--content", str("content")}
	case "edit_note":
		argv = []string{"note", "edit", str("uri"), "--op", str("op"), "--content", str("content")}
		if sum := str("expected_checksum"); sum != "" {
			argv = append(argv, "--checksum", sum)
		}
	case "read_note":
		argv = []string{"note", "read", str("uri")}
	case "create_relation":
		argv = []string{"relation", "create", str("from"), str("type"), str("to")}
	case "sync", "reindex":
		argv = []string{tool}
	default:
		panic(tool)
	}
	out, code, signaled, err := c.s.runCLIKillable(ctx, c.s.vault, argv[0]+" "+argv[1%len(argv)], append([]string{"--json"}, argv...)...)
	switch {
	case ctx.Err() != nil:
		return nil, "", "timed out", soakHung
	case err != nil:
		return nil, "", err.Error(), soakProtocol
	case signaled:
		return nil, "", "killed", soakUnacked
	case code == 0:
		var res map[string]any
		if err := json.Unmarshal(out, &res); err != nil {
			return nil, "", fmt.Sprintf("exit 0 with undecodable output %q", out), soakProtocol
		}
		return res, "", "", soakOK
	case code == 1:
		var e errOut
		if json.Unmarshal(out, &e) != nil || e.Error.Code == "" {
			return nil, "", fmt.Sprintf("exit 1 with output %q", out), soakProtocol
		}
		return nil, e.Error.Code, e.Error.Message, soakRefused
	}
	return nil, "", fmt.Sprintf("exit %d: %s", code, out), soakProtocol
}

func (c *soakCLI) recover(context.Context) {}
func (c *soakCLI) close()                  {}

// export is `noema graph export` of vault: the JSON export itself.
func (s *soakState) export(v string) (map[string]map[string]any, error) {
	out, code, _, err := s.runCLIOn(v, "graph", "export")
	if err != nil || code != 0 {
		return nil, fmt.Errorf("graph export: exit %d, %v: %.300s", code, err, out)
	}
	var g struct{ Nodes, Edges []map[string]any }
	if err := json.Unmarshal(out, &g); err != nil {
		return nil, fmt.Errorf("graph export: %v", err)
	}
	items := map[string]map[string]any{}
	for _, n := range g.Nodes {
		items[fmt.Sprint("node ", n["id"])] = n
	}
	for _, e := range g.Edges {
		items[fmt.Sprint("edge ", e["id"])] = e
	}
	return items, nil
}

type soakWarning struct{ Path, Code, Message string }

// soakWarnings decodes the warnings of a sync or reindex result.
func soakWarnings(out []byte) []soakWarning {
	var res struct{ Warnings []soakWarning }
	json.Unmarshal(out, &res)
	return res.Warnings
}

// soakDiffExports counts the nodes and edges that differ between two
// exports, logging the first few.
func soakDiffExports(t *testing.T, a, b map[string]map[string]any) int {
	ids := slices.AppendSeq(slices.Collect(maps.Keys(a)), maps.Keys(b))
	slices.Sort(ids)
	ids = slices.Compact(ids)
	n := 0
	for _, id := range ids {
		x, y := a[id], b[id]
		if reflect.DeepEqual(x, y) {
			continue
		}
		n++
		if t != nil && n <= 10 {
			bx, _ := json.Marshal(x)
			by, _ := json.Marshal(y)
			t.Logf("  %s:\n    %s\n    %s", id, bx, by)
		}
	}
	return n
}

// verify runs sync, then checks the files against the acknowledged writes
// and the index against the files and against a rebuilt index.
func (s *soakState) verify(label string) (lost, corrupt, disagree int) {
	t := s.t
	t.Logf("soak: %s: verifying at %v", label, s.since().Round(time.Millisecond))
	if out, code, _, err := s.runCLI("--json", "sync"); err != nil || code != 0 {
		t.Errorf("soak: %s: sync: exit %d, %v: %.500s", label, code, err, out)
		disagree++
	} else {
		var res struct {
			Warnings []struct{ Path, Code, Message string }
		}
		json.Unmarshal(out, &res)
		for _, w := range res.Warnings {
			if w.Code == "conflict" {
				continue // counted from the rebuilt index below
			}
			corrupt++
			t.Logf("soak: %s: corrupt: sync warning %s: %s: %s", label, w.Path, w.Code, w.Message)
		}
	}
	synced, err := s.export(s.vault)
	if err != nil {
		t.Errorf("soak: %s: %v", label, err)
		return lost, corrupt, disagree + 1
	}

	// The files.
	files := map[string][]byte{}
	var temps []string
	filepath.WalkDir(s.vault, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(s.vault, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			temps = append(temps, rel)
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !strings.HasSuffix(rel, ".md") {
			corrupt++
			t.Logf("soak: %s: corrupt: stray file %s", label, rel)
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			corrupt++
			t.Logf("soak: %s: corrupt: %s: %v", label, rel, err)
			return nil
		}
		files[rel] = b
		return nil
	})
	counts := map[string]map[string]int{} // path → line → occurrences
	relIDs := map[string]vault.RawRelation{}
	for rel, b := range files {
		n, err := vault.Parse(rel, b)
		if err != nil {
			corrupt++
			t.Logf("soak: %s: corrupt: %s does not parse: %v", label, rel, err)
			continue
		}
		for _, r := range n.Relations {
			id := r.ID
			if id == "" { // a property relation: its id is derived
				id = noema.RelationID(rel, r.Type, vault.RelationRef(r.To))
			}
			relIDs[id] = r
		}
		counts[rel] = map[string]int{}
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.Contains(l, "soak w") {
				continue
			}
			if !soakLineRE.MatchString(l) {
				corrupt++
				t.Logf("soak: %s: corrupt: partial line in %s: %q", label, rel, l)
				continue
			}
			counts[rel][l]++
		}
	}

	// Lost: every acknowledged line, relation and editor file.
	s.mu.Lock()
	for path, lines := range s.lines {
		for l, a := range lines {
			switch c := counts[path][l]; {
			case c == 0:
				lost++
				if lost <= 20 {
					t.Logf("soak: %s: LOST line %q in %s: %v", label, l, path, a)
				}
			case c > 1:
				corrupt++
				t.Logf("soak: %s: corrupt: line %q appears %d times in %s: %v", label, l, c, path, a)
			}
		}
	}
	for _, r := range s.relations {
		got, ok := relIDs[r.id]
		if !ok || got.Type != r.typ {
			lost++
			if lost <= 20 {
				t.Logf("soak: %s: LOST relation %s (%s %s %s), in the files: %+v: %v", label, r.id, r.from, r.typ, r.to, got, r.ack)
			}
		}
	}
	for path, c := range s.direct {
		if string(files[path]) != c {
			lost++
			t.Logf("soak: %s: LOST: %s is not what the editor wrote:\n%s\nwant:\n%s", label, path, files[path], c)
		}
	}
	s.mu.Unlock()

	// Leftover temp files are expected after kills (sync removes them
	// after 5 minutes); they must never be notes.
	if len(temps) > 0 {
		t.Logf("soak: %s: %d temporary files left by killed writers (not notes)", label, len(temps))
	}

	// The index against the files.
	indexed := map[string]bool{}
	for _, it := range synced {
		if it["kind"] != "note" {
			continue
		}
		p, _ := it["path"].(string)
		indexed[p] = true
		if strings.HasPrefix(p, ".") || strings.Contains(p, "/.") {
			corrupt++
			t.Logf("soak: %s: corrupt: %s is indexed as a note", label, p)
		}
		if _, ok := files[p]; !ok {
			disagree++
			t.Logf("soak: %s: index disagreement: %s is indexed, not on disk", label, p)
		}
	}
	for p := range files {
		if !indexed[p] {
			disagree++
			t.Logf("soak: %s: index disagreement: %s is on disk, not indexed", label, p)
		}
	}

	// The index after sync against an index built from scratch on a copy.
	cp := filepath.Join(s.dir, "copy-"+label)
	os.RemoveAll(cp)
	copyFiles(t, cp, files, s.vault)
	if out, code, _, err := s.runCLIOn(cp, "--json", "reindex"); err != nil || code != 0 {
		t.Errorf("soak: %s: reindex of the copy: exit %d, %v: %.500s", label, code, err, out)
		disagree++
	} else if ws := soakWarnings(out); len(ws) > 0 {
		// No writer gives two notes one concept: a conflict is a concept
		// page noema created twice.
		for _, w := range ws {
			corrupt++
			t.Logf("soak: %s: corrupt: the rebuilt index warns: %s: %s: %s", label, w.Path, w.Code, w.Message)
		}
	}
	if rebuilt, err := s.export(cp); err != nil {
		t.Errorf("soak: %s: %v", label, err)
		disagree++
	} else {
		t.Logf("soak: %s: export after sync against a rebuilt index (%d nodes and edges):", label, len(synced))
		disagree += soakDiffExports(t, synced, rebuilt)
	}
	os.RemoveAll(cp)

	// A second sync changes nothing.
	if out, code, _, err := s.runCLI("--json", "sync"); err != nil || code != 0 {
		t.Errorf("soak: %s: second sync: exit %d, %v: %.500s", label, code, err, out)
		disagree++
	} else if again, err := s.export(s.vault); err != nil {
		t.Errorf("soak: %s: %v", label, err)
		disagree++
	} else {
		t.Logf("soak: %s: export after a second sync:", label)
		disagree += soakDiffExports(t, synced, again)
	}
	t.Logf("soak: %s: %d files, %d lost, %d corrupt, %d index disagreements", label, len(files), lost, corrupt, disagree)
	return lost, corrupt, disagree
}

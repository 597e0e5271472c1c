package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/postgres"
)

// The team soak (issue 22 part 2): 3 `noema serve` processes, each the
// working copy of one PostgreSQL vault in a folder of its own, each with
// 8 writers (MCP sessions over HTTP), while a killer SIGKILLs a random
// server every 1–4 s and starts it again. Writers write new notes, append
// to their own notes and to notes every writer shares (plainly, and with
// expected_checksum after a read), and read their own notes back. Every
// acknowledged write is recorded; at the end, with every server up and
// caught up with the database:
//
//   - lost: no acknowledged line missing from the database, or from any
//     server's folder, which must hold exactly the database's files;
//   - corrupt: no partial or repeated line;
//   - index: each server's index (its `graph export`) equals that of a
//     fresh reindex of the pulled vault;
//
// and no call may hang or fail with anything but a legitimate refusal. A
// read of an own note must show every line the writer had acknowledged.
//
// It is skipped unless -team-soak is given, with the package before it:
//
//	go test -count=1 -v -run '^TestTeamSoak$' ./cmd/noema/ -team-soak=2m
var teamSoak = flag.Duration("team-soak", 0, "run the team soak test for this long (0: skip it)")

const (
	teamSoakServers = 3
	teamSoakWriters = 8 // per server
	teamSoakShared  = 6
)

// teamSoakState is the soak's record of what was acknowledged.
type teamSoakState struct {
	t        *testing.T
	servers  []*teamServer
	deadline time.Time
	start    time.Time

	mu    sync.Mutex
	lines map[string]map[string]string // note path → acknowledged line → who
	// counts of outcomes
	acked, refusedCAS, unacked, hung, unexpected, staleReads int
	unexpectedMsgs                                           []string
	kills                                                    atomic.Int64
}

func (s *teamSoakState) ack(path, line, who string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lines[path] == nil {
		s.lines[path] = map[string]string{}
	}
	s.lines[path][line] = who
	s.acked++
}

func (s *teamSoakState) bad(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unexpected++
	if len(s.unexpectedMsgs) < 30 {
		s.unexpectedMsgs = append(s.unexpectedMsgs, fmt.Sprintf("+%v ", time.Since(s.start).Round(time.Millisecond))+fmt.Sprintf(format, args...))
	}
}

func TestTeamSoak(t *testing.T) {
	if *teamSoak <= 0 {
		t.Skip("the team soak runs with -team-soak DURATION: go test -count=1 -run '^TestTeamSoak$' ./cmd/noema/ -team-soak=2m")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("team soak: seed %d", seed)
	store, st := teamStore(t)
	dir, err := os.MkdirTemp("", "noema-team-soak")
	if err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(filepath.Join(dir, "servers.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	s := &teamSoakState{t: t, lines: map[string]map[string]string{}}
	for i := range teamSoakServers {
		sv := newTeamServer(t, fmt.Sprint("s", i), store, dir, logFile)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := sv.start(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		s.servers = append(s.servers, sv)
	}
	// The shared notes, written on the first server.
	setup := s.servers[0].mustSession(t)
	var shared []string
	for i := range teamSoakShared {
		res := mustCall(t, setup, "write_note", map[string]any{"title": fmt.Sprint("Team Shared ", i), "folder": "shared",
			"content": "Appended to by every writer on every server.\n"})
		shared = append(shared, res["uri"].(string))
	}
	setup.Close()
	// Every server holds them before the writers start (a second at most
	// is the promise; the writers would otherwise start within it).
	for _, sv := range s.servers {
		caughtUp(t, st, sv.mustSession(t), 10*time.Second)
	}

	s.start = time.Now()
	s.deadline = s.start.Add(*teamSoak)
	var wg sync.WaitGroup
	for i, sv := range s.servers {
		for w := range teamSoakWriters {
			rng := rand.New(rand.NewPCG(seed, uint64(i*100+w)))
			wg.Go(func() { s.writer(sv, i, w, shared, rng) })
		}
	}
	killerDone := make(chan struct{})
	go func() {
		defer close(killerDone)
		rng := rand.New(rand.NewPCG(seed, 999))
		for time.Now().Before(s.deadline) {
			time.Sleep(time.Duration(1000+rng.IntN(3000)) * time.Millisecond)
			if !time.Now().Before(s.deadline) {
				return
			}
			sv := s.servers[rng.IntN(len(s.servers))]
			sv.kill()
			s.kills.Add(1)
			fmt.Fprintf(logFile, "team soak: +%v KILL %s\n", time.Since(s.start).Round(time.Millisecond), sv.name)
			time.Sleep(time.Duration(rng.IntN(1000)) * time.Millisecond)
			for attempt := 0; ; attempt++ {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				err := sv.start(ctx)
				cancel()
				if err == nil {
					break
				}
				if attempt == 5 {
					s.bad("%s does not start again: %v", sv.name, err)
					break
				}
			}
		}
	}()
	wg.Wait()
	<-killerDone
	elapsed := time.Since(s.start)

	// Every server up and holding the database's head.
	sessions := make([]*mcp.ClientSession, len(s.servers))
	for i, sv := range s.servers {
		if !sv.running() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if err := sv.start(ctx); err != nil {
				t.Fatal(err)
			}
			cancel()
		}
		sessions[i] = sv.mustSession(t)
	}
	began := time.Now()
	for _, cs := range sessions {
		caughtUp(t, st, cs, time.Minute)
	}
	t.Logf("team soak: every server held the database's head %v after the writers stopped", time.Since(began).Round(time.Millisecond))
	lost, corrupt, disagree := s.verify(st, dir)

	hung, unexpected := s.hung, s.unexpected
	summary := fmt.Sprintf("team soak: %d servers × %d writers, %v: %d acknowledged writes, %d lost, %d corrupt, %d index disagreements, %d kills",
		teamSoakServers, teamSoakWriters, elapsed.Round(time.Second), s.acked, lost, corrupt, disagree, s.kills.Load())
	extra := fmt.Sprintf("team soak: %d refused checksum_mismatch with expected_checksum, %d unacknowledged (server killed), %d hung, %d unexpected errors, %d stale reads",
		s.refusedCAS, s.unacked, hung, unexpected, s.staleReads)
	t.Log(summary)
	t.Log(extra)
	fmt.Println(summary)
	fmt.Println(extra)
	for _, m := range s.unexpectedMsgs {
		t.Logf("team soak: unexpected: %s", m)
	}
	if s.acked == 0 || lost+corrupt+disagree+hung+unexpected+s.staleReads > 0 {
		t.Errorf("team soak failed: %d acknowledged, %d lost, %d corrupt, %d index disagreements, %d hung, %d unexpected errors, %d stale reads; folders and logs kept in %s",
			s.acked, lost, corrupt, disagree, hung, unexpected, s.staleReads, dir)
		return
	}
	for _, sv := range s.servers {
		sv.stop()
	}
	os.RemoveAll(dir)
}

// teamSoakLine is a complete line a writer appends.
func teamSoakLine(server, w, op int) string {
	return fmt.Sprintf("- team soak s%d w%d op %06d [[Team Concept %d]] end", server, w, op, op%16)
}

// writer is one MCP session on sv, reconnecting whenever its server died.
func (s *teamSoakState) writer(sv *teamServer, server, w int, shared []string, rng *rand.Rand) {
	var cs *mcp.ClientSession
	defer func() {
		if cs != nil {
			cs.Close()
		}
	}()
	var own []string                  // own notes' URIs
	ownLines := map[string][]string{} // URI → lines acknowledged in it
	who := fmt.Sprintf("s%d w%d", server, w)
	uriPath := func(uri string) string { return strings.TrimPrefix(uri, "memory://") + ".md" }
	for op := 0; op < soakMaxOps && time.Now().Before(s.deadline); op++ {
		if cs == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			c, err := sv.session(ctx)
			cancel()
			if err != nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			cs = c
		}
		line := teamSoakLine(server, w, op)
		// call reports whether the call was acknowledged; refusable is
		// whether checksum_mismatch is a legitimate answer (only to an
		// edit with expected_checksum: an append to a note another server
		// has just changed succeeds on its newest version).
		call := func(tool string, args map[string]any, refusable bool) (map[string]any, bool) {
			ctx, cancel := context.WithTimeout(context.Background(), soakCallTime)
			defer cancel()
			res, code, msg, err := teamCall(ctx, cs, tool, args)
			switch {
			case err != nil && ctx.Err() != nil:
				s.mu.Lock()
				s.hung++
				s.mu.Unlock()
				s.bad("%s %s %v: no answer in %v", who, tool, args, soakCallTime)
				cs.Close()
				cs = nil
			case err != nil:
				s.mu.Lock()
				s.unacked++
				s.mu.Unlock()
				cs.Close()
				cs = nil
			case code == "checksum_mismatch" && refusable:
				s.mu.Lock()
				s.refusedCAS++
				s.mu.Unlock()
			case code != "":
				s.bad("%s %s %v: %s: %s", who, tool, args, code, msg)
			default:
				return res, true
			}
			return nil, false
		}
		r := rng.Float64()
		switch {
		case len(own) == 0 || r < 0.10: // a new note
			title := fmt.Sprintf("s%d w%d n%06d", server, w, op)
			res, ok := call("write_note", map[string]any{"title": title, "folder": fmt.Sprintf("s%d/w%d", server, w),
				"content": "Written by a writer of the team soak.\n" + line + "\n"}, false)
			if ok {
				uri, _ := res["uri"].(string)
				path, _ := res["path"].(string)
				if uri == "" || path != uriPath(uri) {
					s.bad("%s write_note %q: uri %q, path %q", who, title, uri, path)
					break
				}
				s.ack(path, line, who)
				own = append(own, uri)
				ownLines[uri] = append(ownLines[uri], line)
			}
		case r < 0.45: // append to an own note: nobody else writes it
			uri := own[rng.IntN(len(own))]
			if _, ok := call("edit_note", map[string]any{"uri": uri, "op": "append", "content": line}, false); ok {
				s.ack(uriPath(uri), line, who)
				ownLines[uri] = append(ownLines[uri], line)
			}
		case r < 0.65: // append to a shared note, which every server writes
			uri := shared[rng.IntN(len(shared))]
			if _, ok := call("edit_note", map[string]any{"uri": uri, "op": "append", "content": line}, false); ok {
				s.ack(uriPath(uri), line, who)
			}
		case r < 0.80: // read a note, then append to it with its checksum
			uri := shared[rng.IntN(len(shared))]
			if rng.IntN(2) == 0 {
				uri = own[rng.IntN(len(own))]
			}
			res, ok := call("read_note", map[string]any{"uri": uri}, false)
			if !ok {
				break
			}
			s.checkRead(who, uri, res, ownLines[uri])
			sum, _ := res["checksum"].(string)
			if _, ok := call("edit_note", map[string]any{"uri": uri, "op": "append", "content": line, "expected_checksum": sum}, true); ok {
				s.ack(uriPath(uri), line, who)
				if _, mine := ownLines[uri]; mine {
					ownLines[uri] = append(ownLines[uri], line)
				}
			}
		default: // read an own note back
			uri := own[rng.IntN(len(own))]
			if res, ok := call("read_note", map[string]any{"uri": uri}, false); ok {
				s.checkRead(who, uri, res, ownLines[uri])
			}
		}
		time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
	}
}

// checkRead: a read of an own note shows every line the writer had
// acknowledged in it, whatever server restarts came between.
func (s *teamSoakState) checkRead(who, uri string, res map[string]any, want []string) {
	content, _ := res["content"].(string)
	for _, l := range want {
		if !strings.Contains(content, l+"\n") {
			s.mu.Lock()
			s.staleReads++
			s.mu.Unlock()
			s.bad("%s read_note %s misses its acknowledged line %q", who, uri, l)
			return
		}
	}
}

// verify checks the database and every server's folder against the
// acknowledged writes, and every server's index against a fresh reindex
// of the pulled vault. The servers are stopped for the index check.
func (s *teamSoakState) verify(st *postgres.Store, dir string) (lost, corrupt, disagree int) {
	t := s.t
	want := storeFiles(t, st)
	s.mu.Lock()
	for path, lines := range s.lines {
		data := string(want[path])
		for l, who := range lines {
			switch n := strings.Count(data, l+"\n"); {
			case n == 0:
				lost++
				if lost <= 20 {
					t.Logf("team soak: LOST in the database: %q in %s (%s)", l, path, who)
				}
			case n > 1:
				corrupt++
				t.Logf("team soak: corrupt: %q %d times in %s", l, n, path)
			}
		}
	}
	s.mu.Unlock()
	for path, data := range want {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.Contains(l, "team soak s") && !(strings.HasPrefix(l, "- team soak s") && strings.HasSuffix(l, " end")) {
				corrupt++
				t.Logf("team soak: corrupt: partial line in %s: %q", path, l)
			}
		}
	}
	// Each folder holds exactly the database's files.
	for _, sv := range s.servers {
		if n := sameFiles(t, sv.name, want, folderNotes(t, sv.dir)); n > 0 {
			lost += n
			t.Logf("team soak: %s's folder differs from the database in %d files", sv.name, n)
		}
	}
	// Each server's index against a fresh reindex of the pulled vault,
	// with the server's modification times (the index records them).
	for _, sv := range s.servers {
		sv.stop()
	}
	for _, sv := range s.servers {
		d, c := reindexDisagreements(t, sv, want, dir)
		disagree += d
		corrupt += c
	}
	files := len(want)
	t.Logf("team soak: %d files in the database; %d lost, %d corrupt, %d index disagreements", files, lost, corrupt, disagree)
	return lost, corrupt, disagree
}

// reindexDisagreements compares the index of server sv (stopped) with a
// fresh reindex of want (the database's files) in a folder under dir, with
// the server's modification times (the index records them): it returns
// how many nodes and edges differ (or 1 when either could not be read),
// and how many warnings the rebuilt index has.
func reindexDisagreements(t *testing.T, sv *teamServer, want map[string][]byte, dir string) (disagree, corrupt int) {
	t.Helper()
	state := &soakState{t: t, logFile: os.Stderr}
	served, err := state.export(sv.dir)
	if err != nil {
		t.Errorf("%s: %v", sv.name, err)
		return 1, 0
	}
	cp := filepath.Join(dir, "pulled-"+sv.name)
	defer os.RemoveAll(cp)
	copyFiles(t, cp, want, sv.dir)
	out, code, _, err := state.runCLIOn(cp, "--json", "reindex")
	if err != nil || code != 0 {
		t.Errorf("reindex of the pulled vault: exit %d, %v: %.500s", code, err, out)
		return 1, 0
	}
	for _, w := range soakWarnings(out) {
		corrupt++
		t.Logf("corrupt: the rebuilt index warns: %s: %s: %s", w.Path, w.Code, w.Message)
	}
	rebuilt, err := state.export(cp)
	if err != nil {
		t.Errorf("%v", err)
		return 1, corrupt
	}
	n := soakDiffExports(t, served, rebuilt)
	t.Logf("%s's index against a fresh reindex of the pulled vault: %d nodes and edges, %d differ", sv.name, len(served), n)
	return n, corrupt
}

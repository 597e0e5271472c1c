package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/pgtest"
	"github.com/noema-mem/noema/postgres"
)

// The promises of a team's store (issue 22 part 2), on a real PostgreSQL
// with real `noema serve` processes over MCP HTTP: another server sees a
// write within a second (TestTeamVisibility), of two edits of one version
// on two servers exactly one wins (TestTeamSameChecksumEdits), and a server
// killed with SIGKILL during a 1,000-file merge leaves every other server
// and the database with all of it or none (TestTeamKillDuringMerge).
//
// By default they run at a tenth of the promises' counts, so that `go
// test ./...` stays fast; -team-proof runs them at the promised counts:
//
//	go test -count=1 -v -run '^TestTeam' ./cmd/noema/ -team-proof
var teamProof = flag.Bool("team-proof", false, "run the team tests at the promised counts (1,000 writes, 100 pairs, 6 kills)")

// teamCount is full under -team-proof, else a tenth of it (at least min).
func teamCount(full, least int) int {
	if *teamProof {
		return full
	}
	return max(full/10, least)
}

// teamStore returns the store URL of vault "team" in a fresh, migrated
// database, and the store itself for the test to read.
func teamStore(t *testing.T) (string, *postgres.Store) {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	if _, err := postgres.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	url := dsn + sep + "vault=team"
	st, err := postgres.OpenStore(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return url, st
}

// teamServer is a `noema --store URL serve` process on a folder of its
// own, on a fixed loopback address, that a test can kill and start again.
type teamServer struct {
	name, store, dir, addr string
	stderr                 io.Writer
	client                 *http.Client

	mu   sync.Mutex // guards cmd and done
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// newTeamServer returns a server of store on a new folder under parent,
// not started.
func newTeamServer(t testing.TB, name, store, parent string, stderr io.Writer) *teamServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	sv := &teamServer{name: name, store: store + "&application_name=" + teamApp(name), dir: filepath.Join(parent, name), addr: addr, stderr: stderr,
		client: &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: time.Minute}}
	t.Cleanup(sv.stop)
	return sv
}

// start starts the process and waits until it answers /healthz (it opens
// the folder and catches up with the store first).
func (sv *teamServer) start(ctx context.Context) error {
	cmd := exec.Command(binary, "--store", sv.store, "--vault", sv.dir, "serve", "--addr", sv.addr)
	cmd.Stderr = sv.stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	sv.mu.Lock()
	sv.cmd, sv.done = cmd, done
	sv.mu.Unlock()
	for {
		select {
		case <-done:
			return fmt.Errorf("%s exited before it answered", sv.name)
		case <-ctx.Done():
			cmd.Process.Kill()
			<-done
			return fmt.Errorf("%s did not answer: %w", sv.name, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
		if resp, err := sv.client.Get("http://" + sv.addr + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
}

// running reports whether the process is alive.
func (sv *teamServer) running() bool {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.done == nil {
		return false
	}
	select {
	case <-sv.done:
		return false
	default:
		return true
	}
}

// teamApp is the application_name a test server's connections carry.
func teamApp(name string) string { return "noema-test-" + name }

// connectionsGone waits until the database holds no connection of server
// name: a server killed in the middle of a transaction leaves its
// backend running the statements it had sent (a COMMIT among them may
// still commit), so the database's answer is final only then.
func connectionsGone(t testing.TB, store, name string) {
	t.Helper()
	dsn, _, err := postgres.SplitVault(store)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, teamApp(name)).Scan(&n); err != nil {
			t.Fatalf("connections of %s: %v", name, err)
		}
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// pid is the process's id (0 before the first start).
func (sv *teamServer) pid() int {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.cmd == nil {
		return 0
	}
	return sv.cmd.Process.Pid
}

// kill SIGKILLs the process and waits for it.
func (sv *teamServer) kill() {
	sv.mu.Lock()
	cmd, done := sv.cmd, sv.done
	sv.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// stop ends the process with SIGTERM (SIGKILL after 10 s) and waits for it.
func (sv *teamServer) stop() {
	sv.mu.Lock()
	cmd, done := sv.cmd, sv.done
	sv.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// session connects a new MCP client session to the server.
func (sv *teamServer) session(ctx context.Context) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "team-" + sv.name, Version: "v0"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + sv.addr + "/mcp", HTTPClient: sv.client, MaxRetries: -1}, nil)
}

// mustSession is session for the test itself; closed when t ends.
func (sv *teamServer) mustSession(t testing.TB) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := sv.session(ctx)
	if err != nil {
		t.Fatalf("%s: connect: %v", sv.name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// restart starts the (killed or stopped) server again, failing t when it
// does not answer within a minute.
func (sv *teamServer) restart(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := sv.start(ctx); err != nil {
		t.Fatal(err)
	}
}

// startTeamServer starts a new server of store under parent.
func startTeamServer(t testing.TB, name, store, parent string) *teamServer {
	t.Helper()
	sv := newTeamServer(t, name, store, parent, os.Stderr)
	sv.restart(t)
	return sv
}

// errTransport is a call that got no answer from the server (it died, or
// the session is gone): whether it happened is unknown.
var errTransport = errors.New("no answer")

// teamCall calls a tool. A tool's error is returned as its code and
// message; err is errTransport-wrapped when no answer came.
func teamCall(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (res map[string]any, code, msg string, err error) {
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, "", "", fmt.Errorf("%w: %s: %v", errTransport, tool, err)
	}
	res, code, msg = toolAnswer(r)
	return res, code, msg, nil
}

// toolAnswer decodes a tool's answer: its structured result, or the code
// and message of its error ("code: message").
func toolAnswer(r *mcp.CallToolResult) (res map[string]any, code, msg string) {
	if r.IsError {
		text := ""
		if len(r.Content) > 0 {
			if tc, ok := r.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		code, msg, _ := strings.Cut(text, ":")
		return nil, code, strings.TrimSpace(msg)
	}
	b, _ := json.Marshal(r.StructuredContent)
	json.Unmarshal(b, &res)
	return res, "", ""
}

// copyFiles writes files (vault path → bytes) into a new folder dst, each
// with the modification time of the same file in mtimes, when it has one
// (an index records them).
func copyFiles(t testing.TB, dst string, files map[string][]byte, mtimes string) {
	t.Helper()
	for rel, b := range files {
		p := filepath.Join(dst, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(filepath.Join(mtimes, filepath.FromSlash(rel))); err == nil {
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}
	}
}

// mustCall is teamCall for a call that must succeed.
func mustCall(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, code, msg, err := teamCall(ctx, cs, tool, args)
	if err != nil || code != "" {
		t.Fatalf("%s %v: %v %s %s", tool, args, err, code, msg)
	}
	return res
}

// followSeq is the last change of the store's feed the server's folder
// holds, from its status resource, and whether the server's first sync has
// ended.
func followSeq(ctx context.Context, cs *mcp.ClientSession) (seq int64, synced bool, err error) {
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "noema://status"})
	if err != nil {
		return 0, false, err
	}
	if len(r.Contents) == 0 {
		return 0, false, errors.New("status: no contents")
	}
	var st struct {
		Store *struct {
			Seq   int64
			Error string
		}
		Sync struct {
			Running    bool
			FinishedAt time.Time `json:"finished_at"`
			LastError  string    `json:"last_error"`
		}
	}
	if err := json.Unmarshal([]byte(r.Contents[0].Text), &st); err != nil {
		return 0, false, fmt.Errorf("status: %v", err)
	}
	if st.Store == nil {
		return 0, false, errors.New("status: no store: the server is not a working copy")
	}
	// A first sync that failed is no sync: the server runs it again.
	return st.Store.Seq, !st.Sync.Running && !st.Sync.FinishedAt.IsZero() && st.Sync.LastError == "", nil
}

// caughtUp waits until the server's folder holds the store's head and its
// first sync has ended. A server killed inside its own multi-file change
// after the folder took it and before the index did finds, started again,
// a folder that already holds the store's files (the follower has nothing
// to bring); its first sync, in the background, indexes them. Checks of
// the index wait for that sync, not only for the folder.
func caughtUp(t testing.TB, st *postgres.Store, cs *mcp.ClientSession, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	head, err := st.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for {
		seq, synced, err := followSeq(ctx, cs)
		if err == nil && seq >= head && synced {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the server did not reach the store's head %d and end its first sync within %v (at %d, synced %v, %v)", head, within, seq, synced, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// storeFiles reads every file of the store.
func storeFiles(t testing.TB, st *postgres.Store) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	var paths []string
	if err := st.ListFiles(ctx, func(fi noema.FileInfo) error { paths = append(paths, fi.Path); return nil }); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		f, err := st.ReadFile(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = f.Data
	}
	return files
}

// folderNotes reads every note file (.md outside dot-folders) of dir.
func folderNotes(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case strings.HasPrefix(d.Name(), "."):
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.IsDir() || !strings.HasSuffix(rel, ".md"):
			return nil
		}
		b, err := os.ReadFile(p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameFiles reports (up to 5 of) the differences between the store's
// files and a folder's notes; it returns how many paths differ.
func sameFiles(t testing.TB, what string, want, got map[string][]byte) int {
	t.Helper()
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	n := 0
	for _, p := range paths {
		w, inW := want[p]
		g, inG := got[p]
		if inW == inG && string(w) == string(g) {
			continue
		}
		n++
		if n <= 5 {
			t.Logf("%s: %s differs: in the store %v (%d bytes), in the folder %v (%d bytes)", what, p, inW, len(w), inG, len(g))
		}
	}
	return n
}

// durations summarises latencies: p50, p99 and max.
func durations(d []time.Duration) (p50, p99, worst time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return at(0.50), at(0.99), s[len(s)-1]
}

// TestTeamVisibility: a write on one server is read there at once, and on
// another within a second — p99 over 1,000 writes (-team-proof; 100 by
// default). Each write is a new note on server A; A must read it at once;
// from the moment A acknowledged it, B is asked for it (read_note) until
// it answers with the written version.
func TestTeamVisibility(t *testing.T) {
	store, _ := teamStore(t)
	parent := t.TempDir()
	a, b := startTeamServer(t, "a", store, parent), startTeamServer(t, "b", store, parent)
	ca, cb := a.mustSession(t), b.mustSession(t)
	n := teamCount(1000, 100)
	ctx := context.Background()
	var writes, seen []time.Duration
	for i := range n {
		began := time.Now()
		w := mustCall(t, ca, "write_note", map[string]any{"title": fmt.Sprintf("Visible %04d", i), "folder": "vis",
			"content": fmt.Sprintf("Write %d of the visibility test, about [[Visibility]].", i)})
		acked := time.Now()
		writes = append(writes, acked.Sub(began))
		uri, sum := w["uri"].(string), w["checksum"].(string)
		if own := mustCall(t, ca, "read_note", map[string]any{"uri": uri}); own["checksum"] != sum {
			t.Fatalf("write %d: the writing server reads %v, not its write %s", i, own["checksum"], sum)
		}
		for {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			res, code, _, err := teamCall(cctx, cb, "read_note", map[string]any{"uri": uri})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if code == "" && res["checksum"] == sum {
				break
			}
			if code != "" && code != "not_found" {
				t.Fatalf("read_note %s on b: %s", uri, code)
			}
			if time.Since(acked) > 10*time.Second {
				t.Fatalf("write %d: b does not read %s 10 s after a acknowledged it", i, uri)
			}
			time.Sleep(time.Millisecond)
		}
		seen = append(seen, time.Since(acked))
	}
	wp50, wp99, wmax := durations(writes)
	p50, p99, worst := durations(seen)
	t.Logf("team visibility over %d writes: write_note on a p50 %v p99 %v max %v; read on b after the acknowledgement p50 %v p99 %v max %v",
		n, wp50, wp99, wmax, p50, p99, worst)
	fmt.Printf("team visibility: %d writes; the other server reads a write p50 %v, p99 %v, max %v after it was acknowledged (write_note p50 %v, p99 %v)\n",
		n, p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond), worst.Round(10*time.Microsecond), wp50.Round(10*time.Microsecond), wp99.Round(10*time.Microsecond))
	// The promise is 1 s; a run of a tenth of the writes, beside the rest of
	// go test ./... on a loaded machine, only has to show the feed works.
	bound := 5 * time.Second
	if *teamProof {
		bound = time.Second
	}
	if p99 > bound {
		t.Errorf("another server saw writes within p99 %v, over %v (the promise is 1 s)", p99, bound)
	}
}

// TestTeamSameChecksumEdits: two servers edit one note, each from the
// version both hold, at once: exactly one edit succeeds and the other is
// refused with checksum_mismatch — 100 pairs (-team-proof; 10 by default)
// — and no acknowledged edit is lost in the database or either folder.
func TestTeamSameChecksumEdits(t *testing.T) {
	store, st := teamStore(t)
	parent := t.TempDir()
	a, b := startTeamServer(t, "a", store, parent), startTeamServer(t, "b", store, parent)
	sessions := []*mcp.ClientSession{a.mustSession(t), b.mustSession(t)}
	w := mustCall(t, sessions[0], "write_note", map[string]any{"title": "Contended", "content": "Edited by two servers at once."})
	uri, sum := w["uri"].(string), w["checksum"].(string)
	pairs := teamCount(100, 10)
	var acked []string
	wins := [2]int{}
	for round := range pairs {
		// Both servers hold the version the edits are planned from.
		for i, cs := range sessions {
			deadline := time.Now().Add(5 * time.Second)
			for {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				res, code, msg, err := teamCall(ctx, cs, "read_note", map[string]any{"uri": uri})
				cancel()
				if err != nil || (code != "" && code != "not_found") {
					t.Fatalf("round %d: read_note on server %d: %v %s %s", round, i, err, code, msg)
				}
				if res["checksum"] == sum {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("round %d: server %d does not hold %s within 5 s", round, i, sum)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		var wg sync.WaitGroup
		type outcome struct {
			res       map[string]any
			code, msg string
			err       error
		}
		outs := make([]outcome, 2)
		for i, cs := range sessions {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				o := &outs[i]
				o.res, o.code, o.msg, o.err = teamCall(ctx, cs, "edit_note", map[string]any{"uri": uri, "op": "append",
					"content": fmt.Sprintf("- round %03d server %d", round, i), "expected_checksum": sum})
			})
		}
		wg.Wait()
		won := 0
		for i, o := range outs {
			switch {
			case o.err != nil:
				t.Fatalf("round %d, server %d: %v", round, i, o.err)
			case o.code == "":
				won++
				wins[i]++
				sum = o.res["checksum"].(string)
				acked = append(acked, fmt.Sprintf("- round %03d server %d", round, i))
			case o.code != "checksum_mismatch":
				t.Fatalf("round %d, server %d: %s: %s", round, i, o.code, o.msg)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d of two edits of one version succeeded: %+v", round, won, outs)
		}
	}
	// Nothing acknowledged is lost: in the database and in both folders.
	want := storeFiles(t, st)
	data := string(want["Contended.md"])
	lost := 0
	for _, l := range acked {
		if strings.Count(data, l+"\n") != 1 {
			lost++
			t.Errorf("acknowledged %q: %d times in the database", l, strings.Count(data, l+"\n"))
		}
	}
	if n := strings.Count(data, "- round "); n != len(acked) {
		t.Errorf("the database holds %d edits, %d were acknowledged", n, len(acked))
	}
	for i, sv := range []*teamServer{a, b} {
		caughtUp(t, st, sessions[i], 10*time.Second)
		if n := sameFiles(t, sv.name, want, folderNotes(t, sv.dir)); n > 0 {
			t.Errorf("%s's folder differs from the database in %d files", sv.name, n)
		}
	}
	t.Logf("team same-checksum edits: %d pairs, exactly one of each pair succeeded (server a %d, server b %d), %d lost", pairs, wins[0], wins[1], lost)
	fmt.Printf("team same-checksum edits: %d pairs over two servers, exactly one of each succeeded (a %d, b %d), %d acknowledged edits lost\n", pairs, wins[0], wins[1], lost)
}

// mergeNotes is the number of notes that link the concept a merge rewrites.
const mergeNotes = 1000

// TestTeamKillDuringMerge: server A is killed with SIGKILL at random
// moments of a merge_concepts that rewrites 1,000 notes; the database and
// server B then hold all of the merge or none of it, never a
// half-rewritten set, and once A is started again its folder is the
// database's too. Every third round kills B instead, while it follows
// the merge: started again, it holds the merge whole. -team-proof kills 6
// times; by default once.
func TestTeamKillDuringMerge(t *testing.T) {
	store, st := teamStore(t)
	ctx := context.Background()
	rounds := teamCount(7, 2) // the first merge is not killed: it times the merge
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("seed %d", seed)
	// 1,000 notes, each linking one source concept per round; one note links the targets.
	cs := &noema.Changeset{}
	var targets []string
	for r := range rounds {
		targets = append(targets, fmt.Sprintf("[[Merge Target %d]]", r))
	}
	cs.Changes = append(cs.Changes, noema.FileChange{Path: "Targets.md", Before: noema.Absent,
		After: []byte("# Targets\n\n" + strings.Join(targets, " ") + "\n")})
	for i := range mergeNotes {
		var b strings.Builder
		fmt.Fprintf(&b, "# Linked %04d\n\n", i)
		for r := range rounds {
			fmt.Fprintf(&b, "Note %d links [[Merge Source %d]] in round %d.\n", i, r, r)
		}
		cs.Changes = append(cs.Changes, noema.FileChange{Path: fmt.Sprintf("linked/Linked %04d.md", i), Before: noema.Absent, After: []byte(b.String())})
	}
	if _, err := st.ApplyChangeset(ctx, cs); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	a, b := startTeamServer(t, "a", store, parent), startTeamServer(t, "b", store, parent)
	cb := b.mustSession(t)

	// merged reports, for round r, how many of the linked notes in files
	// still link the source and how many were rewritten.
	merged := func(files map[string][]byte, r int) (old, rewritten int) {
		src := fmt.Sprintf("[[Merge Source %d]]", r)
		for p, data := range files {
			if !strings.HasPrefix(p, "linked/") {
				continue
			}
			if strings.Contains(string(data), src) {
				old++
			} else {
				rewritten++
			}
		}
		return old, rewritten
	}
	// allOrNothing checks files for round r and reports whether the merge happened.
	allOrNothing := func(what string, files map[string][]byte, r int) bool {
		t.Helper()
		old, rewritten := merged(files, r)
		if old+rewritten != mergeNotes || (old != 0 && rewritten != 0) {
			t.Fatalf("round %d: %s holds half a merge: %d notes still link the source, %d were rewritten (of %d)", r, what, old, rewritten, mergeNotes)
		}
		return rewritten == mergeNotes
	}

	var took time.Duration
	outcomes := map[bool]int{} // killed merges: happened whole or not at all
	followerKills := 0
	for r := range rounds {
		ca, err := a.session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		caughtUp(t, st, ca, 30*time.Second)
		args := map[string]any{"sources": []string{fmt.Sprintf("Merge Source %d", r)}, "target": fmt.Sprintf("Merge Target %d", r),
			"dry_run": false, "force": true}
		// Round 0 times the merge. Then, in turn: A is killed just after it
		// staged every rewritten note beside it, when it sends the
		// changeset to the database (plus up to 300 ms); A is killed at a
		// random moment of the merge; B, which follows, is killed while it
		// brings the merge over.
		mode := []string{"follower", "at the push", "at random"}[r%3]
		var killAt time.Duration
		switch {
		case r == 0:
		case mode == "at the push":
			killAt = time.Duration(rng.Int64N(int64(300 * time.Millisecond)))
		default:
			killAt = time.Duration(rng.Int64N(int64(took) * 3 / 2))
		}
		began := time.Now()
		type answer struct {
			res  map[string]any
			code string
			err  error
		}
		done := make(chan answer, 1)
		go func() {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			res, code, msg, err := teamCall(cctx, ca, "merge_concepts", args)
			if code != "" {
				err = fmt.Errorf("%s: %s", code, msg)
			}
			done <- answer{res, code, err}
		}()
		var ans answer
		killed, killedB := false, false
		switch {
		case r == 0:
			ans = <-done
			took = time.Since(began)
			if ans.err != nil {
				t.Fatalf("the first merge: %v", ans.err)
			}
			t.Logf("round 0: merge_concepts rewrote %d notes in %v (not killed)", mergeNotes, took)
		case mode == "follower":
			// Once B has staged a random number of the rewritten notes it
			// brings over (plus up to 500 ms), or late if it never does.
			stop := make(chan struct{})
			select {
			case <-staged(filepath.Join(b.dir, "linked"), b.pid(), 1+rng.IntN(mergeNotes), killAt%(500*time.Millisecond), stop):
			case <-time.After(3 * took):
			}
			close(stop)
			killAt = time.Since(began)
			b.kill()
			killedB = true
			ans = <-done
		default:
			at, stop := time.After(killAt), make(chan struct{})
			if mode == "at the push" {
				at = staged(filepath.Join(a.dir, "linked"), a.pid(), mergeNotes, killAt, stop)
			}
			select {
			case ans = <-done:
			case <-at:
				killAt = time.Since(began)
				a.kill()
				killed = true
				ans = <-done
			}
			close(stop)
		}
		if killedB {
			b.restart(t)
			cb = b.mustSession(t)
		}
		ca.Close()
		if !killed && ans.err != nil {
			t.Fatalf("round %d: merge: %v", r, ans.err)
		}
		if killed {
			connectionsGone(t, store, a.name)
		}
		// The database, then B once it holds the database's head, then A
		// started again: all or nothing, and the same files.
		want := storeFiles(t, st)
		happened := allOrNothing("the database", want, r)
		caughtUp(t, st, cb, 30*time.Second)
		bFiles := folderNotes(t, b.dir)
		allOrNothing("server b", bFiles, r)
		if n := sameFiles(t, "b", want, bFiles); n > 0 {
			t.Fatalf("round %d: server b's folder differs from the database in %d files", r, n)
		}
		if killed {
			a.restart(t)
			ca := a.mustSession(t)
			caughtUp(t, st, ca, 30*time.Second)
			aFiles := folderNotes(t, a.dir)
			allOrNothing("server a, started again", aFiles, r)
			if n := sameFiles(t, "a", want, aFiles); n > 0 {
				t.Fatalf("round %d: server a's folder, started again, differs from the database in %d files", r, n)
			}
			outcomes[happened]++
			t.Logf("round %d: a killed %s, %v into the merge: the merge %s, on the database, b, and a started again",
				r, mode, killAt.Round(time.Millisecond), map[bool]string{true: "happened whole", false: "did not happen at all"}[happened])
		} else if killedB {
			followerKills++
			t.Logf("round %d: b killed while it followed, %v into the merge: b, started again, holds the merge whole", r, killAt.Round(time.Millisecond))
		}
		if !killed && !happened {
			t.Fatalf("round %d: the merge answered %v and did not happen", r, ans.res)
		}
		// B's index agrees: once merged the source is an alias of the
		// target, else a concept of its own.
		res := mustCall(t, cb, "find_concepts", map[string]any{"query": fmt.Sprintf("Merge Source %d", r)})
		wantLabel := map[bool]string{true: "Merge Target %d", false: "Merge Source %d"}[happened]
		if c, _ := res["candidates"].([]any); len(c) == 0 || c[0].(map[string]any)["label"] != fmt.Sprintf(wantLabel, r) {
			t.Fatalf("round %d: b's index finds %.300v for the source, want %q first", r, res["candidates"], fmt.Sprintf(wantLabel, r))
		}
	}
	fmt.Printf("team kill during a %d-file merge: %d kills of the merging server (%d merges happened whole, %d not at all), %d of the following one, first merge %v; the database, the other server and the killed one once restarted held all or nothing\n",
		mergeNotes, outcomes[true]+outcomes[false], outcomes[true], outcomes[false], followerKills, took.Round(time.Millisecond))
}

// staged returns a channel that receives once dir holds n temporary files
// of process pid (a changeset staged its new notes) and then after has
// passed, or never once stop is closed.
func staged(dir string, pid, n int, after time.Duration, stop <-chan struct{}) <-chan time.Time {
	mark := fmt.Sprintf(".tmp-%d-", pid)
	fire := make(chan time.Time, 1)
	go func() {
		for {
			entries, _ := os.ReadDir(dir)
			temps := 0
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), mark) {
					temps++
				}
			}
			if temps >= n {
				time.Sleep(after)
				fire <- time.Now()
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return fire
}

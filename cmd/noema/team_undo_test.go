package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/noema-mem/noema"
)

// undoNotes is the number of notes the merge that TestTeamUndo undoes
// rewrites.
const undoNotes = 300

// newestOperation is the newest entry of the operation log a server lists.
func newestOperation(t *testing.T, sv *teamServer) (id, tool string, files int) {
	t.Helper()
	cs := sv.mustSession(t)
	res := mustCall(t, cs, "list_operations", map[string]any{"limit": 1})
	ops, _ := res["operations"].([]any)
	if len(ops) == 0 {
		return "", "", 0
	}
	op := ops[0].(map[string]any)
	n, _ := op["file_count"].(float64)
	return op["id"].(string), op["tool"].(string), int(n)
}

// changedFiles counts the paths whose bytes differ between x and y (or
// that only one holds).
func changedFiles(x, y map[string][]byte) int {
	n := 0
	for p, d := range x {
		if e, ok := y[p]; !ok || string(d) != string(e) {
			n++
		}
	}
	for p := range y {
		if _, ok := x[p]; !ok {
			n++
		}
	}
	return n
}

// TestTeamUndo: the operation log is the team's. A merge made on server A
// is listed on server B, which undoes it: the database and both folders
// hold the files as before the merge, byte for byte, and A lists the
// undo. Undoing the merge again is a conflict (the database's files no
// longer hold what it wrote). Then A undoes the last undo (a redo) and is
// killed with SIGKILL at a random moment of it, rounds times: each time
// the database, B, and A started again hold all of it or none of it, and
// the log holds its entry exactly when it happened. At the end each
// server's index equals a fresh reindex of the database's files.
func TestTeamUndo(t *testing.T) {
	store, st := teamStore(t)
	ctx := context.Background()
	rounds := teamCount(6, 2)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 2))
	t.Logf("seed %d", seed)
	cs := &noema.Changeset{Changes: []noema.FileChange{{Path: "Target.md", Before: noema.Absent,
		After: []byte("# Target\n\n[[Undo Target]] is where [[Undo Source]] goes.\n")}}}
	for i := range undoNotes {
		cs.Changes = append(cs.Changes, noema.FileChange{Path: fmt.Sprintf("linked/Linked %04d.md", i), Before: noema.Absent,
			After: []byte(fmt.Sprintf("# Linked %04d\n\nNote %d links [[Undo Source]] and [[Topic %d]].\n", i, i, i%7))})
	}
	if _, err := st.ApplyChangeset(ctx, cs); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	a, b := startTeamServer(t, "a", store, parent), startTeamServer(t, "b", store, parent)
	ca, cb := a.mustSession(t), b.mustSession(t)
	caughtUp(t, st, ca, 30*time.Second)
	caughtUp(t, st, cb, 30*time.Second)
	before := storeFiles(t, st)

	mustCall(t, ca, "merge_concepts", map[string]any{"sources": []string{"Undo Source"}, "target": "Undo Target", "dry_run": false, "force": true})
	merged := storeFiles(t, st)
	if n := changedFiles(before, merged); n < undoNotes {
		t.Fatalf("the merge changed %d files, want at least %d", n, undoNotes)
	}
	// B lists A's merge, and undoes it.
	caughtUp(t, st, cb, 30*time.Second)
	mergeID, tool, files := newestOperation(t, b)
	if tool != "merge_concepts" || files < undoNotes {
		t.Fatalf("b lists %s %s of %d files first, want A's merge_concepts of at least %d", mergeID, tool, files, undoNotes)
	}
	began := time.Now()
	res := mustCall(t, cb, "undo_operation", map[string]any{"id": mergeID})
	took := time.Since(began)
	undoID, _ := res["operation"].(string)
	if reverted, _ := res["reverted"].([]any); len(reverted) != files || undoID == "" {
		t.Fatalf("b's undo of %s reverted %d of %d files, its entry %q: %v", mergeID, len(reverted), files, undoID, res["message"])
	}
	t.Logf("b undid a's merge of %d files in %v", files, took.Round(time.Millisecond))
	// Byte for byte, in the database and both folders; A lists the undo.
	if n := sameFiles(t, "the database after the undo", before, storeFiles(t, st)); n > 0 {
		t.Fatalf("after b's undo the database differs from before the merge in %d files", n)
	}
	checkFolders := func(what string, want map[string][]byte) {
		t.Helper()
		for _, sv := range []*teamServer{a, b} {
			caughtUp(t, st, sv.mustSession(t), 30*time.Second)
			if n := sameFiles(t, sv.name, want, folderNotes(t, sv.dir)); n > 0 {
				t.Fatalf("%s: %s's folder differs from the database in %d files", what, sv.name, n)
			}
		}
	}
	checkFolders("after b's undo", before)
	if id, tool, _ := newestOperation(t, a); id != undoID || tool != "undo_operation" {
		t.Fatalf("a lists %s %s first, want b's undo %s", id, tool, undoID)
	}
	// The merge's files no longer hold what it wrote: undoing it again is
	// refused by the database's compare, on either server.
	if _, code, msg, err := teamCall(ctx, ca, "undo_operation", map[string]any{"id": mergeID}); err != nil || code != "conflict" {
		t.Fatalf("a second undo of the merge: %v %s %s, want conflict", err, code, msg)
	}

	// Redo (the undo of the last undo) on A, killed at a random moment.
	last, state, other := undoID, before, merged
	outcomes := map[bool]int{}
	for r := range rounds {
		killAt := time.Duration(rng.Int64N(int64(took)))
		sess, err := a.session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			_, code, msg, err := teamCall(cctx, sess, "undo_operation", map[string]any{"id": last})
			if err == nil && code != "" {
				err = fmt.Errorf("%s: %s", code, msg)
			}
			done <- err
		}()
		killed := false
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("round %d: the redo: %v", r, err)
			}
		case <-time.After(killAt):
			a.kill()
			killed = true
			<-done
			connectionsGone(t, store, a.name)
		}
		sess.Close()
		now := storeFiles(t, st)
		happened := changedFiles(other, now) == 0
		if !happened && changedFiles(state, now) != 0 {
			t.Fatalf("round %d: a killed %v into an undo: the database holds part of it (%d files as before it, %d as after)",
				r, killAt, len(now)-changedFiles(state, now), len(now)-changedFiles(other, now))
		}
		if !killed && !happened {
			t.Fatalf("round %d: the undo answered and did not happen", r)
		}
		if killed {
			a.restart(t)
			outcomes[happened]++
		}
		id, tool, _ := newestOperation(t, b)
		switch {
		case happened && (id == last || tool != "undo_operation"):
			t.Fatalf("round %d: the undo happened but the log's newest entry is %s %s", r, id, tool)
		case !happened && id != last:
			t.Fatalf("round %d: the undo did not happen but the log holds %s %s after %s", r, id, tool, last)
		}
		checkFolders(fmt.Sprintf("round %d", r), now)
		t.Logf("round %d: a %s %v into the undo of %s: it %s, on the database, its log, b and a", r,
			map[bool]string{true: "killed", false: "not killed"}[killed], killAt.Round(time.Millisecond), last,
			map[bool]string{true: "happened whole", false: "did not happen at all"}[happened])
		if happened {
			last, state, other = id, other, state
		}
	}
	// Each index against a fresh reindex of the database's files.
	want := storeFiles(t, st)
	a.stop()
	b.stop()
	for _, sv := range []*teamServer{a, b} {
		if d, c := reindexDisagreements(t, sv, want, parent); d+c > 0 {
			t.Errorf("%s's index: %d nodes and edges differ from a fresh reindex, %d warnings", sv.name, d, c)
		}
	}
	fmt.Printf("team undo: b undid a's %d-file merge in %v (database and both folders byte for byte as before); %d kills of a during an undo: %d happened whole, %d not at all; indexes equal to a fresh reindex\n",
		files, took.Round(time.Millisecond), outcomes[true]+outcomes[false], outcomes[true], outcomes[false])
}

package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/noema-mem/noema"
)

// OperationStore is a store that keeps an operation log.
type OperationStore interface {
	noema.Store
	noema.OperationLog
}

// RunOperationLog runs the conformance suite of [noema.OperationLog] on a
// store that keeps one: newStore returns an empty store of its own whose
// log is bounded by limits.
func RunOperationLog(t *testing.T, newStore func(t *testing.T, limits noema.OperationLimits) OperationStore) {
	tests := []struct {
		name   string
		limits noema.OperationLimits
		fn     func(t *testing.T, s OperationStore)
	}{
		{"Recorded", noema.OperationLimits{}, opRecorded},
		{"OnlyOperationsThatHappened", noema.OperationLimits{}, opOnlyHappened},
		{"NewestFirstPaged", noema.OperationLimits{}, opPaged},
		{"IDs", noema.OperationLimits{}, opIDs},
		{"BoundedBySize", noema.OperationLimits{MaxBytes: 1}, opBoundedBySize},
		{"BoundedByAge", noema.OperationLimits{MaxAge: opAge}, opBoundedByAge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t, tc.limits)) })
	}
}

// opAge is the age bound BoundedByAge sets.
const opAge = 500 * time.Millisecond

// okOps lists the whole log.
func okOps(t *testing.T, s OperationStore) ([]noema.Operation, int) {
	t.Helper()
	ops, total, err := s.Operations(ctx, 0, 0)
	ok(t, err)
	return ops, total
}

// ids are the operations' ids, in order.
func ids(ops []noema.Operation) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = op.ID
	}
	return out
}

// applyOp applies a changeset that replaces path with data as operation
// tool and returns its id.
func applyOp(t *testing.T, s OperationStore, tool, path, old, data string) string {
	t.Helper()
	id := noema.NewOperationID(time.Now())
	before := noema.Absent
	if old != "" {
		before = sum(old)
	}
	okApply(t, s, &noema.Changeset{Operation: tool, OperationID: id,
		Changes: []noema.FileChange{{Path: path, Before: before, After: []byte(data)}}})
	return id
}

func opRecorded(t *testing.T, s OperationStore) {
	okWrite(t, s, "a.md", []byte("A"), noema.Absent)
	okWrite(t, s, "dir/b.md", []byte("B"), noema.Absent)
	okWrite(t, s, "empty.md", []byte{}, noema.Absent)
	began := time.Now()
	id := noema.NewOperationID(began)
	okApply(t, s, &noema.Changeset{Operation: "merge_concepts", OperationID: id, Changes: []noema.FileChange{
		{Path: "a.md", Before: sum("A"), After: []byte("A2")},
		{Path: "c.md", Before: noema.Absent, After: []byte("C")},
		{Path: "dir/b.md", Before: sum("B"), Delete: true},
		{Path: "empty.md", Before: sum(""), After: []byte("E")},
	}})
	want := []noema.OperationFile{
		{Path: "a.md", Before: sum("A"), After: sum("A2")},
		{Path: "c.md", Before: noema.Absent, After: sum("C")},
		{Path: "dir/b.md", Before: sum("B"), After: noema.Absent},
		{Path: "empty.md", Before: sum(""), After: sum("E")},
	}
	ops, total := okOps(t, s)
	if total != 1 || len(ops) != 1 {
		t.Fatalf("the log holds %d operations (total %d), want 1", len(ops), total)
	}
	op := ops[0]
	if op.ID != id || op.Tool != "merge_concepts" || op.At.Before(began.Add(-time.Minute)) || op.At.After(time.Now().Add(time.Minute)) {
		t.Errorf("listed %s %s at %v, want %s merge_concepts about %v", op.ID, op.Tool, op.At, id, began)
	}
	if !slices.EqualFunc(op.Files, want, func(a, b noema.OperationFile) bool {
		return a.Path == b.Path && a.Before == b.Before && a.After == b.After && a.Data == nil
	}) {
		t.Errorf("listed files %+v, want %+v without data", op.Files, want)
	}
	full, err := s.Operation(ctx, id)
	ok(t, err)
	if full.ID != id || full.Tool != "merge_concepts" || len(full.Files) != len(want) {
		t.Fatalf("Operation(%s) = %+v", id, full)
	}
	wantData := []*string{ptr("A"), nil, ptr("B"), ptr("")}
	for i, f := range full.Files {
		if f.Path != want[i].Path || f.Before != want[i].Before || f.After != want[i].After {
			t.Errorf("file %d: %+v, want %+v", i, f, want[i])
		}
		switch w := wantData[i]; {
		case w == nil && f.Data != nil:
			t.Errorf("%s: before-image %q, want none (created)", f.Path, f.Data)
		case w != nil && (f.Data == nil || string(f.Data) != *w):
			t.Errorf("%s: before-image %q (nil %v), want %q", f.Path, f.Data, f.Data == nil, *w)
		}
	}
}

func ptr(s string) *string { return &s }

func opOnlyHappened(t *testing.T, s OperationStore) {
	seed(t, s)
	// no operation named: no entry
	okApply(t, s, &noema.Changeset{Changes: []noema.FileChange{{Path: "a.md", Before: sum("a.md"), After: []byte("a2")}}})
	okWrite(t, s, "x.md", []byte("x"), noema.Absent)
	// refused: nothing written, no entry
	id := noema.NewOperationID(time.Now())
	_, err := s.ApplyChangeset(ctx, &noema.Changeset{Operation: "merge_concepts", OperationID: id, Changes: []noema.FileChange{
		{Path: "a.md", Before: sum("a2"), After: []byte("a3")},
		{Path: "b.md", Before: sum("stale"), After: []byte("b3")},
	}})
	wantCode(t, "a refused operation", err, noema.ECHECKSUM)
	content(t, s, "a.md", "a2")
	if ops, total := okOps(t, s); total != 0 || len(ops) != 0 {
		t.Errorf("the log holds %v (total %d), want nothing", ids(ops), total)
	}
	_, err = s.Operation(ctx, id)
	wantCode(t, "the refused operation", err, noema.ENOTFOUND)
}

func opPaged(t *testing.T, s OperationStore) {
	var made []string
	for i, tool := range []string{"move_note", "update_concept", "delete_concept"} {
		made = append(made, applyOp(t, s, tool, "n.md", map[bool]string{true: "", false: string(rune('0' + i - 1))}[i == 0], string(rune('0'+i))))
		time.Sleep(2 * time.Millisecond) // ids sort by time
	}
	slices.Reverse(made)
	ops, total := okOps(t, s)
	if total != 3 || !slices.Equal(ids(ops), made) {
		t.Fatalf("the log lists %v (total %d), want %v newest first", ids(ops), total, made)
	}
	page, total, err := s.Operations(ctx, 1, 1)
	ok(t, err)
	if total != 3 || !slices.Equal(ids(page), made[1:2]) || page[0].Tool != "update_concept" {
		t.Errorf("offset 1 limit 1: %v (total %d), want %v", ids(page), total, made[1:2])
	}
	page, total, err = s.Operations(ctx, 5, 10)
	ok(t, err)
	if total != 3 || len(page) != 0 || page == nil {
		t.Errorf("past the end: %v (nil %v, total %d), want an empty page, total 3", ids(page), page == nil, total)
	}
}

func opIDs(t *testing.T, s OperationStore) {
	_, err := s.Operation(ctx, "nope")
	wantCode(t, "a malformed id", err, noema.EINVALID)
	_, err = s.Operation(ctx, noema.NewOperationID(time.Now()))
	wantCode(t, "an unknown id", err, noema.ENOTFOUND)
	_, err = s.ApplyChangeset(ctx, &noema.Changeset{Operation: "move_note", OperationID: "../etc",
		Changes: []noema.FileChange{{Path: "a.md", Before: noema.Absent, After: []byte("a")}}})
	wantCode(t, "a changeset with a malformed operation id", err, noema.EINVALID)
	absent(t, s, "a.md")
	// no id: the store makes one
	okApply(t, s, &noema.Changeset{Operation: "move_note", Changes: []noema.FileChange{{Path: "a.md", Before: noema.Absent, After: []byte("a")}}})
	ops, _ := okOps(t, s)
	if len(ops) != 1 || !noema.ValidOperationID(ops[0].ID) || ops[0].Tool != "move_note" {
		t.Fatalf("a changeset without an operation id logged %+v", ops)
	}
	if _, err := s.Operation(ctx, ops[0].ID); err != nil {
		t.Error(err)
	}
}

func opBoundedBySize(t *testing.T, s OperationStore) {
	first := applyOp(t, s, "move_note", "a.md", "", "a")
	time.Sleep(2 * time.Millisecond)
	second := applyOp(t, s, "move_note", "a.md", "a", "b")
	ops, total := okOps(t, s)
	if total != 1 || !slices.Equal(ids(ops), []string{second}) {
		t.Errorf("bounded to 1 byte, the log holds %v (total %d), want only the last (%s), not %s", ids(ops), total, second, first)
	}
	_, err := s.Operation(ctx, first)
	wantCode(t, "a pruned operation", err, noema.ENOTFOUND)
}

func opBoundedByAge(t *testing.T, s OperationStore) {
	began := time.Now()
	first := applyOp(t, s, "move_note", "a.md", "", "a")
	second := applyOp(t, s, "move_note", "a.md", "a", "b")
	// (on a machine too loaded to make two writes within the bound, the
	// first may be gone already)
	if ops, _ := okOps(t, s); len(ops) != 2 && time.Since(began) < opAge/2 {
		t.Fatalf("two operations within the age bound: the log holds %v", ids(ops))
	}
	time.Sleep(opAge + 50*time.Millisecond)
	third := applyOp(t, s, "move_note", "a.md", "b", "c")
	ops, total := okOps(t, s)
	if total != 1 || !slices.Equal(ids(ops), []string{third}) {
		t.Errorf("after the age bound, the log holds %v (total %d), want only %s (not %s, %s)", ids(ops), total, third, first, second)
	}
}

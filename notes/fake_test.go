package notes_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/testkit"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/vault"
)

var _ noema.NoteIndex = (*testkit.Notes)(nil)

// fakeNotes is a notes service over the in-memory note index and a vault
// holding one of its notes' files (projects/Launch Plan.md): four notes,
// a day apart, the oldest read an hour ago.
func fakeNotes(t *testing.T) (*notes.Service, *testkit.Notes, time.Time) {
	t.Helper()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "projects", "Launch Plan.md"), []byte("---\ntitle: Launch Plan\n---\nShip it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := testkit.NewNotes(testkit.NewConcepts(vault.Key), func() time.Time { return now })
	day := func(n int) time.Time { return now.AddDate(0, 0, -n) }
	ix.Put(noema.NoteSummary{Path: "projects/Launch Plan.md", Title: "Launch Plan", Tags: []string{"Work"}, Modified: day(1)})
	ix.Put(noema.NoteSummary{Path: "projects/Budget.md", Title: "Budget", Tags: []string{"work", "money"}, Modified: day(2)})
	ix.Put(noema.NoteSummary{Path: "projects-old/Draft.md", Title: "Draft", Tags: []string{"work"}, Modified: day(3)})
	ix.Put(noema.NoteSummary{Path: "Journal.md", Title: "Journal", Modified: day(9), Accessed: now.Add(-time.Hour)})
	syncer := ix.Sync(func(path string) (noema.NoteSummary, bool, error) {
		n, content, _, err := v.ReadNote(path)
		if errors.Is(err, fs.ErrNotExist) {
			return noema.NoteSummary{}, false, nil
		}
		if err != nil {
			return noema.NoteSummary{}, false, err
		}
		return noema.NoteSummary{Title: n.Title, Tags: n.Tags, Size: int64(len(content)), Checksum: noema.Checksum(content), Modified: now}, true, nil
	})
	return &notes.Service{Vault: v, DB: ix, Sync: syncer, Now: func() time.Time { return now }}, ix, now
}

func paths(r *notes.ListResult) []string {
	var out []string
	for _, n := range r.Notes {
		out = append(out, n.Path)
	}
	return out
}

func TestListOnFake(t *testing.T) {
	ctx := context.Background()
	s, _, _ := fakeNotes(t)
	tests := []struct {
		in      notes.ListInput
		want    []string
		total   int
		hasMore bool
	}{
		{notes.ListInput{}, []string{"Journal.md", "projects-old/Draft.md", "projects/Budget.md", "projects/Launch Plan.md"}, 4, false},
		{notes.ListInput{Folder: "/projects/"}, []string{"projects/Budget.md", "projects/Launch Plan.md"}, 2, false},
		{notes.ListInput{Tag: "#WORK", Limit: 2}, []string{"projects-old/Draft.md", "projects/Budget.md"}, 3, true},
		{notes.ListInput{Tag: "work", Offset: 2, Limit: 2}, []string{"projects/Launch Plan.md"}, 3, false},
	}
	for _, tt := range tests {
		res, err := s.List(ctx, tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(res); !slices.Equal(got, tt.want) || res.Total != tt.total || res.HasMore != tt.hasMore {
			t.Errorf("List(%+v) = %q (total %d, more %v), want %q (total %d, more %v)", tt.in, got, res.Total, res.HasMore, tt.want, tt.total, tt.hasMore)
		}
	}
	if _, err := s.List(ctx, notes.ListInput{Offset: -1}); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("offset -1: %v, want invalid_argument", err)
	}
}

// TestReadByTitleOnFake resolves a title through the index (exactly, then
// by key), reads the file, and records the read: the note becomes the
// most recent.
func TestReadByTitleOnFake(t *testing.T) {
	ctx := context.Background()
	s, ix, now := fakeNotes(t)
	recent := func(since string) []string {
		t.Helper()
		res, err := s.Recent(ctx, notes.RecentInput{Since: since})
		if err != nil {
			t.Fatal(err)
		}
		return paths(res)
	}
	if got := recent(""); got[0] != "Journal.md" {
		t.Fatalf("recent before the read = %q, want the journal (read an hour ago) first", got)
	}
	n, err := s.Read(ctx, "launch-plan")
	if err != nil {
		t.Fatal(err)
	}
	if n.Path != "projects/Launch Plan.md" || !strings.Contains(n.Content, "Ship it.") {
		t.Errorf("Read(launch-plan) = %s %q, want the launch plan's file", n.Path, n.Content)
	}
	if got, _ := ix.Get("projects/Launch Plan.md"); !got.Accessed.Equal(now) {
		t.Errorf("the read was recorded at %v, want %v", got.Accessed, now)
	}
	if got := recent("2h"); !slices.Equal(got, []string{"projects/Launch Plan.md", "Journal.md"}) {
		t.Errorf("recent in 2h after the read = %q, want the launch plan, then the journal", got)
	}
	_, err = s.Read(ctx, "Lunch Plan")
	if noema.ErrorCode(err) != noema.ENOTFOUND || !strings.Contains(noema.ErrorMessage(err), `closest titles: "Launch Plan"`) {
		t.Errorf("Read(Lunch Plan): %v, want not_found naming Launch Plan", err)
	}
}

// TestWriteOnFake writes notes through the fake index: a second note
// answering to a title is a conflict the index tells, and a written note
// is listed once the service has synced it.
func TestWriteOnFake(t *testing.T) {
	ctx := context.Background()
	s, ix, _ := fakeNotes(t)
	_, err := s.Write(ctx, notes.WriteInput{Title: "launch plan", Folder: "archive", Content: "Old plan."})
	if noema.ErrorCode(err) != noema.ECONFLICT || !strings.Contains(noema.ErrorMessage(err), "projects/Launch Plan") {
		t.Fatalf("a second launch plan: %v, want a conflict naming projects/Launch Plan", err)
	}
	res, err := s.Write(ctx, notes.WriteInput{Title: "launch plan", Folder: "archive", Content: "Old plan.", Tags: []string{"old"}, AllowDuplicateTitle: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != "archive/launch plan.md" || !res.Created || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "duplicate title") {
		t.Errorf("allowed duplicate = %+v, want archive/launch plan.md created with a duplicate-title warning", res)
	}
	n, ok := ix.Get(res.Path)
	if !ok || n.Title != "launch plan" || !slices.Equal(n.Tags, []string{"old"}) || n.Checksum != res.Checksum {
		t.Errorf("the index holds %+v (%v), want the note as written", n, ok)
	}
	list, err := s.List(ctx, notes.ListInput{Tag: "old"})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(list); !slices.Equal(got, []string{"archive/launch plan.md"}) {
		t.Errorf("notes tagged old = %q, want the new note", got)
	}
}

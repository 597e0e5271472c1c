package notes_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
)

// TestConcurrentSameChecksumEdits sends pairs of appends that expect the
// same checksum at once, through one service (one server) and through two
// services on one vault (two servers): exactly one of each pair may
// succeed, the other must get checksum_mismatch, and every acknowledged line
// must be in the file.
func TestConcurrentSameChecksumEdits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		servers int
	}{{"one server", 1}, {"two servers", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir() + "/vault"
			a := noematest.OpenApp(t, dir, app.Options{})
			svcs := []*notes.Service{a.Notes}
			if tc.servers == 2 {
				svcs = append(svcs, noematest.OpenApp(t, dir, app.Options{}).Notes)
			}
			ctx := context.Background()
			w := noematest.WriteNote(t, a, notes.WriteInput{Title: "Shared", Content: "start\n"})
			const pairs = 40
			var acked []string
			for i := range pairs {
				r, err := a.Notes.Read(ctx, w.URI)
				if err != nil {
					t.Fatal(err)
				}
				errs := noematest.Concurrently(2, func(j int) error {
					_, err := svcs[j%len(svcs)].Edit(ctx, notes.EditInput{URI: w.URI, Op: notes.OpAppend,
						Content: fmt.Sprintf("line %d-%d", i, j), ExpectedChecksum: r.Checksum})
					return err
				})
				ok := 0
				for j, err := range errs {
					switch noema.ErrorCode(err) {
					case "":
						ok++
						acked = append(acked, fmt.Sprintf("line %d-%d", i, j))
					case noema.ECHECKSUM:
					default:
						t.Fatalf("pair %d: %v", i, err)
					}
				}
				if ok != 1 {
					t.Fatalf("pair %d: %d edits acknowledged, want exactly 1 (errors %v)", i, ok, errs)
				}
			}
			r, err := a.Notes.Read(ctx, w.URI)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range acked {
				if !strings.Contains(r.Content, line+"\n") {
					t.Errorf("acknowledged %q lost", line)
				}
			}
		})
	}
}

// TestConcurrentAppendsAllLand: appends without a checksum never fail
// against each other and none is lost.
func TestConcurrentAppendsAllLand(t *testing.T) {
	dir := t.TempDir() + "/vault"
	a := noematest.OpenApp(t, dir, app.Options{})
	b := noematest.OpenApp(t, dir, app.Options{})
	ctx := context.Background()
	w := noematest.WriteNote(t, a, notes.WriteInput{Title: "Log", Content: "start\n"})
	const n = 60
	errs := noematest.Concurrently(n, func(i int) error {
		svc := a.Notes
		if i%2 == 1 {
			svc = b.Notes
		}
		_, err := svc.Edit(ctx, notes.EditInput{URI: w.URI, Op: notes.OpAppend, Content: fmt.Sprintf("entry %d", i)})
		return err
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Notes.Read(ctx, w.URI)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if !strings.Contains(r.Content, fmt.Sprintf("entry %d\n", i)) {
			t.Errorf("entry %d lost", i)
		}
	}
}

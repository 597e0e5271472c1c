package sqlite_test

import (
	"context"
	"testing"
)

// TestGraphVersion: the fingerprint is stable while nothing changes, and
// moves when a note's links change (even with the same times, as a test
// record has), when a note comes or goes, and when concepts change.
func TestGraphVersion(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	version := func() string {
		t.Helper()
		v, err := db.Graph().GraphVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	empty := version()
	put(t, db, note("a.md", 1, "Go", "Rust"), note("b.md", 2, "Rust"))
	v1 := version()
	if v1 == empty || version() != v1 {
		t.Fatalf("versions %q, %q, %q", empty, v1, version())
	}
	changed := note("b.md", 2, "Rust", "Zig")
	changed.Hash = "sha256:00ff"
	put(t, db, changed)
	v2 := version()
	if v2 == v1 {
		t.Error("a note's new links left the version unchanged")
	}
	remove(t, db, "a.md")
	if v3 := version(); v3 == v2 {
		t.Error("a deleted note left the version unchanged")
	}

	l, err := db.Graph().ConceptLinks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.IDs) != 2 || len(l.Notes) != 1 || len(l.Notes[0]) != 2 { // Rust and Zig, linked by b
		t.Errorf("concept links = %+v", l)
	}
}

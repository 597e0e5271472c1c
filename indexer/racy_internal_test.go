package indexer

import (
	"io/fs"
	"testing"
	"time"

	"github.com/noema-mem/noema/sqlite"
)

type fakeInfo struct {
	fs.FileInfo
	size  int64
	mtime time.Time
}

func (f fakeInfo) Size() int64        { return f.size }
func (f fakeInfo) ModTime() time.Time { return f.mtime }
func (f fakeInfo) Sys() any           { return nil }

// TestUnchangedRacyClean: a file is trusted unread only when its stat
// matches and its mtime is safely older than the read that indexed it.
func TestUnchangedRacyClean(t *testing.T) {
	read := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		mtime time.Time
		size  int64
		want  bool
	}{
		{"old and matching", read.Add(-time.Minute), 10, true},
		{"mtime within the racy window", read.Add(-time.Second), 10, false},
		{"mtime after the read", read.Add(time.Millisecond), 10, false},
		{"size differs", read.Add(-time.Minute), 11, false},
	}
	for _, c := range cases {
		info := fakeInfo{size: c.size, mtime: c.mtime}
		st := sqlite.FileState{VerifiedNS: read.UnixNano()}
		if got := unchanged(10, c.mtime.UnixNano(), st, info); got != c.want {
			t.Errorf("%s: unchanged = %v, want %v", c.name, got, c.want)
		}
	}
	// A stored mtime that differs from the file's is never unchanged.
	info := fakeInfo{size: 10, mtime: read.Add(-time.Hour)}
	if unchanged(10, read.Add(-2*time.Hour).UnixNano(), sqlite.FileState{VerifiedNS: read.UnixNano()}, info) {
		t.Error("different mtime trusted")
	}
}

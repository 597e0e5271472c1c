package noema

import (
	"context"
	"time"
)

// TimeIndex is what search_notes and build_context read of memory over
// time (package timeline): which notes supersede which, and when each
// holds. sqlite.TimeIndex implements it.
type TimeIndex interface {
	// Timeline returns the index's timeline: prev itself when no note
	// changed since it was read, else one read anew.
	Timeline(ctx context.Context, prev *Timeline) (*Timeline, error)
	// NoteCreated returns when each note among the row ids was written
	// (TimedNote.Created), by row id; ids of no note are absent.
	NoteCreated(ctx context.Context, ids []int64) (map[int64]time.Time, error)
}

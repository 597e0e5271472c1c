package noema

import (
	"context"
	"time"
)

// Access is one explicit read of a note, which refreshes its decay.
type Access struct {
	// ID orders the accesses of a shared log (0 before it is recorded).
	ID   int64     `json:"id"`
	Path string    `json:"path"`
	At   time.Time `json:"at"`
	// Server names the process that recorded it, so that a server can skip
	// its own accesses when it reads the log back.
	Server string `json:"server"`
}

// AccessLog shares the explicit reads of a vault's notes between the
// servers of a team's store of record: decay weighs a note by when it was
// last read on any of them. A folder vault needs none (its index keeps
// its reads).
type AccessLog interface {
	// RecordAccesses appends accesses to the log.
	RecordAccesses(ctx context.Context, accesses []Access) error
	// AccessesSince returns, by ascending ID, at most limit accesses
	// recorded after the one numbered since.
	AccessesSince(ctx context.Context, since int64, limit int) ([]Access, error)
}

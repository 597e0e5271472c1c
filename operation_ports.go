package noema

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// The operation log. A [Changeset] that names its Operation (merge_concepts,
// move_note, update_concept, delete_concept, vault rename-files,
// undo_operation) is recorded by a store that keeps an [OperationLog], in
// the same all-or-nothing step as its files: the tool, the time, and for
// each file its path, its before-image (the bytes, or absent) and its
// after-checksum. Undo reads the record back and reverts the operation as
// a new changeset, compare-and-swap on the after-checksums. The folder
// store keeps its log in the folder; a database keeps it in the database,
// so that every server of a team lists and undoes every server's
// operations.

// OperationLog is a store's log of operations, newest first.
type OperationLog interface {
	// Operations returns the log's operations, newest first, from offset
	// on, at most limit of them (limit <= 0: all), and how many the log
	// holds. Their files carry no Data.
	Operations(ctx context.Context, offset, limit int) ([]Operation, int, error)
	// Operation returns the operation id with its files' before-images:
	// EINVALID for an id that is not one ([ValidOperationID]), ENOTFOUND
	// when the log holds none (never made, or pruned).
	Operation(ctx context.Context, id string) (*Operation, error)
}

// Operation is an entry of an [OperationLog].
type Operation struct {
	// ID names it; ids sort in the order the operations were made.
	ID string `json:"id"`
	// Tool is the tool or command that made it.
	Tool string `json:"tool"`
	// At is when it was made.
	At time.Time `json:"at"`
	// Files are the files it changed, in the changeset's order.
	Files []OperationFile `json:"files"`
}

// OperationFile is one file of an [Operation].
type OperationFile struct {
	Path string `json:"path"`
	// Before and After are the file's checksums before and after the
	// operation ([Absent]: no file).
	Before string `json:"before"`
	After  string `json:"after"`
	// Data is the before-image: the file's bytes before the operation
	// (nil when Before is Absent, and in a listing).
	Data []byte `json:"-"`
}

// OperationLimits bound an operation log: entries older than MaxAge go,
// then the oldest until the log holds at most MaxBytes. Zero means the
// default. The entry just written is always kept.
type OperationLimits struct {
	MaxAge   time.Duration
	MaxBytes int64
}

// Default bounds of an operation log.
const (
	DefaultOperationMaxAge   = 30 * 24 * time.Hour
	DefaultOperationMaxBytes = 200 << 20
)

// OrDefault returns l with its zero (or negative) bounds set to the
// defaults.
func (l OperationLimits) OrDefault() OperationLimits {
	if l.MaxAge <= 0 {
		l.MaxAge = DefaultOperationMaxAge
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultOperationMaxBytes
	}
	return l
}

const operationIDTime = "20060102T150405.000000000Z"

// NewOperationID returns an id for an operation made at t that sorts by
// time: the UTC time to the nanosecond and 4 random bytes.
func NewOperationID(t time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	return t.UTC().Format(operationIDTime) + "-" + hex.EncodeToString(b[:])
}

// ValidOperationID reports whether id has [NewOperationID]'s form.
func ValidOperationID(id string) bool {
	ts, suffix, ok := strings.Cut(id, "-")
	if !ok || len(suffix) != 8 {
		return false
	}
	if _, err := hex.DecodeString(suffix); err != nil {
		return false
	}
	_, err := time.Parse(operationIDTime, ts)
	return err == nil
}

// CheckOperationID refuses, with EINVALID, an id that is not one.
func CheckOperationID(id string) error {
	if !ValidOperationID(id) {
		return Errorf(EINVALID, "%q is not an operation id", id)
	}
	return nil
}

package noema

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"
)

// The store of record. A [Store] holds a vault's note files — Markdown
// files at vault-relative paths — and is the truth the index is rebuilt
// from. Two implement it: package vault, a folder on one machine, and package
// postgres, rows in a database many servers share.
//
// Every write states what it expects to find, as a checksum: the one the
// caller read (compare-and-swap), or [Absent] to create. Of two writers that
// expect the same checksum exactly one succeeds; the other gets ECHECKSUM
// and the current checksum, reads again and retries. No write holds
// anything between calls, so the same code works on a folder (where each
// call takes the vault's write lock for its duration) and on a database
// (where each call is one transaction). Several files change together, all
// or none, through a [Changeset].
//
// Errors carry the stable codes: EINVALID for a path that is not a note
// path of the store; ENOTFOUND for a read of a file that is not there;
// ECHECKSUM for a file that is not as a write expected — changed, or gone
// (details: "checksum", the current one, [Absent] for a missing file);
// ECONFLICT for a file created, or moved, onto a path that is taken;
// ENOSPACE for a full disk; EUNAVAILABLE when the store cannot be reached
// (nothing was written then). A context that is done stops a call with its
// error.

// Absent is the checksum of a file that does not exist. A write expecting
// it creates the file and fails with ECONFLICT if the path is taken.
const Absent = "absent"

// Checksum returns the checksum of a file's content: "sha256:" followed by
// the hex SHA-256 digest. Every store computes checksums this way, so a
// checksum read from one store means the same bytes in another.
func Checksum(content []byte) string {
	sum := sha256.Sum256(content)
	var buf [len("sha256:") + 2*sha256.Size]byte
	copy(buf[:], "sha256:")
	hex.Encode(buf[len("sha256:"):], sum[:])
	return string(buf[:])
}

// CheckExpect refuses, with EINVALID, an expected checksum that is
// neither a [Checksum] nor [Absent]: what every store checks first.
func CheckExpect(expect string) error {
	if expect == Absent || (strings.HasPrefix(expect, "sha256:") && len(expect) == len("sha256:")+2*sha256.Size) {
		return nil
	}
	return Errorf(EINVALID, "expected checksum %q is neither a sha256: checksum nor %q", expect, Absent)
}

// CheckExpectExisting is [CheckExpect] for a file that must exist (a
// move's or a deletion's): [Absent] is refused too.
func CheckExpectExisting(expect string) error {
	if expect == Absent {
		return Errorf(EINVALID, "a move or deletion expects the file's checksum, not %q", Absent)
	}
	return CheckExpect(expect)
}

// FileInfo describes a note file of a [Store] without its content.
type FileInfo struct {
	// Path is the vault-relative path, with forward slashes and ".md":
	// "notes/Garbage Collection.md".
	Path string
	// Size is the content's length in bytes.
	Size int64
	// Modified is when the content last changed.
	Modified time.Time
}

// File is a note file of a [Store] with its content.
type File struct {
	FileInfo
	Data []byte
	// Checksum is [Checksum] of Data: what a write expects to replace it.
	Checksum string
}

// FileReader reads single note files.
type FileReader interface {
	// ReadFile returns the file at path: ENOTFOUND when there is none,
	// EINVALID when path is not a note path of the store.
	ReadFile(ctx context.Context, path string) (*File, error)
}

// FileLister lists the note files.
type FileLister interface {
	// ListFiles calls fn with every note file, in path order (byte-wise),
	// and stops with fn's error. Files written while it lists may or may
	// not be seen; the change feed tells what changed after its Head.
	ListFiles(ctx context.Context, fn func(FileInfo) error) error
}

// FileWriter changes one file at a time, each call atomic and
// compare-and-swap on the file's checksum. Each returns the changes it made
// as the change feed records them.
type FileWriter interface {
	// WriteFile sets the content of path to data provided the file's
	// checksum is expect: the checksum the caller read (ECHECKSUM when the
	// content differs or the file is gone), or [Absent] to create it
	// (ECONFLICT when the path is taken).
	WriteFile(ctx context.Context, path string, data []byte, expect string) (Change, error)
	// MoveFile moves the file at from to to, provided from's checksum is
	// expect (ECHECKSUM) and to is free (ECONFLICT). The
	// content is unchanged; the feed records a deletion of from and a
	// write of to.
	MoveFile(ctx context.Context, from, to, expect string) ([]Change, error)
	// DeleteFile removes the file at path provided its checksum is expect
	// (ECHECKSUM).
	DeleteFile(ctx context.Context, path, expect string) (Change, error)
}

// ChangesetApplier changes several files all-or-nothing.
type ChangesetApplier interface {
	// ApplyChangeset applies every change of cs or none, even across a
	// crash of the process applying it. Every file must still have its
	// planned before-checksum: otherwise nothing is written and the error
	// is ECHECKSUM with the file's "path" and current "checksum" ([Absent]
	// for a missing file) in its details. A path listed twice, or a
	// deletion planned from [Absent], is EINVALID. It returns the changes
	// as the feed records them, in plan order.
	ApplyChangeset(ctx context.Context, cs *Changeset) ([]Change, error)
}

// ChangeFeed tells what changed: "everything since sequence N". A consumer
// (the indexer of a server) reads Head, lists the files, and from then on
// asks for the changes since the last sequence it has seen, waiting for
// the next with Wait.
type ChangeFeed interface {
	// Head returns the sequence number of the latest change recorded (or
	// the feed's start when it has none).
	Head(ctx context.Context) (int64, error)
	// ChangesSince returns the changes with a sequence number above since,
	// in ascending order, at most limit of them (limit <= 0: all). Every
	// path changed after since is among them, and its last entry is its
	// latest change; earlier changes of the same path may have been
	// folded into it. A since below the feed's start or above its Head
	// (a feed recreated, a database restored) is [ErrFeedReset]: list the
	// files again and continue from Head.
	ChangesSince(ctx context.Context, since int64, limit int) ([]Change, error)
	// Wait blocks until the feed's Head passes after, and returns it; it
	// returns ctx's error when ctx is done first.
	Wait(ctx context.Context, after int64) (int64, error)
}

// Store is the store of record of a vault's note files: package vault's
// folder, or a database. Consumers take the smallest of its parts they
// use.
type Store interface {
	FileReader
	FileLister
	FileWriter
	ChangesetApplier
	ChangeFeed
}

// ChangeKind says what a [Change] did to its path.
type ChangeKind string

// Change kinds.
const (
	// ChangeWrite: the path holds new content (created, replaced, or the
	// target of a move).
	ChangeWrite ChangeKind = "write"
	// ChangeDelete: the path holds no file any more (deleted, or the
	// source of a move).
	ChangeDelete ChangeKind = "delete"
)

// Change is an entry of the change feed: one path changed.
type Change struct {
	// Seq orders the changes of a store: strictly increasing. Zero in a
	// change a store made but could not record (see the store's docs).
	Seq  int64      `json:"seq"`
	Path string     `json:"path"`
	Kind ChangeKind `json:"kind"`
	// Checksum is the new content's checksum ([Absent] for ChangeDelete).
	Checksum string `json:"checksum"`
}

// ErrFeedReset is the cause of a [ChangeFeed.ChangesSince] error for a
// sequence number the feed no longer answers for (coded ENOTFOUND).
var ErrFeedReset = errors.New("the change feed does not reach back to that sequence")

// FileChange is one file of a [Changeset].
type FileChange struct {
	// Path is the vault-relative path of the file.
	Path string
	// Before is the [Checksum] of the content the change was planned from,
	// or [Absent] for a file to create.
	Before string
	// After is the new content (ignored when Delete is set).
	After []byte
	// Delete removes the file.
	Delete bool
}

// Changeset is a planned change to several files, applied all-or-nothing
// ([ChangesetApplier]). Each path may appear once.
type Changeset struct {
	Changes []FileChange
	// Operation names the tool or command the changeset carries out
	// (merge_concepts, move_note, …). A vault records a changeset that
	// names one in its operation log, with every file's before-image, so
	// that it can be undone (see [OperationLog]); a store without a log
	// ignores it.
	Operation string
	// OperationID is the id the operation is recorded under
	// ([NewOperationID]); empty: the store makes one.
	OperationID string
}

// Replace plans to replace the content old of path with data.
func (cs *Changeset) Replace(path string, old, data []byte) {
	cs.Changes = append(cs.Changes, FileChange{Path: path, Before: Checksum(old), After: data})
}

// Create plans to create path, which must not exist, with data.
func (cs *Changeset) Create(path string, data []byte) {
	cs.Changes = append(cs.Changes, FileChange{Path: path, Before: Absent, After: data})
}

// Remove plans to delete path, whose content is old.
func (cs *Changeset) Remove(path string, old []byte) {
	cs.Changes = append(cs.Changes, FileChange{Path: path, Before: Checksum(old), Delete: true})
}

// Paths returns the paths the changeset touches, in plan order.
func (cs *Changeset) Paths() []string {
	out := make([]string, len(cs.Changes))
	for i, c := range cs.Changes {
		out[i] = c.Path
	}
	return out
}

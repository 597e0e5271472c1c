package noema

import (
	"context"
	"errors"
	"strings"
)

// IndexSync indexes the files an operation has just changed in the vault,
// so that the index reflects the change when the operation returns. Each
// call indexes exactly the paths given, in one write transaction with the
// concept registry's update: an existing file is (re-)derived, a missing
// one removed. renamedFrom, when not empty, is a path the first file was
// renamed from (the note keeps its history).
type IndexSync interface {
	// SyncFiles indexes the files at paths.
	SyncFiles(ctx context.Context, paths []string, renamedFrom string) error
	// SyncWritten is SyncFiles for files a writer has just put on disk:
	// when indexing them fails, the error keeps its code but says that
	// the files changed, so that no caller takes it for a change that did
	// not happen and retries it.
	SyncWritten(ctx context.Context, paths []string, renamedFrom string) error
}

// LinkFilter tells which links never become concepts (the concepts.ignore
// list): they stay in a note's text but make no concept, mention or
// co-occurrence.
type LinkFilter interface {
	// Match returns the pattern a link (its target as written) matches;
	// ok is false when none does.
	Match(target string) (pattern string, ok bool)
}

// IndexBehind is the error of files saved at paths that the index could
// not follow because of err (what [IndexSync.SyncWritten] returns): err's
// code (unavailable when the caller was interrupted), and a message naming
// the files.
func IndexBehind(paths []string, err error) *Error {
	uris := make([]string, len(paths))
	for i, p := range paths {
		uris[i] = NoteURI(p)
	}
	code, why := ErrorCode(err), ErrorMessage(err)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		code, why = EUNAVAILABLE, "interrupted"
	}
	return WrapError(err, code, "%s saved, but the index is behind (%s): search and links show the change after the next sync",
		strings.Join(uris, ", "), why)
}

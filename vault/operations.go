package vault

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/noema-mem/noema"
)

// The operation log. A changeset that names its operation
// ([noema.Changeset.Operation]: merge_concepts, move_note, update_concept,
// delete_concept, rename_files, undo_operation) is recorded in
// .noema/operations/, one file per operation named by its id: the tool,
// the time, and for each file its path, its before-image (the bytes, or
// absent) and its after-checksum (or absent). [Writer.Undo] reverts one.
//
// The entry is written in the changeset's critical section, under the
// write lock, and in this order (see docs/decisions.md):
//
//  1. the journal, which names the operation (id and tool), is durable;
//  2. every file is renamed into place;
//  3. the entry is written durably (temporary file, fsync, rename, folder
//     fsync) — a failure rolls the files back, so Apply fails and nothing
//     changed;
//  4. the journal is removed.
//
// A crash before 3 leaves the journal: [Vault.Recover] rolls the change
// forward and then writes the entry from the journal (it holds the same
// before-bytes and after-checksums), or rolls it back and removes any
// entry of that id. A crash between 3 and 4 finds every file in its
// after-state: recovery rolls forward and writes the same entry again. So
// no change is without its entry and no entry is without its change.
//
// The log is bounded by age and size ([OperationLimits]); the oldest
// entries go first, and never the one just written.
//
// A team server's working copy records its own operations only: the log
// is local to the folder (a change taken from the store of record is not
// in it, and a change the folder could not take after the store took it
// is not recorded either).

// OperationsDir is the operation log's folder, inside .noema/.
const OperationsDir = "operations"

// Default bounds of the operation log.
const (
	DefaultOperationMaxAge   = 30 * 24 * time.Hour
	DefaultOperationMaxBytes = 200 << 20
)

// OperationLimits bound the operation log: entries older than MaxAge go,
// then the oldest until the log holds at most MaxBytes. Zero means the
// default.
type OperationLimits struct {
	MaxAge   time.Duration
	MaxBytes int64
}

const operationMagic = "noema-operation 1 "

// opRef names an operation in a journal.
type opRef struct {
	ID   string `json:"id"`
	Tool string `json:"tool"`
}

// operationEntry is the content of an operation log file.
type operationEntry struct {
	ID    string        `json:"id"`
	Tool  string        `json:"tool"`
	At    time.Time     `json:"at"`
	Files []journalFile `json:"files"`
}

// Operation describes an entry of the operation log.
type Operation struct {
	// ID names it, for [Writer.Undo]; ids sort in the order the
	// operations were made.
	ID string `json:"id"`
	// Tool is the tool or command that made it.
	Tool string `json:"tool"`
	// At is when it was made.
	At time.Time `json:"at"`
	// Files are the files it changed, as vault paths.
	Files []OperationFile `json:"files"`
}

// OperationFile is one file of an [Operation].
type OperationFile struct {
	Path string `json:"path"`
	// Before and After are the file's checksums before and after the
	// operation (noema.Absent: no file).
	Before string `json:"before"`
	After  string `json:"after"`
}

// newOperationID returns an id that sorts by time: the UTC time to the
// nanosecond and 4 random bytes.
func newOperationID(t time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	return t.UTC().Format("20060102T150405.000000000Z") + "-" + hex.EncodeToString(b[:])
}

// validOperationID reports whether id has newOperationID's form.
func validOperationID(id string) bool {
	ts, suffix, ok := strings.Cut(id, "-")
	if !ok || len(suffix) != 8 {
		return false
	}
	if _, err := hex.DecodeString(suffix); err != nil {
		return false
	}
	_, err := time.Parse("20060102T150405.000000000Z", ts)
	return err == nil
}

func operationPath(id string) string {
	return filepath.Join(".noema", OperationsDir, id+".json")
}

// logOperation writes the entry of a's operation (step 3 above); a
// failure rolls the files back.
func (a *application) logOperation() error {
	if a.j.Op == nil {
		return nil
	}
	if err := writeOperation(a.root, a.j); err != nil {
		return a.rollback(fmt.Errorf("record operation: %w", err))
	}
	return nil
}

// writeOperation writes j's operation entry durably.
func writeOperation(root *os.Root, j *journal) error {
	e := operationEntry{ID: j.Op.ID, Tool: j.Op.Tool, At: j.Started, Files: make([]journalFile, len(j.Files))}
	for i, f := range j.Files {
		f.Temp = ""
		e.Files[i] = f
	}
	return writeSealed(root, operationPath(j.Op.ID), operationMagic, &e)
}

// settleOperation makes the log agree with a recovered journal: its entry
// written when the change rolled forward, removed when it rolled back.
func (v *Vault) settleOperation(root *os.Root, j *journal, forward bool) error {
	if j.Op == nil || !validOperationID(j.Op.ID) {
		return nil
	}
	if forward {
		return writeOperation(root, j)
	}
	if err := root.Remove(operationPath(j.Op.ID)); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	return syncDir(root, filepath.Join(".noema", OperationsDir))
}

// readOperation reads the entry id.
func readOperation(root *os.Root, id string) (*operationEntry, error) {
	if !validOperationID(id) {
		return nil, noema.Errorf(noema.EINVALID, "%q is not an operation id", id)
	}
	data, err := root.ReadFile(operationPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, noema.Errorf(noema.ENOTFOUND, "no operation %s in the log (it may have been pruned)", id)
	} else if err != nil {
		return nil, fmt.Errorf("read operation %s: %w", id, err)
	}
	var e operationEntry
	if err := parseSealed(data, operationMagic, &e); err != nil {
		return nil, fmt.Errorf("read operation %s: %w", id, err)
	}
	return &e, nil
}

// logFile is one file of the log, by id, with its size.
type logFile struct {
	id   string
	size int64
}

// operationFiles lists the log's entries, oldest first.
func operationFiles(root *os.Root) ([]logFile, error) {
	entries, err := fs.ReadDir(root.FS(), path.Join(".noema", OperationsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("list operations: %w", err)
	}
	var out []logFile
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !validOperationID(id) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, logFile{id: id, size: info.Size()})
	}
	slices.SortFunc(out, func(a, b logFile) int { return strings.Compare(a.id, b.id) })
	return out, nil
}

// pruneOperations removes the entries the limits leave out, oldest first,
// keeping keep (the entry just written). It is best effort: an entry it
// cannot remove stays until the next operation.
func (v *Vault) pruneOperations(root *os.Root, keep string) {
	files, err := operationFiles(root)
	if err != nil {
		return
	}
	maxAge, maxBytes := v.OperationLimits.MaxAge, v.OperationLimits.MaxBytes
	if maxAge <= 0 {
		maxAge = DefaultOperationMaxAge
	}
	if maxBytes <= 0 {
		maxBytes = DefaultOperationMaxBytes
	}
	oldest := newOperationID(time.Now().Add(-maxAge))
	var total int64
	for _, f := range files {
		total += f.size
	}
	removed := false
	for _, f := range files {
		if f.id == keep || (f.id >= oldest && total <= maxBytes) {
			continue
		}
		if err := root.Remove(operationPath(f.id)); err == nil {
			total -= f.size
			removed = true
		}
	}
	if removed {
		_ = syncDir(root, filepath.Join(".noema", OperationsDir))
	}
}

// Operations returns the log's operations, newest first, from offset on,
// at most limit of them (<= 0: all), and how many the log holds.
func (v *Vault) Operations(ctx context.Context, offset, limit int) ([]Operation, int, error) {
	root, err := v.openRoot()
	if err != nil {
		return nil, 0, err
	}
	defer root.Close()
	files, err := operationFiles(root)
	if err != nil {
		return nil, 0, err
	}
	slices.Reverse(files)
	out := []Operation{}
	for _, f := range files[min(max(offset, 0), len(files)):] {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if limit > 0 && len(out) == limit {
			break
		}
		e, err := readOperation(root, f.id)
		if noema.ErrorCode(err) == noema.ENOTFOUND {
			continue // pruned meanwhile
		} else if err != nil {
			return nil, 0, err
		}
		out = append(out, e.describe())
	}
	return out, len(files), nil
}

func (e *operationEntry) describe() Operation {
	op := Operation{ID: e.ID, Tool: e.Tool, At: e.At, Files: make([]OperationFile, len(e.Files))}
	for i, f := range e.Files {
		op.Files[i] = OperationFile{Path: f.Path, Before: f.Before, After: f.After}
	}
	return op
}

// UndoTool is the operation an undo records.
const UndoTool = "undo_operation"

// Undone is what [Writer.Undo] did.
type Undone struct {
	// Operation is the undo's own entry in the log (undo it to redo);
	// empty when there was nothing to revert.
	Operation string `json:"operation,omitempty"`
	// Reverted are the files given back their before-images.
	Reverted []string `json:"reverted"`
	// Skipped are the files changed since the operation, left as they are
	// (with force).
	Skipped []string `json:"skipped,omitempty"`
	// Removed are the reverted files the operation had created (now gone
	// again), Restored those it had deleted (now back).
	Removed  []string `json:"removed,omitempty"`
	Restored []string `json:"restored,omitempty"`
}

// Undo reverts the operation id as one changeset, itself recorded as an
// operation (tool [UndoTool]). Every file must still hold what the
// operation wrote (its after-checksum); otherwise the error is
// noema.ECONFLICT with the files changed since in its details ("files"),
// and nothing is written — unless force, which reverts the other files and
// reports the changed ones in Skipped. Folders left empty by the files it
// removes go too. The caller indexes the files in Reverted.
func (w *Writer) Undo(ctx context.Context, id string, force bool) (*Undone, error) {
	if err := w.held(); err != nil {
		return nil, err
	}
	root, err := w.v.openRoot()
	if err != nil {
		return nil, err
	}
	e, err := readOperation(root, id)
	root.Close()
	if err != nil {
		return nil, err
	}
	res := &Undone{Reverted: []string{}}
	cs := &noema.Changeset{Operation: UndoTool}
	for _, f := range e.Files {
		cur, _, err := w.v.current(f.Path)
		if err != nil {
			return nil, err
		}
		sum := sumOf(cur)
		if sum != f.After {
			res.Skipped = append(res.Skipped, f.Path)
			continue
		}
		if sum == f.Before {
			continue // the operation left it as it was
		}
		switch {
		case f.Before == noema.Absent:
			cs.Changes = append(cs.Changes, noema.FileChange{Path: f.Path, Before: sum, Delete: true})
			res.Removed = append(res.Removed, f.Path)
		default:
			if sum == noema.Absent {
				res.Restored = append(res.Restored, f.Path)
			}
			data := f.Data
			if data == nil {
				data = []byte{}
			}
			cs.Changes = append(cs.Changes, noema.FileChange{Path: f.Path, Before: sum, After: data})
		}
		res.Reverted = append(res.Reverted, f.Path)
	}
	if len(res.Skipped) > 0 && !force {
		uris := make([]string, len(res.Skipped))
		for i, p := range res.Skipped {
			uris[i] = noema.NoteURI(p)
		}
		return nil, &noema.Error{Code: noema.ECONFLICT,
			Message: fmt.Sprintf("operation %s cannot be undone: %s changed since; nothing was written (force=true reverts the other files)", id, strings.Join(uris, ", ")),
			Details: map[string]any{"files": res.Skipped}}
	}
	if len(cs.Changes) == 0 {
		return res, nil
	}
	a, err := w.applyChangeset(ctx, cs)
	if err != nil {
		return nil, err
	}
	if a != nil && a.j.Op != nil && a.applied {
		res.Operation = a.j.Op.ID
	}
	// A folder the operation made for a file it created goes with it, as
	// after a move.
	for _, p := range res.Removed {
		w.RemoveEmptyDirs(path.Dir(p))
	}
	return res, nil
}

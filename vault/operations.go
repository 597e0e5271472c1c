package vault

import (
	"context"
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
// A working copy of a store that keeps an operation log ([noema.OperationLog]:
// a team's database) keeps none of its own: its changesets carry their
// operation's id to the store, which records the operation in the same
// transaction as the files ([Vault.OperationLog] is then the store's), so
// every server of the team lists and undoes every server's operations.

// OperationsDir is the operation log's folder, inside .noema/.
const OperationsDir = "operations"

// OperationLimits bound the operation log (see [noema.OperationLimits]).
type OperationLimits = noema.OperationLimits

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
type Operation = noema.Operation

// OperationFile is one file of an [Operation].
type OperationFile = noema.OperationFile

func operationPath(id string) string {
	return filepath.Join(".noema", OperationsDir, id+".json")
}

// logOperation writes the entry of a's operation (step 3 above); a
// failure rolls the files back.
func (a *application) logOperation() error {
	if a.j.Op == nil {
		return nil
	}
	if err := writeOperation(a.root, a.j, a.v.durable()); err != nil {
		return a.rollback(fmt.Errorf("record operation: %w", err))
	}
	return nil
}

// writeOperation writes j's operation entry durably.
func writeOperation(root *os.Root, j *journal, sync bool) error {
	e := operationEntry{ID: j.Op.ID, Tool: j.Op.Tool, At: j.Started, Files: make([]journalFile, len(j.Files))}
	for i, f := range j.Files {
		f.Temp = ""
		e.Files[i] = f
	}
	return writeSealed(root, operationPath(j.Op.ID), operationMagic, &e, sync)
}

// settleOperation makes the log agree with a recovered journal: its entry
// written when the change rolled forward, removed when it rolled back.
func (v *Vault) settleOperation(root *os.Root, j *journal, forward bool) error {
	if j.Op == nil || !noema.ValidOperationID(j.Op.ID) {
		return nil
	}
	if forward {
		return writeOperation(root, j, v.durable())
	}
	if err := root.Remove(operationPath(j.Op.ID)); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	return v.syncDir(root, filepath.Join(".noema", OperationsDir))
}

// readOperation reads the entry id.
func readOperation(root *os.Root, id string) (*operationEntry, error) {
	if err := noema.CheckOperationID(id); err != nil {
		return nil, err
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
		if !ok || !noema.ValidOperationID(id) || !e.Type().IsRegular() {
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
	limits := v.OperationLimits.OrDefault()
	maxBytes := limits.MaxBytes
	oldest := noema.NewOperationID(time.Now().Add(-limits.MaxAge))
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
		_ = v.syncDir(root, filepath.Join(".noema", OperationsDir))
	}
}

// OperationLog returns the vault's operation log: its upstream's when it
// is the working copy of a store that keeps one (every server of a team
// then lists and undoes every server's operations), else the folder's.
func (v *Vault) OperationLog() noema.OperationLog {
	if log, ok := v.upstream.(noema.OperationLog); ok {
		return log
	}
	return v.Store()
}

// logsUpstream reports whether w's changesets are recorded by the
// upstream's log rather than the folder's.
func (w *Writer) logsUpstream() bool {
	_, ok := w.up().(noema.OperationLog)
	return ok
}

// Operations returns the vault's operations ([Vault.OperationLog]),
// newest first, from offset on, at most limit of them (<= 0: all), and
// how many the log holds.
func (v *Vault) Operations(ctx context.Context, offset, limit int) ([]Operation, int, error) {
	return v.OperationLog().Operations(ctx, offset, limit)
}

// Operations implements [noema.OperationLog] with the folder's log.
func (s *Store) Operations(ctx context.Context, offset, limit int) ([]Operation, int, error) {
	root, err := s.v.openRoot()
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
		op := e.describe()
		for i := range op.Files {
			op.Files[i].Data = nil
		}
		out = append(out, *op)
	}
	return out, len(files), nil
}

// Operation implements [noema.OperationLog] with the folder's log.
func (s *Store) Operation(ctx context.Context, id string) (*Operation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root, err := s.v.openRoot()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	e, err := readOperation(root, id)
	if err != nil {
		return nil, err
	}
	return e.describe(), nil
}

func (e *operationEntry) describe() *Operation {
	op := &Operation{ID: e.ID, Tool: e.Tool, At: e.At, Files: make([]OperationFile, len(e.Files))}
	for i, f := range e.Files {
		op.Files[i] = OperationFile{Path: f.Path, Before: f.Before, After: f.After, Data: f.Data}
		if f.Before != noema.Absent && f.Data == nil {
			op.Files[i].Data = []byte{}
		}
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
	// Refreshed are files a working copy brought up to date from its
	// store of record before comparing (the caller indexes them too).
	Refreshed []string `json:"-"`
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
	e, err := w.v.OperationLog().Operation(ctx, id)
	if err != nil {
		return nil, err
	}
	res := &Undone{Reverted: []string{}}
	cs := &noema.Changeset{Operation: UndoTool}
	for _, f := range e.Files {
		sum, err := w.v.FileChecksum(f.Path)
		if err != nil {
			return nil, err
		}
		// A working copy compares with its store of record: a file the
		// folder holds otherwise is brought up to date first.
		if up := w.up(); up != nil && sum != f.After {
			if err := w.v.refresh(ctx, f.Path); err != nil {
				return nil, err
			}
			res.Refreshed = append(res.Refreshed, f.Path)
			if sum, err = w.v.FileChecksum(f.Path); err != nil {
				return nil, err
			}
		}
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
	if a != nil && a.op != nil && a.applied {
		res.Operation = a.op.ID
	}
	// A folder the operation made for a file it created goes with it, as
	// after a move.
	for _, p := range res.Removed {
		w.RemoveEmptyDirs(path.Dir(p))
	}
	return res, nil
}

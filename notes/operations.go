package notes

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// OperationsInput pages the operation log (list_operations).
type OperationsInput struct {
	Offset int `json:"offset,omitempty" jsonschema:"paging offset (default 0)" default:"0" minimum:"0"`
	Limit  int `json:"limit,omitempty" jsonschema:"page size (default 50, max 500)" default:"50" minimum:"0" maximum:"500"`
}

// OperationInfo is one operation of the log.
type OperationInfo struct {
	ID   string    `json:"id"`
	Tool string    `json:"tool"`
	At   time.Time `json:"at"`
	// Files are the URIs of the first [MaxOperationFiles] files it
	// changed; FileCount counts them all.
	Files     []string `json:"files"`
	FileCount int      `json:"file_count"`
}

// MaxOperationFiles is how many of an operation's files a listing names,
// so that an operation of a thousand files stays one small item.
const MaxOperationFiles = 20

// OperationsResult is a page of the operation log, newest first.
type OperationsResult struct {
	Operations []OperationInfo `json:"operations"`
	Total      int             `json:"total"`
	Offset     int             `json:"offset"`
	Limit      int             `json:"limit"`
	HasMore    bool            `json:"has_more"`
}

// Operations lists the vault's operation log (the operations that
// changed several files or renamed one, which Undo reverts), newest
// first.
func (s *Service) Operations(ctx context.Context, in OperationsInput) (*OperationsResult, error) {
	if in.Offset < 0 {
		return nil, noema.Errorf(noema.EINVALID, "offset %d is negative", in.Offset).WithParam("offset")
	}
	limit := ClampLimit(in.Limit, 50, 500)
	ops, total, err := s.Vault.Operations(ctx, in.Offset, limit)
	if err != nil {
		return nil, err
	}
	res := &OperationsResult{Operations: make([]OperationInfo, len(ops)), Total: total, Offset: in.Offset, Limit: limit,
		HasMore: in.Offset+len(ops) < total}
	for i, op := range ops {
		info := OperationInfo{ID: op.ID, Tool: op.Tool, At: op.At, FileCount: len(op.Files)}
		for _, f := range op.Files[:min(len(op.Files), MaxOperationFiles)] {
			info.Files = append(info.Files, noema.NoteURI(f.Path))
		}
		res.Operations[i] = info
	}
	return res, nil
}

// UndoInput names the operation to undo (undo_operation).
type UndoInput struct {
	ID    string `json:"id" jsonschema:"the operation's id, from list_operations" cli:"arg=ID"`
	Force bool   `json:"force,omitempty" jsonschema:"revert the files that still hold what the operation wrote and skip those changed since (default false: conflict, nothing changed)" default:"false"`
}

// UndoResult is what an undo did.
type UndoResult struct {
	// Operation is the undo's own id in the log: undo it to redo.
	Operation string   `json:"operation,omitempty"`
	Reverted  []string `json:"reverted"`
	Skipped   []string `json:"skipped,omitempty"`
	Message   string   `json:"message"`
}

// Undo reverts the operation in.ID (see [vault.Writer.Undo]) and indexes
// the files it reverted.
func (s *Service) Undo(ctx context.Context, in UndoInput) (*UndoResult, error) {
	if in.ID == "" {
		return nil, noema.Errorf(noema.EINVALID, "id is required: an operation id from list_operations").WithParam("id")
	}
	return vault.LockedValue(ctx, s.Vault, func(w *vault.Writer) (*UndoResult, error) {
		done, err := w.Undo(ctx, in.ID, in.Force)
		if err != nil {
			return nil, err
		}
		if len(done.Reverted)+len(done.Refreshed) > 0 {
			if err := s.syncUndone(ctx, done); err != nil {
				return nil, err
			}
		}
		res := &UndoResult{Operation: done.Operation, Reverted: uris(done.Reverted), Skipped: uris(done.Skipped)}
		res.Message = fmt.Sprintf("undid %s: %d files reverted", in.ID, len(done.Reverted))
		if len(done.Skipped) > 0 {
			res.Message += fmt.Sprintf(", %d changed since and skipped", len(done.Skipped))
		}
		if done.Operation != "" {
			res.Message += "; undo " + done.Operation + " to redo"
		}
		return res, nil
	})
}

// syncUndone indexes the reverted files. The undo of a move — one file
// removed, one brought back — is indexed as a rename first, so the note
// keeps its history, as the move did.
func (s *Service) syncUndone(ctx context.Context, done *vault.Undone) error {
	paths := slices.Concat(done.Reverted, slices.DeleteFunc(slices.Clone(done.Refreshed), func(p string) bool { return slices.Contains(done.Reverted, p) }))
	if len(done.Removed) == 1 && len(done.Restored) == 1 {
		from, to := done.Removed[0], done.Restored[0]
		if err := s.Sync.SyncWritten(ctx, []string{to, from}, from); err != nil {
			return err
		}
		paths = slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == from || p == to })
	}
	if len(paths) == 0 {
		return nil
	}
	return s.Sync.SyncWritten(ctx, paths, "")
}

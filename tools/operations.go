package tools

import (
	"context"
	"fmt"
	"io"

	"github.com/noema-mem/noema/notes"
)

// ListOperationsInput is one list_operations call.
type ListOperationsInput struct {
	notes.OperationsInput
	Paging
}

// OperationListOutput is a page of the operation log within the budget.
type OperationListOutput struct {
	notes.OperationsResult
	Budget
}

func operationTools() []*Tool {
	return []*Tool{
		New(Def{
			Name: "list_operations", Command: "history", Toolset: "history", Title: "List undoable operations", Hints: readOnly,
			Description: "The operation log, newest first: every operation that changed several files or renamed one (merge_concepts, move_note, " +
				"update_concept with a new label, delete_concept, vault rename-files, the imports (import memory-jsonl, import basic-memory, import mem0), undo_operation), with its id, tool, time, file_count and its first 20 files. " +
				"Kept 30 days or 200 MiB by default. Paged with offset/limit (default 50, max 500); the result has total and has_more.",
		}, ListOperations, textOperationList),

		New(Def{
			Name: "undo_operation", Command: "undo", Toolset: "history", Title: "Undo an operation", Hints: destructive,
			Description: "Revert an operation of list_operations: every file it changed gets its content from before it back, all files together " +
				"(a crash leaves them all reverted or none). Only while every file still holds what the operation wrote: otherwise conflict names " +
				"the files changed since and nothing changes; force=true reverts the others and reports the skipped ones. The undo is itself an " +
				"operation: undo it to redo.",
		}, func(ctx context.Context, e *Env, in notes.UndoInput) (*notes.UndoResult, error) {
			return e.App.Notes.Undo(ctx, in)
		}, func(w io.Writer, o *notes.UndoResult) {
			fmt.Fprintln(w, o.Message)
			for _, u := range o.Reverted {
				fmt.Fprintf(w, "- reverted %s\n", u)
			}
			for _, u := range o.Skipped {
				fmt.Fprintf(w, "- skipped %s (changed since)\n", u)
			}
		}),
	}
}

// ListOperations runs list_operations within its budget.
func ListOperations(ctx context.Context, e *Env, in ListOperationsInput) (*OperationListOutput, error) {
	args := in.OperationsInput
	args.Offset, args.Limit = 0, 0
	budget, print, offset, err := in.start("list_operations", args, in.Offset)
	if err != nil {
		return nil, err
	}
	q := in.OperationsInput
	q.Offset = offset
	res, err := e.App.Notes.Operations(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &OperationListOutput{OperationsResult: *res, Budget: Budget{MaxTokens: budget}}
	if err := fitList("list_operations", print, out, &out.Budget, textOperationList, offset, "operations", &out.Operations, res.HasMore); err != nil {
		return nil, err
	}
	out.HasMore = out.NextCursor != ""
	return out, nil
}

func textOperationList(w io.Writer, o *OperationListOutput) {
	fmt.Fprintf(w, "%d of %d operations", len(o.Operations), o.Total)
	if o.Offset > 0 {
		fmt.Fprintf(w, " from offset %d", o.Offset)
	}
	fmt.Fprintln(w)
	for _, op := range o.Operations {
		fmt.Fprintf(w, "- %s %s at %s, %d files\n", op.ID, op.Tool, op.At.Format("2006-01-02 15:04:05Z"), op.FileCount)
		for _, f := range op.Files {
			fmt.Fprintf(w, "    %s\n", f)
		}
		if more := op.FileCount - len(op.Files); more > 0 {
			fmt.Fprintf(w, "    … and %d more\n", more)
		}
	}
	o.Budget.text(w)
}

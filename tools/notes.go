package tools

import (
	"context"
	"fmt"
	"io"

	"github.com/noema-mem/noema/notes"
)

// ReadNoteInput names a note.
type ReadNoteInput struct {
	URI string `json:"uri" jsonschema:"the note: memory:// URI, vault path or exact title" cli:"arg=REF"`
}

// MoveNoteInput renames a note.
type MoveNoteInput struct {
	From string `json:"from" jsonschema:"the note to move: memory:// URI, vault path or title" cli:"arg=FROM"`
	To   string `json:"to" jsonschema:"the new vault path or memory:// URI (.md optional)" cli:"arg=TO"`
}

// DeleteNoteInput deletes a note.
type DeleteNoteInput struct {
	URI     string `json:"uri" jsonschema:"the note: memory:// URI, vault path or title" cli:"arg=REF"`
	Confirm bool   `json:"confirm,omitempty" jsonschema:"must be true: deleting a note deletes its file" default:"false"`
}

func noteTools() []*Tool {
	return []*Tool{
		New(Def{
			Name: "write_note", Command: "note write", Toolset: "notes", Title: "Write a note", Hints: destructive,
			Description: "Create a Markdown note. [[WikiLinks]] in the content name concepts (check find_concepts first to reuse existing spellings). " +
				"Never replaces an existing note unless overwrite is true. Returns the note's memory:// URI and checksum.",
		}, func(ctx context.Context, e *Env, in notes.WriteInput) (*notes.WriteResult, error) {
			return e.App.Notes.Write(ctx, in)
		}, func(w io.Writer, o *notes.WriteResult) {
			verb := "created"
			if !o.Created {
				verb = "overwrote"
			}
			fmt.Fprintf(w, "%s %s (%d bytes, checksum %s)\n", verb, o.URI, o.Size, o.Checksum)
		}),

		Terminal(New(Def{
			Name: "read_note", Command: "note read", Toolset: "notes", Title: "Read a note", Hints: Hints{ReadOnly: true},
			Description: "Read a note by memory:// URI, vault path or title: its content, front matter, links and checksum (pass the checksum to edit_note). Counts as an access, which keeps the note fresh for recency ranking.",
		}, func(ctx context.Context, e *Env, in ReadNoteInput) (*notes.Note, error) {
			return e.App.Notes.Read(ctx, in.URI)
		}, func(w io.Writer, o *notes.Note) {
			fmt.Fprintf(w, "%s (checksum %s)\n\n%s", o.URI, o.Checksum, o.Content)
		}), func(w io.Writer, o *notes.Note) {
			io.WriteString(w, o.Content) // the file's text, ready to pipe
		}),

		ReadsStdin(New(Def{
			Name: "edit_note", Command: "note edit", Toolset: "notes", Title: "Edit a note", Hints: destructive,
			Description: "Change an existing note: append, prepend, find_replace (with expected_count, default 1), replace_section (the body under a heading) or replace_all. " +
				"Pass expected_checksum from read_note to fail with checksum_mismatch if the file changed meanwhile.",
		}, func(ctx context.Context, e *Env, in notes.EditInput) (*notes.WriteResult, error) {
			return e.App.Notes.Edit(ctx, in)
		}, func(w io.Writer, o *notes.WriteResult) {
			fmt.Fprintf(w, "edited %s (%d bytes, checksum %s)\n", o.URI, o.Size, o.Checksum)
		}), func(in notes.EditInput) bool { return in.Op != notes.OpFindReplace }),

		New(Def{
			Name: "move_note", Command: "note move", Toolset: "notes", Title: "Move a note", Hints: destructive,
			Description: "Move or rename a note's file inside the vault. Its access history moves with it. Fails with conflict if the destination exists.",
		}, func(ctx context.Context, e *Env, in MoveNoteInput) (*notes.MoveResult, error) {
			return e.App.Notes.Move(ctx, in.From, in.To)
		}, func(w io.Writer, o *notes.MoveResult) {
			fmt.Fprintf(w, "moved %s to %s\n", o.From, o.URI)
		}),

		New(Def{
			Name: "delete_note", Command: "note delete", Toolset: "notes", Title: "Delete a note", Hints: destructiveRepeats,
			Description: "Delete a note's file. Requires confirm=true.",
		}, func(ctx context.Context, e *Env, in DeleteNoteInput) (*notes.DeleteResult, error) {
			return e.App.Notes.Delete(ctx, in.URI, in.Confirm)
		}, func(w io.Writer, o *notes.DeleteResult) {
			fmt.Fprintln(w, "deleted", o.URI)
		}),

		New(Def{
			Name: "list_notes", Command: "note list", Toolset: "notes", Title: "List notes", Hints: readOnly,
			Description: "List notes by path, optionally under a folder or with a tag. Paged with offset/limit (default 50, max 500); the result has total and has_more.",
		}, func(ctx context.Context, e *Env, in notes.ListInput) (*notes.ListResult, error) {
			return e.App.Notes.List(ctx, in)
		}, textNoteList),

		New(Def{
			Name: "recent_activity", Command: "note recent", Toolset: "notes", Title: "Recent activity", Hints: readOnly,
			Description: "Notes by their latest activity (modification or explicit read), newest first. since accepts an RFC 3339 time, a date or a duration such as 24h or 7d.",
		}, func(ctx context.Context, e *Env, in notes.RecentInput) (*notes.ListResult, error) {
			return e.App.Notes.Recent(ctx, in)
		}, textNoteList),
	}
}

func textNoteList(w io.Writer, o *notes.ListResult) {
	fmt.Fprintf(w, "%d of %d notes", len(o.Notes), o.Total)
	if o.HasMore {
		fmt.Fprintf(w, " (more from offset %d)", o.Offset+len(o.Notes))
	}
	fmt.Fprintln(w)
	for _, n := range o.Notes {
		fmt.Fprintf(w, "- %s — %s (modified %s)\n", n.URI, n.Title, n.Modified.Format("2006-01-02"))
	}
}

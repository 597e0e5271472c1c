package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/notes"
)

// ReadNoteInput names a note.
type ReadNoteInput struct {
	URI string `json:"uri" jsonschema:"the note: memory:// URI, vault path or exact title"`
}

// MoveNoteInput renames a note.
type MoveNoteInput struct {
	From string `json:"from" jsonschema:"the note to move: memory:// URI, vault path or title"`
	To   string `json:"to" jsonschema:"the new vault path or memory:// URI (.md optional)"`
}

// DeleteNoteInput deletes a note.
type DeleteNoteInput struct {
	URI     string `json:"uri" jsonschema:"the note: memory:// URI, vault path or title"`
	Confirm bool   `json:"confirm,omitempty" jsonschema:"must be true: deleting a note deletes its file" default:"false"`
}

func registerNotes(r *registry) {
	add(r, "notes", &mcp.Tool{
		Name:  "write_note",
		Title: "Write a note",
		Description: "Create a Markdown note. [[WikiLinks]] in the content name concepts (check find_concepts first to reuse existing spellings). " +
			"Never replaces an existing note unless overwrite is true. Returns the note's memory:// URI and checksum.",
	}, additive, func(ctx context.Context, _ *mcp.CallToolRequest, in notes.WriteInput) (*notes.WriteResult, error) {
		return r.app.Notes.Write(ctx, in)
	}, func(o *notes.WriteResult) string {
		verb := "created"
		if !o.Created {
			verb = "overwrote"
		}
		return fmt.Sprintf("%s %s (%d bytes, checksum %s)", verb, o.URI, o.Size, o.Checksum)
	})

	add(r, "notes", &mcp.Tool{
		Name:        "read_note",
		Title:       "Read a note",
		Description: "Read a note by memory:// URI, vault path or title: its content, front matter, links and checksum (pass the checksum to edit_note). Counts as an access, which keeps the note fresh for recency ranking.",
	}, hints{readOnly: true}, func(ctx context.Context, _ *mcp.CallToolRequest, in ReadNoteInput) (*notes.Note, error) {
		return r.app.Notes.Read(ctx, in.URI)
	}, func(o *notes.Note) string {
		return fmt.Sprintf("%s (checksum %s)\n\n%s", o.URI, o.Checksum, o.Content)
	})

	add(r, "notes", &mcp.Tool{
		Name:  "edit_note",
		Title: "Edit a note",
		Description: "Change an existing note: append, prepend, find_replace (with expected_count, default 1), replace_section (the body under a heading) or replace_all. " +
			"Pass expected_checksum from read_note to fail with checksum_mismatch if the file changed meanwhile.",
	}, destructive, func(ctx context.Context, _ *mcp.CallToolRequest, in notes.EditInput) (*notes.WriteResult, error) {
		return r.app.Notes.Edit(ctx, in)
	}, func(o *notes.WriteResult) string {
		return fmt.Sprintf("edited %s (%d bytes, checksum %s)", o.URI, o.Size, o.Checksum)
	})

	add(r, "notes", &mcp.Tool{
		Name:        "move_note",
		Title:       "Move a note",
		Description: "Move or rename a note's file inside the vault. Its access history moves with it. Fails with conflict if the destination exists.",
	}, destructive, func(ctx context.Context, _ *mcp.CallToolRequest, in MoveNoteInput) (*notes.MoveResult, error) {
		return r.app.Notes.Move(ctx, in.From, in.To)
	}, func(o *notes.MoveResult) string {
		return fmt.Sprintf("moved %s to %s", o.From, o.URI)
	})

	add(r, "notes", &mcp.Tool{
		Name:        "delete_note",
		Title:       "Delete a note",
		Description: "Delete a note's file. Requires confirm=true.",
	}, hints{destructive: true, idempotent: true}, func(ctx context.Context, _ *mcp.CallToolRequest, in DeleteNoteInput) (*notes.DeleteResult, error) {
		return r.app.Notes.Delete(ctx, in.URI, in.Confirm)
	}, func(o *notes.DeleteResult) string {
		return "deleted " + o.URI
	})

	add(r, "notes", &mcp.Tool{
		Name:        "list_notes",
		Title:       "List notes",
		Description: "List notes by path, optionally under a folder or with a tag. Paged with offset/limit (default 50, max 500); the result has total and has_more.",
	}, readOnly, func(ctx context.Context, _ *mcp.CallToolRequest, in notes.ListInput) (*notes.ListResult, error) {
		return r.app.Notes.List(ctx, in)
	}, textList)

	add(r, "notes", &mcp.Tool{
		Name:        "recent_activity",
		Title:       "Recent activity",
		Description: "Notes by their latest activity (modification or explicit read), newest first. since accepts an RFC 3339 time, a date or a duration such as 24h or 7d.",
	}, readOnly, func(ctx context.Context, _ *mcp.CallToolRequest, in notes.RecentInput) (*notes.ListResult, error) {
		return r.app.Notes.Recent(ctx, in)
	}, textList)
}

func textList(o *notes.ListResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d notes", len(o.Notes), o.Total)
	if o.HasMore {
		fmt.Fprintf(&b, " (more from offset %d)", o.Offset+len(o.Notes))
	}
	b.WriteString("\n")
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "- %s — %s (modified %s)\n", n.URI, n.Title, n.Modified.Format("2006-01-02"))
	}
	return b.String()
}

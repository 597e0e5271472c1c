package tools

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/semantic"
	"github.com/noema-mem/noema/vault"
)

// ReadNoteInput names a note.
type ReadNoteInput struct {
	URI string `json:"uri" jsonschema:"the note: memory:// URI, vault path, title or alias" cli:"arg=REF"`
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
				"Never replaces an existing note unless overwrite is true, and fails with conflict when another note already has the title or file name (any folder, any case) unless allow_duplicate_title is true. " +
				"When a fact changed, write a new note with supersedes naming the old one (kept, ranked below the new). Returns the note's memory:// URI and checksum.",
		}, func(ctx context.Context, e *Env, in notes.WriteInput) (*notes.WriteResult, error) {
			var before string // the note this write may overwrite
			if in.Overwrite {
				before, _ = e.App.Notes.Resolve(ctx, in.Title)
			}
			return withFeedback(ctx, e, before, func() (*notes.WriteResult, error) { return e.App.Notes.Write(ctx, in) })
		}, func(w io.Writer, o *notes.WriteResult) {
			verb := "created"
			if !o.Created {
				verb = "overwrote"
			}
			fmt.Fprintf(w, "%s %s (%d bytes, checksum %s)\n", verb, o.URI, o.Size, o.Checksum)
			textFeedback(w, o)
		}),

		Terminal(New(Def{
			Name: "read_note", Command: "note read", Toolset: "notes", Title: "Read a note", Hints: Hints{ReadOnly: true},
			Description: "Read a note by memory:// URI (its path as is or percent-encoded), vault path, title or alias: its content, front matter, links and checksum (pass the checksum to edit_note). Counts as an access, which keeps the note fresh for recency ranking.",
		}, func(ctx context.Context, e *Env, in ReadNoteInput) (*notes.Note, error) {
			return ReadNote(ctx, e, in.URI)
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
			before, _ := e.App.Notes.Resolve(ctx, in.URI)
			return withFeedback(ctx, e, before, func() (*notes.WriteResult, error) { return e.App.Notes.Edit(ctx, in) })
		}, func(w io.Writer, o *notes.WriteResult) {
			fmt.Fprintf(w, "edited %s (%d bytes, checksum %s)\n", o.URI, o.Size, o.Checksum)
			textFeedback(w, o)
		}), func(in notes.EditInput) bool { return in.Op != notes.OpFindReplace }),

		New(Def{
			Name: "move_note", Command: "note move", Toolset: "notes", Title: "Move a note", Hints: destructive,
			Description: "Move or rename a note's file inside the vault. Its access history moves with it, and as in Obsidian the links that point to it follow: links by path and relation targets; a new file name renames the note (its title becomes the file name, the old title an alias) and links by the old title or file name follow ([[Old]] becomes [[New|Old]]). Fails with conflict if the destination exists or another note already has the new name. A folder left empty is removed.",
		}, func(ctx context.Context, e *Env, in MoveNoteInput) (*notes.MoveResult, error) {
			return e.App.Notes.Move(ctx, in.From, in.To)
		}, func(w io.Writer, o *notes.MoveResult) {
			fmt.Fprintf(w, "moved %s to %s; %d lines of links followed\n", o.From, o.URI, len(o.Links))
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
		}, ListNotes, textNoteList),

		New(Def{
			Name: "recent_activity", Command: "note recent", Toolset: "notes", Title: "Recent activity", Hints: readOnly,
			Description: "Notes by their latest activity (modification or explicit read), newest first. since accepts an RFC 3339 time, a date or a duration such as 24h or 7d.",
		}, RecentActivity, textNoteList),
	}
}

// ReadNote reads the note ref names (see [ResolveNote]); the read counts as
// an access.
func ReadNote(ctx context.Context, e *Env, ref string) (*notes.Note, error) {
	path, err := ResolveNote(ctx, e, ref)
	if err != nil {
		return nil, err
	}
	return e.App.Notes.Read(ctx, path)
}

// ResolveNote returns the vault path of the note ref names, as
// notes.Service.Resolve does (a memory:// URI, a vault path with or without
// .md, a title), and also:
//
//   - a memory:// URI whose path is percent-encoded, as clients send
//     "memory://A%20B/C" for the note "A B/C.md": when the URI as given names
//     no note, its path is decoded once (never twice: "%2520" is "%20");
//   - a note's alias (front-matter aliases:), when no title matches; of
//     several notes with that alias, the first by path.
func ResolveNote(ctx context.Context, e *Env, ref string) (string, error) {
	path, err := e.App.Notes.Resolve(ctx, ref)
	if err == nil || noema.ErrorCode(err) != noema.ENOTFOUND {
		return path, err
	}
	ref = strings.TrimSpace(ref)
	if uri, ok := strings.CutPrefix(ref, noema.URIScheme); ok {
		if decoded, derr := url.PathUnescape(uri); derr == nil && decoded != uri {
			if path, derr := e.App.Notes.Resolve(ctx, noema.URIScheme+decoded); derr == nil {
				return path, nil
			}
		}
		return "", err
	}
	key := vault.Key(ref)
	if key == "" {
		return "", err
	}
	// Every note answering to the key by a title or an alias: the title
	// matches were tried above, so this is an alias.
	aliased, aerr := e.App.DB.Notes().NoteByTitle(ctx, ref, func(string) string { return key })
	if aerr != nil {
		return "", aerr
	}
	if aliased == "" {
		return "", err
	}
	return aliased, nil
}

// withFeedback runs a write of a note and reports the concepts it links:
// which the write created, and existing concepts those may duplicate.
// before is the note's path before the write ("" for a new note).
func withFeedback(ctx context.Context, e *Env, before string, write func() (*notes.WriteResult, error)) (*notes.WriteResult, error) {
	linked, err := e.App.Concepts.LinkedBy(ctx, before)
	if err != nil {
		return nil, err
	}
	res, err := write()
	if err != nil {
		return nil, err
	}
	concepts, warnings := e.App.Concepts.Feedback(ctx, res.Path, linked, meaning(e))
	res.Concepts, res.Warnings = concepts, append(slices.Clip(res.Warnings), warnings...)
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	return res, nil
}

// meaning finds concepts close in meaning once the embedder has embedded
// the registry (a server's background refresh); nil before, so that a write
// never waits for a whole registry to be embedded.
func meaning(e *Env) concepts.Meaning {
	p := e.App.Semantic.Progress()
	if p.UpdatedAt.IsZero() || p.LastError != "" || p.Embedded == 0 {
		return nil
	}
	return func(ctx context.Context, text string, k int) ([]noema.NearDuplicate, error) {
		off := false
		res, err := e.App.Semantic.FindSimilar(ctx, semantic.SimilarInput{Concept: text, MaxResults: k, Decay: &off})
		if err != nil {
			return nil, err
		}
		out := make([]noema.NearDuplicate, 0, len(res.Results))
		for _, r := range res.Results {
			out = append(out, noema.NearDuplicate{ID: r.ID, Label: r.Label, Meaning: r.Similarity})
		}
		return out, nil
	}
}

func textFeedback(w io.Writer, o *notes.WriteResult) {
	if len(o.Concepts) > 0 {
		labels := make([]string, len(o.Concepts))
		for i, c := range o.Concepts {
			labels[i] = c.Label
			if c.New {
				labels[i] += " (new)"
			}
		}
		fmt.Fprintf(w, "links %s\n", strings.Join(labels, ", "))
	}
	warnings(w, o.Warnings)
}

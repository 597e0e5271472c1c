package tools

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/notes"
)

// Paging is the budget of a list tool's call: embedded in its input, it
// adds max_tokens and cursor.
type Paging struct {
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"the most tokens this answer may take, text and structured result together (estimated, above cl100k/o200k counts); items that do not fit are left for the next page (default 4000, 1000-100000)" default:"4000" minimum:"1000" maximum:"100000"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous answer: its next page (same other arguments; replaces offset)" maxLength:"200"`
}

// start reads a list tool's paging: its budget, the fingerprint of args
// (the arguments that choose and order the list, paging ones zeroed) and
// the offset to list from — the cursor's, else offset.
func (p Paging) start(tool string, args any, offset int) (budget int, print string, from int, err error) {
	if budget, err = budgetOf(p.MaxTokens); err != nil {
		return 0, "", 0, err
	}
	print = fingerprint(args)
	offsets, err := readCursor(p.Cursor, tool, print, 1)
	if err != nil {
		return 0, "", 0, err
	}
	if p.Cursor == "" {
		return budget, print, offset, nil
	}
	if offset != 0 {
		return 0, "", 0, noema.Errorf(noema.EINVALID, "pass cursor or offset, not both: the cursor holds the offset").WithParam("offset")
	}
	return budget, print, offsets[0], nil
}

// fitList keeps the items of one list that fit the budget, from offset on;
// beyond says that the page size left more after them.
func fitList[Out any, T any](tool, print string, out Out, b *Budget, text func(io.Writer, Out), offset int, name string, items *[]T, beyond bool) error {
	newCursor := func(o []int) string { return cursor{tool, print, o}.String() }
	return fitSections(out, b, text, []int{offset}, newCursor, list(name, items, beyond))
}

// ListNotesInput is one list_notes call.
type ListNotesInput struct {
	notes.ListInput
	Paging
}

// RecentInput is one recent_activity call.
type RecentInput struct {
	notes.RecentInput
	Paging
}

// NoteListOutput is a page of notes within the budget.
type NoteListOutput struct {
	notes.ListResult
	Budget
}

// ListNotes runs list_notes within its budget.
func ListNotes(ctx context.Context, e *Env, in ListNotesInput) (*NoteListOutput, error) {
	args := in.ListInput
	args.Offset, args.Limit = 0, 0
	budget, print, offset, err := in.start("list_notes", args, in.Offset)
	if err != nil {
		return nil, err
	}
	q := in.ListInput
	q.Offset = offset
	res, err := e.App.Notes.List(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &NoteListOutput{ListResult: *res, Budget: Budget{MaxTokens: budget}}
	if err := fitList("list_notes", print, out, &out.Budget, textNoteList, offset, "notes", &out.Notes, res.HasMore); err != nil {
		return nil, err
	}
	out.HasMore = out.NextCursor != ""
	return out, nil
}

// RecentActivity runs recent_activity: the limit most recent notes, paged
// within the budget (a cursor pages within those limit notes; the order is
// by activity, so a note read or written meanwhile moves).
func RecentActivity(ctx context.Context, e *Env, in RecentInput) (*NoteListOutput, error) {
	args := in.RecentInput
	budget, print, offset, err := in.start("recent_activity", args, 0)
	if err != nil {
		return nil, err
	}
	res, err := e.App.Notes.Recent(ctx, in.RecentInput)
	if err != nil {
		return nil, err
	}
	out := &NoteListOutput{ListResult: *res, Budget: Budget{MaxTokens: budget}}
	out.Notes, out.Offset = from(out.Notes, offset), offset
	if err := fitList("recent_activity", print, out, &out.Budget, textNoteList, offset, "notes", &out.Notes, false); err != nil {
		return nil, err
	}
	out.HasMore = out.NextCursor != "" || res.HasMore
	return out, nil
}

func textNoteList(w io.Writer, o *NoteListOutput) {
	fmt.Fprintf(w, "%d of %d notes", len(o.Notes), o.Total)
	if o.Offset > 0 {
		fmt.Fprintf(w, " from offset %d", o.Offset)
	}
	fmt.Fprintln(w)
	for _, n := range o.Notes {
		fmt.Fprintf(w, "- %s — %s (modified %s)\n", n.URI, n.Title, n.Modified.Format("2006-01-02"))
	}
	o.Budget.text(w)
}

// ListConceptsInput is one list_concepts call.
type ListConceptsInput struct {
	concepts.ListInput
	Paging
}

// ConceptListOutput is a page of concepts within the budget.
type ConceptListOutput struct {
	concepts.ListResult
	Budget
}

// ListConcepts runs list_concepts within its budget.
func ListConcepts(ctx context.Context, e *Env, in ListConceptsInput) (*ConceptListOutput, error) {
	args := in.ListInput
	args.Offset, args.Limit = 0, 0
	budget, print, offset, err := in.start("list_concepts", args, in.Offset)
	if err != nil {
		return nil, err
	}
	q := in.ListInput
	q.Offset = offset
	res, err := e.App.Concepts.List(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &ConceptListOutput{ListResult: *res, Budget: Budget{MaxTokens: budget}}
	if err := fitList("list_concepts", print, out, &out.Budget, textConceptList, offset, "concepts", &out.Concepts, res.HasMore); err != nil {
		return nil, err
	}
	out.HasMore = out.NextCursor != ""
	return out, nil
}

func textConceptList(w io.Writer, o *ConceptListOutput) {
	fmt.Fprintf(w, "%d of %d concepts", len(o.Concepts), o.Total)
	if o.Offset > 0 {
		fmt.Fprintf(w, " from offset %d", o.Offset)
	}
	fmt.Fprintln(w)
	for _, c := range o.Concepts {
		fmt.Fprintf(w, "- %s", c.Label)
		if len(c.Aliases) > 0 {
			fmt.Fprintf(w, " (aka %s)", strings.Join(c.Aliases, ", "))
		}
		fmt.Fprintf(w, " [%s, %d mentions]\n", c.ID, c.Mentions)
	}
	o.Budget.text(w)
}

// FindConceptsInput is one find_concepts call.
type FindConceptsInput struct {
	concepts.FindInput
	Paging
}

// FindConceptsOutput is a page of candidates within the budget.
type FindConceptsOutput struct {
	concepts.FindResult
	Budget
}

// FindConcepts runs find_concepts: the limit best candidates, paged within
// the budget (a cursor pages within those limit candidates).
func FindConcepts(ctx context.Context, e *Env, in FindConceptsInput) (*FindConceptsOutput, error) {
	budget, print, offset, err := in.start("find_concepts", in.FindInput, 0)
	if err != nil {
		return nil, err
	}
	res, err := e.App.Concepts.Find(ctx, in.FindInput)
	if err != nil {
		return nil, err
	}
	out := &FindConceptsOutput{FindResult: *res, Budget: Budget{MaxTokens: budget}}
	out.Candidates = from(out.Candidates, offset)
	if err := fitList("find_concepts", print, out, &out.Budget, textFind, offset, "candidates", &out.Candidates, false); err != nil {
		return nil, err
	}
	return out, nil
}

func textFind(w io.Writer, o *FindConceptsOutput) {
	fmt.Fprintf(w, "%d candidates for %q among %d concepts\n", len(o.Candidates), o.Query, o.Total)
	warnings(w, o.Warnings)
	for _, c := range o.Candidates {
		via := ""
		if c.IsAlias {
			via = fmt.Sprintf(" (via alias %q)", c.Matched)
		}
		if len(c.Channels) > 0 && c.Channels[0] != "wratio" {
			via += " (found by " + strings.Join(c.Channels, ", ") + ")"
		}
		fmt.Fprintf(w, "- %.1f %s%s [%s, %d mentions]\n", c.Score, c.Label, via, c.ID, c.Mentions)
	}
	o.Budget.text(w)
}

// NeighborsOutput is a page of edges around a node within the budget.
type NeighborsOutput struct {
	graph.NeighborPage
	Budget
}

// Neighbors runs neighbors within its budget.
func Neighbors(ctx context.Context, e *Env, in NeighborsInput) (*NeighborsOutput, error) {
	id, err := nodeID(ctx, e, in.ID)
	if err != nil {
		return nil, err
	}
	args := in
	args.ID, args.Offset, args.Limit, args.Paging = id, 0, 0, Paging{}
	budget, print, offset, err := in.start("neighbors", args, in.Offset)
	if err != nil {
		return nil, err
	}
	res, err := graph.Neighbors(ctx, e.App.GraphIndex, id, graph.NeighborOptions{Direction: in.Direction, Type: in.Type, Offset: offset, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	out := &NeighborsOutput{NeighborPage: *res, Budget: Budget{MaxTokens: budget}}
	if err := fitList("neighbors", print, out, &out.Budget, textNeighbors, offset, "neighbors", &out.Neighbors, res.HasMore); err != nil {
		return nil, err
	}
	out.HasMore = out.NextCursor != ""
	return out, nil
}

func textNeighbors(w io.Writer, p *NeighborsOutput) {
	fmt.Fprintf(w, "%d of %d edges around %s\n", len(p.Neighbors), p.Total, p.Node.Label)
	for _, n := range p.Neighbors {
		other := n.Edge.Target
		if n.Node != nil {
			other = n.Node.Label + " (" + n.Node.ID + ")"
		}
		fmt.Fprintf(w, "- %s %s %s\n", n.Direction, n.Edge.Type, other)
	}
	p.Budget.text(w)
}

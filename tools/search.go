package tools

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/recall"
	"github.com/noema-mem/noema/search"
	"github.com/noema-mem/noema/timeline"
)

func searchTools() []*Tool {
	return []*Tool{
		Embeds(New(Def{
			Name: "search_notes", Command: "search", Toolset: "search", Title: "Search notes", Hints: readOnly,
			Description: "Find the notes about a topic. hybrid (default) fuses full text (BM25, title above body, English stemming, Chinese/Japanese substrings; notes with every word rank first) " +
				"and meaning (the note chunks' embeddings) by reciprocal rank, then weights by recency unless decay=false; fulltext and semantic use one list. " +
				"[[X]] as the query returns the notes linking concept X (aliases included), freshest first. Any text is a valid query. " +
				"Each hit has a 0-1 score, a snippet with matched terms in «», its decay and its rank in each list (why it ranks where it does). Searching does not count as reading. " +
				"A note superseded by another (front matter supersedes) or past its valid_until ranks below its successor and says superseded_by or expired; as_of answers from the notes valid at a past date. " +
				"The answer keeps to max_tokens (default 4000), whole hits; pass next_cursor as cursor for the rest.",
		}, SearchNotes, textSearch), func(in SearchInput) bool { return in.Mode != search.ModeFulltext }),

		New(Def{
			Name: "build_context", Command: "context", Toolset: "search", Title: "Build context around a concept", Hints: readOnly,
			Description: "What is already known around a concept (id, label or alias): its description and page, its typed relations, the concepts that co-occur with it in notes " +
				"(count = notes linking both, weight = those notes' recency weights summed; expanded breadth first up to depth hops, with distance and the concept each came through) " +
				"the notes that mention it, freshest first, those still valid before the superseded or expired ones (each says superseded_by or expired; as_of answers as of a past date; with include_content, the paragraph around the first mention), and its community in the concept graph with its top siblings (analyze_graph communities). An unknown name is not_found, naming the closest spellings. " +
				"The answer keeps to max_tokens (default 4000), filling relations, then notes, then related concepts, then the community; omitted says what was left, next_cursor continues.",
		}, BuildContext, textContext),
	}
}

// SearchInput is one search_notes call: the search and its budget.
type SearchInput struct {
	search.Input
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"the most tokens this answer may take, text and structured result together (estimated, above cl100k/o200k counts); hits that do not fit are left for the next page (default 4000, 1000-100000)" default:"4000" minimum:"1000" maximum:"100000"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous answer: its next page (same query and filters; replaces offset)" maxLength:"200"`
}

// SearchOutput is a search_notes answer: one page of hits within the budget.
type SearchOutput struct {
	search.Result
	Budget
}

// SearchNotes runs search_notes: the search from the cursor's offset (or
// offset), its hits kept whole while the answer fits max_tokens.
func SearchNotes(ctx context.Context, e *Env, in SearchInput) (*SearchOutput, error) {
	args := in.Input
	args.Offset, args.Limit = 0, 0
	budget, print, from, err := Paging{MaxTokens: in.MaxTokens, Cursor: in.Cursor}.start("search_notes", args, in.Offset)
	if err != nil {
		return nil, err
	}
	q := in.Input
	q.Offset = from
	res, err := e.App.Search.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &SearchOutput{Result: *res, Budget: Budget{MaxTokens: budget}}
	if err := fitList("search_notes", print, out, &out.Budget, textSearch, q.Offset, "hits", &out.Hits, res.HasMore); err != nil {
		return nil, err
	}
	out.HasMore = out.NextCursor != ""
	return out, nil
}

func textSearch(w io.Writer, o *SearchOutput) {
	fmt.Fprintf(w, "%d of %d notes for %q (%s)", len(o.Hits), o.Total, o.Query, o.Mode)
	if o.HasMore {
		fmt.Fprint(w, "; more with cursor below")
	}
	fmt.Fprintln(w)
	warnings(w, o.Warnings)
	for _, h := range o.Hits {
		fmt.Fprintf(w, "- %.3f %s — %s", h.Score, h.URI, h.Title)
		var ranks []string
		if h.Ranks.Fulltext > 0 {
			ranks = append(ranks, fmt.Sprintf("full text #%d", h.Ranks.Fulltext))
		}
		if h.Ranks.Semantic > 0 {
			ranks = append(ranks, fmt.Sprintf("meaning #%d", h.Ranks.Semantic))
		}
		ranks = append(ranks, fmt.Sprintf("decay %.2f", h.Decay))
		ranks = append(ranks, placeText(h.Place)...)
		fmt.Fprintf(w, " (%s)\n  %s\n", strings.Join(ranks, ", "), h.Snippet)
	}
	o.Budget.text(w)
}

// ContextInput is one build_context call: the context and its budget.
type ContextInput struct {
	recall.Input
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"the most tokens this answer may take, text and structured result together (estimated, above cl100k/o200k counts); sections fill in the order relations, notes, related concepts, community, and what does not fit is left for the next page (default 4000, 1000-100000)" default:"4000" minimum:"1000" maximum:"100000"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous answer: its next page (same concept and options)" maxLength:"200"`
}

// ContextOutput is a build_context answer within the budget.
type ContextOutput struct {
	recall.Result
	Budget
}

// BuildContext runs build_context: the whole context, then as much of it
// as fits max_tokens from the cursor on, section by section in priority
// order — relations, notes, related concepts, community — each item whole.
// The concept itself heads every page.
func BuildContext(ctx context.Context, e *Env, in ContextInput) (*ContextOutput, error) {
	budget, err := budgetOf(in.MaxTokens)
	if err != nil {
		return nil, err
	}
	res, err := e.App.Recall.BuildContext(ctx, in.Input)
	if err != nil {
		return nil, err
	}
	// The concept as resolved, so that an alias and the label page alike.
	args := in.Input
	args.Concept = res.Concept.ID
	print := fingerprint(args)
	offsets, err := readCursor(in.Cursor, "build_context", print, 4)
	if err != nil {
		return nil, err
	}
	out := &ContextOutput{Result: *res, Budget: Budget{MaxTokens: budget}}
	out.Relations = from(out.Relations, offsets[0])
	out.Notes = from(out.Notes, offsets[1])
	out.Related = from(out.Related, offsets[2])
	var community []graph.ConceptCommunity
	if res.Community != nil && offsets[3] == 0 {
		community = []graph.ConceptCommunity{*res.Community}
	}
	sec := list("community", &community, false)
	keep := sec.keep
	sec.keep = func(k int) {
		keep(k)
		out.Community = nil
		if k > 0 {
			out.Community = &community[0]
		}
	}
	newCursor := func(o []int) string { return cursor{"build_context", print, o}.String() }
	err = fitSections(out, &out.Budget, textContext, offsets, newCursor,
		list("relations", &out.Relations, false), list("notes", &out.Notes, false), list("related", &out.Related, false), sec)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// from returns the items of list from offset on (none past its end).
func from[T any](list []T, offset int) []T {
	if list == nil {
		return nil // omitted stays omitted
	}
	if offset >= len(list) {
		return []T{}
	}
	return list[offset:]
}

func textContext(w io.Writer, o *ContextOutput) {
	c := o.Concept
	fmt.Fprintf(w, "%s [%s]", c.Label, c.ID)
	if len(c.Aliases) > 0 {
		fmt.Fprintf(w, " aka %s", strings.Join(c.Aliases, ", "))
	}
	if c.Page != "" {
		fmt.Fprintf(w, "; page %s", c.Page)
	}
	fmt.Fprintln(w)
	if c.Description != "" {
		fmt.Fprintln(w, c.Description)
	}
	warnings(w, o.Warnings)
	if len(o.Relations) > 0 {
		fmt.Fprintf(w, "relations (%d):\n", len(o.Relations))
		for _, r := range o.Relations {
			arrow := "->"
			if r.Direction == "in" {
				arrow = "<-"
			}
			fmt.Fprintf(w, "- %s %s %s\n", arrow, r.Type, named(r.OtherLabel, r.Other))
		}
	}
	if len(o.Related) > 0 {
		fmt.Fprintf(w, "related concepts (%d):\n", len(o.Related))
		for _, r := range o.Related {
			fmt.Fprintf(w, "- %s [%s] %d notes, weight %.2f, distance %d", r.Label, r.ID, r.Count, r.Weight, r.Distance)
			if r.Distance > 1 {
				fmt.Fprintf(w, " via %s", r.Via)
			}
			fmt.Fprintln(w)
		}
	}
	if cc := o.Community; cc != nil {
		fmt.Fprintf(w, "community %d (%d concepts)", cc.Community, cc.Size)
		if cc.Stale {
			fmt.Fprint(w, " [stale: as before the latest writes, recomputing]")
		}
		for i, sib := range cc.Siblings {
			sep := ", "
			if i == 0 {
				sep = ": "
			}
			fmt.Fprintf(w, "%s%s", sep, sib.Label)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "notes (%d):\n", len(o.Notes))
	for _, n := range o.Notes {
		fmt.Fprintf(w, "- %s — %s (%s)\n", n.URI, n.Title, strings.Join(append([]string{"modified " + n.Modified.Format("2006-01-02"),
			fmt.Sprintf("decay %.2f", n.Decay)}, placeText(n.Place)...), ", "))
		if n.Excerpt != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(n.Excerpt, "\n", "\n  "))
		}
	}
	o.Budget.text(w)
}

// placeText says a listed note's place in time, as the text renderings
// show it: what supersedes it, what it supersedes, that it expired.
func placeText(p timeline.Place) []string {
	var out []string
	if len(p.SupersededBy) > 0 {
		out = append(out, "superseded by "+strings.Join(p.SupersededBy, ", "))
	}
	if p.Expired {
		out = append(out, "expired "+p.ValidUntil.Format("2006-01-02"))
	}
	if p.NotYetValid {
		out = append(out, "valid from "+p.ValidFrom.Format("2006-01-02"))
	}
	if len(p.Supersedes) > 0 {
		verb := "supersedes "
		if p.Successor {
			verb = "found as the successor of "
		}
		out = append(out, verb+strings.Join(p.Supersedes, ", "))
	}
	return out
}

package tools

import (
	"fmt"
	"io"
	"strings"

	"github.com/noema-mem/noema/recall"
	"github.com/noema-mem/noema/search"
)

func searchTools() []*Tool {
	return []*Tool{
		Embeds(New(Def{
			Name: "search_notes", Command: "search", Toolset: "search", Title: "Search notes", Hints: readOnly,
			Description: "Find the notes about a topic. hybrid (default) fuses full text (BM25, title above body, English stemming, Chinese/Japanese substrings; notes with every word rank first) " +
				"and meaning (the note chunks' embeddings) by reciprocal rank, then weights by recency unless decay=false; fulltext and semantic use one list. " +
				"[[X]] as the query returns the notes linking concept X (aliases included), freshest first. Any text is a valid query. " +
				"Each hit has a 0-1 score, a snippet with matched terms in «», its decay and its rank in each list (why it ranks where it does). Searching does not count as reading.",
		}, calls(onSearch, (*search.Service).Search), func(w io.Writer, o *search.Result) {
			fmt.Fprintf(w, "%d of %d notes for %q (%s)", len(o.Hits), o.Total, o.Query, o.Mode)
			if o.HasMore {
				fmt.Fprint(w, "; more with a higher offset")
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
				fmt.Fprintf(w, " (%s)\n  %s\n", strings.Join(ranks, ", "), h.Snippet)
			}
		}), func(in search.Input) bool { return in.Mode != search.ModeFulltext }),

		New(Def{
			Name: "build_context", Command: "context", Toolset: "search", Title: "Build context around a concept", Hints: readOnly,
			Description: "What is already known around a concept (id, label or alias): its description and page, its typed relations, the concepts that co-occur with it in notes " +
				"(count = notes linking both, weight = those notes' recency weights summed; expanded breadth first up to depth hops, with distance and the concept each came through) " +
				"the notes that mention it, freshest first (with include_content, the paragraph around the first mention), and its community in the concept graph with its top siblings (analyze_graph communities). An unknown name is not_found, naming the closest spellings.",
		}, calls(onRecall, (*recall.Service).BuildContext), func(w io.Writer, o *recall.Result) {
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
				fmt.Fprintf(w, "- %s — %s (modified %s, decay %.2f)\n", n.URI, n.Title, n.Modified.Format("2006-01-02"), n.Decay)
				if n.Excerpt != "" {
					fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(n.Excerpt, "\n", "\n  "))
				}
			}
		}),
	}
}

package tools

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/noema-mem/noema/concepts"
)

func duplicateTools() []*Tool {
	return []*Tool{
		New(Def{
			Name: "analyze_duplicates", Command: "concept duplicates", Toolset: "concepts", Title: "Find duplicate concepts", Hints: readOnly,
			Description: "Groups of concepts that are likely one concept under several names, with the evidence for each pair (same key after case, accent, plural, " +
				"word-order and function-word folding; typos; a generic head word such as \"Raft consensus algorithm\"; fuzzy WRatio; embedding similarity; shared notes and relations) " +
				"and a verdict (merge, or review: look first). Each group names the suggested survivor (most mentions, then has a page, then older) and a merge " +
				"ready for merge_concepts. Look-alikes that must stay apart (opposites, one-word siblings, versions, file names, code identifiers, a compound and its head word) " +
				"are listed in do_not_merge with the reason. Read-only; concept limits it to one concept's group.",
		}, func(ctx context.Context, e *Env, in concepts.DuplicatesInput) (*concepts.DuplicatesResult, error) {
			return e.App.Concepts.Duplicates(ctx, in, e.App.Semantic)
		}, textDuplicates),
	}
}

func textDuplicates(w io.Writer, o *concepts.DuplicatesResult) {
	fmt.Fprintf(w, "%d duplicate groups among %d concepts", o.Total, o.Concepts)
	if o.HasMore {
		fmt.Fprintf(w, " (showing %d from offset %d)", len(o.Groups), o.Offset)
	}
	fmt.Fprintln(w)
	warnings(w, o.Warnings)
	for _, g := range o.Groups {
		names := make([]string, 0, len(g.Members))
		for _, m := range g.Members {
			names = append(names, fmt.Sprintf("%q (%d)", m.Label, m.Mentions))
		}
		fmt.Fprintf(w, "- %s %.2f: keep %q; %s\n", g.Verdict, g.Score, g.Target.Label, strings.Join(names, ", "))
		for _, p := range g.Pairs {
			sim := "-"
			if p.Similarity != nil {
				sim = fmt.Sprintf("%.3f", *p.Similarity)
			}
			fmt.Fprintf(w, "    %q ~ %q: %s %.2f, fuzzy %.1f, similarity %s, shared %d [%s]\n", p.A.Label, p.B.Label, p.Verdict, p.Score, p.Fuzzy, sim, p.SharedNeighbors, strings.Join(p.Evidence, ", "))
		}
	}
	if len(o.DoNotMerge) > 0 {
		fmt.Fprintf(w, "do not merge (%d):\n", len(o.DoNotMerge))
		for _, d := range o.DoNotMerge {
			fmt.Fprintf(w, "- %q / %q: %s\n", d.A.Label, d.B.Label, d.Reason)
		}
	}
}

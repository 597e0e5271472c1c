package tools

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/semantic"
)

// ConceptRef names a concept.
type ConceptRef struct {
	Concept string `json:"concept" jsonschema:"the concept: id, label or any alias" cli:"arg=CONCEPT"`
}

func conceptTools() []*Tool {
	return []*Tool{
		New(Def{
			Name: "find_concepts", Command: "concept find", Toolset: "concepts", Title: "Find concepts by spelling", Hints: readOnly,
			Description: "Before you create or link a concept, ask whether it already exists under another spelling. Scores the query against every concept's label and aliases " +
				"(rapidfuzz WRatio, 0-100), best first; each candidate says which name matched. Recall first: nothing is cut unless min_score asks. " +
				"A second channel adds names with the same words after plural, word-order and function-word folding, or without a generic head word (\"Git version control system\" finds Git), marked in channels, with their WRatio score. " +
				"Synonyms that share no spelling are out of its reach: browse list_concepts for those. You decide what is a duplicate.",
		}, FindConcepts, textFind),

		Embeds(New(Def{
			Name: "find_similar_concepts", Command: "concept similar", Toolset: "concepts", Title: "Find concepts close in meaning", Hints: readOnly,
			Description: "Concepts whose embeddings are close to a concept (id, label or alias; its own vector, itself excluded) or to free text. " +
				"Each result has similarity (cosine), decay (freshness: the most recent note linking it) and score = similarity × decay, ranked by score, with a band " +
				"(≥0.90 likely synonyms, 0.75–0.90 strong, 0.60–0.75 related, else weak). The embedder is named: the built-in one sees spelling, not meaning. " +
				"Treat it as a ranking signal; saturated or degenerate cases come back as warnings.",
		}, FindSimilar, textSimilar), Always[SimilarInput]),

		New(Def{
			Name: "list_concepts", Command: "concept list", Toolset: "concepts", Title: "List concepts", Hints: readOnly,
			Description: "Browse the concept vocabulary, newest first, optionally filtered by text on labels and aliases (contains, starts_with, ends_with; case-insensitive). Paged: offset/limit (default 50, max 500), total and has_more.",
		}, ListConcepts, textConceptList),

		New(Def{
			Name: "create_concept", Command: "concept create", Toolset: "concepts", Title: "Create a concept", Hints: additive,
			Description: "Create a concept with a page under concepts/ (label, aliases, description, metadata). Fails with conflict, naming the owner, when the label or an alias already names a concept. Links to any alias resolve to the concept.",
		}, calls(onConcepts, (*concepts.Service).Create), textConcept),

		New(Def{
			Command: "concept show", Title: "Show a concept", Hints: readOnly,
			Description: "A concept by id, label or alias: its label, aliases, description, metadata, page and mentions.",
		}, func(ctx context.Context, e *Env, in ConceptRef) (*noema.Concept, error) {
			return e.App.Concepts.Get(ctx, in.Concept)
		}, textConcept),

		New(Def{
			Name: "update_concept", Command: "concept update", Toolset: "concepts", Title: "Update a concept", Hints: destructiveRepeats,
			Description: "Change a concept's label (the old label stays as an alias), aliases, description or metadata. Metadata merges key by key; " +
				"a key with a different value fails with metadata_conflict and nothing is written (use metadata_remove or metadata_replace).",
		}, calls(onConcepts, (*concepts.Service).Update), textConcept),

		Embeds(New(Def{
			Name: "merge_concepts", Command: "concept merge", Toolset: "concepts", Title: "Merge duplicate concepts", Hints: destructiveRepeats,
			Description: "Merge duplicate concepts (sources) into one (target). Every link to a source in every note becomes a link to the target with the text reading the same " +
				"([[src]] -> [[Target|src]], [[src|shown]] -> [[Target|shown]], [[src#H]] -> [[Target#H]]); the sources' names become aliases of the target so old spellings keep resolving; " +
				"relations move to the target (duplicates collapse); metadata merges (a conflicting key stops everything); source pages go. dry_run (the default) only reports every change. " +
				"Refuses a source less similar than min_similarity (embedding) unless force or analyze_duplicates' rule calls it a duplicate (its merge groups are always accepted); a dry run previews even those and says needs_force. " +
				"Refuses to merge a concept whose page is a note into one without a note page (merge the other way). inbound_links lists every note that gains or loses inbound links. " +
				"All files change together or none; merging again is a no-op. analyze_duplicates proposes merges ready to pass here.",
		}, calls(onConcepts, (*concepts.Service).Merge), func(w io.Writer, o *concepts.MergeResult) {
			fmt.Fprintln(w, o.Message)
			for _, s := range o.Similarities {
				fmt.Fprintf(w, "- similarity of %s to %s: %.3f (%s)\n", s.Label, o.Target.Label, s.Similarity, o.Embedder)
			}
			for _, l := range o.InboundLinks {
				fmt.Fprintf(w, "inbound links of %s (%s): %d -> %d\n", l.URI, strings.ReplaceAll(l.Role, "_", " "), l.Before, l.After)
			}
			warnings(w, o.Warnings)
			if len(o.AliasesAdded) > 0 {
				fmt.Fprintf(w, "aliases added: %s\n", strings.Join(o.AliasesAdded, ", "))
			}
			for _, p := range o.PagesDeleted {
				fmt.Fprintf(w, "page deleted: %s\n", p)
			}
			for _, c := range o.Changes {
				fmt.Fprintf(w, "  %s:%d\n    - %s\n    + %s\n", c.URI, c.Line, c.Before, c.After)
			}
			if o.DryRun && len(o.Sources) > 0 {
				fmt.Fprintln(w, "dry run: nothing changed (pass dry_run=false, or --apply on the command line)")
			}
		}), Always[concepts.MergeInput]),

		New(Def{
			Name: "delete_concept", Command: "concept delete", Toolset: "concepts", Title: "Delete a concept", Hints: destructiveRepeats,
			Description: "Delete a concept and its page. Refuses with conflict while notes link it, unless unlink=true, which turns those links into plain text; " +
				"and while other notes or pages declare relations to it, unless cascade_relations=true, which removes them. All files change together or none.",
		}, calls(onConcepts, (*concepts.Service).Delete), func(w io.Writer, o *concepts.DeleteResult) {
			fmt.Fprintf(w, "deleted concept %q (%s); %d notes unlinked, relations removed from %d files\n", o.Label, o.ID, len(o.Unlinked), len(o.RelationsRemoved))
		}),

		Embeds(New(Def{
			Name: "analyze_duplicates", Command: "concept duplicates", Toolset: "concepts", Title: "Find duplicate concepts", Hints: readOnly,
			Description: "Groups of concepts that are likely one concept under several names, with the evidence for each pair (same key after case, accent, plural, " +
				"word-order and function-word folding; typos; a generic head word such as \"Raft consensus algorithm\"; a qualifier such as \"Munich, Germany\" or \"SQL injection attack\"; " +
				"acronyms, clipped and contracted words, numeronyms such as \"k8s\"; fuzzy WRatio; embedding similarity; shared notes and relations) " +
				"and a verdict (merge, or review: look first; merge_concepts accepts every merge group as proposed). Each group names the suggested survivor (the member whose page is a note, then one with a page, then not a misspelling, then most mentions) and a merge " +
				"ready for merge_concepts. Look-alikes that must stay apart (opposites, one-word siblings, versions, file names, code identifiers, a compound and its head word) " +
				"are listed in do_not_merge with the reason. Read-only; concept limits it to one concept's group.",
		}, Duplicates, textDuplicatesOutput), Always[DuplicatesInput]),
	}
}

func textConcept(w io.Writer, c *noema.Concept) {
	fmt.Fprintf(w, "%s [%s]", c.Label, c.ID)
	if len(c.Aliases) > 0 {
		fmt.Fprint(w, " aka "+strings.Join(c.Aliases, ", "))
	}
	fmt.Fprintf(w, "; %d mentions", c.Mentions)
	if c.Page != "" {
		fmt.Fprint(w, "; page "+c.Page)
	}
	fmt.Fprintln(w)
	if c.Description != "" {
		fmt.Fprintln(w, c.Description)
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

// warnings prints each warning on a line of its own.
func warnings(w io.Writer, ws []string) {
	for _, s := range ws {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
}

// SimilarInput is one find_similar_concepts call.
type SimilarInput struct {
	semantic.SimilarInput
	Paging
}

// SimilarOutput is a page of find_similar_concepts' neighbours within the budget.
type SimilarOutput struct {
	semantic.SimilarResult
	Budget
}

// FindSimilar runs find_similar_concepts: the max_results nearest
// concepts, paged within the budget (a cursor pages within them).
func FindSimilar(ctx context.Context, e *Env, in SimilarInput) (*SimilarOutput, error) {
	budget, print, offset, err := in.start("find_similar_concepts", in.SimilarInput, 0)
	if err != nil {
		return nil, err
	}
	res, err := findSimilar(ctx, e, in.SimilarInput)
	if err != nil {
		return nil, err
	}
	out := &SimilarOutput{SimilarResult: *res, Budget: Budget{MaxTokens: budget}}
	out.Results = from(out.Results, offset)
	if err := fitList("find_similar_concepts", print, out, &out.Budget, textSimilar, offset, "results", &out.Results, false); err != nil {
		return nil, err
	}
	return out, nil
}

func findSimilar(ctx context.Context, e *Env, in semantic.SimilarInput) (*semantic.SimilarResult, error) {
	return e.App.Semantic.FindSimilarOr(ctx, in, func(ctx context.Context, q string, k int) ([]semantic.Similar, error) {
		found, err := e.App.Concepts.Find(ctx, concepts.FindInput{Query: q, Limit: k})
		if err != nil {
			return nil, err
		}
		out := make([]semantic.Similar, 0, len(found.Candidates))
		for _, c := range found.Candidates {
			out = append(out, semantic.Similar{ID: c.ID, Label: c.Label, Aliases: c.Aliases, Score: c.Score})
		}
		return out, nil
	})
}

func textSimilar(w io.Writer, o *SimilarOutput) {
	fmt.Fprintf(w, "%d concepts similar to %q (embedder %s: %s)\n", len(o.Results), o.Query, o.Embedder, o.Meaning)
	if o.Fallback != "" {
		fmt.Fprintf(w, "fallback: %s\n", o.Fallback)
	}
	warnings(w, o.Warnings)
	for _, r := range o.Results {
		fmt.Fprintf(w, "- %.3f %s [%s] similarity %.3f × decay %.3f (%s)\n", r.Score, r.Label, r.ID, r.Similarity, r.Decay, r.Band)
	}
	o.Budget.text(w)
}

// DuplicatesInput is one analyze_duplicates call.
type DuplicatesInput struct {
	concepts.DuplicatesInput
	Paging
}

// DuplicatesOutput is a page of analyze_duplicates within the budget.
type DuplicatesOutput struct {
	concepts.DuplicatesResult
	Budget
}

// Duplicates runs analyze_duplicates: the groups from the cursor's offset
// (or offset), then the look-alikes to keep apart, each whole while the
// answer fits max_tokens.
func Duplicates(ctx context.Context, e *Env, in DuplicatesInput) (*DuplicatesOutput, error) {
	budget, err := budgetOf(in.MaxTokens)
	if err != nil {
		return nil, err
	}
	args := in.DuplicatesInput
	args.Offset, args.Limit = 0, 0
	print := fingerprint(args)
	offsets, err := readCursor(in.Cursor, "analyze_duplicates", print, 2)
	if err != nil {
		return nil, err
	}
	q := in.DuplicatesInput
	if in.Cursor != "" {
		if in.Offset != 0 {
			return nil, noema.Errorf(noema.EINVALID, "pass cursor or offset, not both: the cursor holds the offset").WithParam("offset")
		}
		q.Offset = offsets[0]
	} else {
		offsets[0] = q.Offset
	}
	res, err := e.App.Concepts.Duplicates(ctx, q, e.App.Semantic)
	if err != nil {
		return nil, err
	}
	out := &DuplicatesOutput{DuplicatesResult: *res, Budget: Budget{MaxTokens: budget}}
	out.DoNotMerge = from(out.DoNotMerge, offsets[1])
	newCursor := func(o []int) string { return cursor{"analyze_duplicates", print, o}.String() }
	if err := fitSections(out, &out.Budget, textDuplicatesOutput, offsets, newCursor,
		list("groups", &out.Groups, res.HasMore), list("do_not_merge", &out.DoNotMerge, false)); err != nil {
		return nil, err
	}
	out.HasMore = out.NextCursor != ""
	return out, nil
}

func textDuplicatesOutput(w io.Writer, o *DuplicatesOutput) {
	textDuplicates(w, &o.DuplicatesResult)
	o.Budget.text(w)
}

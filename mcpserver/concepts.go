package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/semantic"
)

// ConceptRef names a concept.
type ConceptRef struct {
	Concept string `json:"concept" jsonschema:"the concept: id, label or any alias"`
}

// DeleteConceptInput deletes a concept.
type DeleteConceptInput struct {
	Concept string `json:"concept" jsonschema:"the concept: id, label or any alias"`
	Unlink  bool   `json:"unlink,omitempty" jsonschema:"turn links to the concept into plain text instead of refusing while notes link it (default false)" default:"false"`
}

func registerConcepts(r *registry) {
	add(r, "concepts", &mcp.Tool{
		Name:  "find_concepts",
		Title: "Find concepts by spelling",
		Description: "Before you create or link a concept, ask whether it already exists under another spelling. Scores the query against every concept's label and aliases " +
			"(rapidfuzz WRatio, 0-100), best first; each candidate says which name matched. Recall first: nothing is cut unless min_score asks. " +
			"Synonyms that share no spelling are out of its reach: browse list_concepts for those. You decide what is a duplicate.",
	}, readOnly, func(ctx context.Context, _ *mcp.CallToolRequest, in concepts.FindInput) (*concepts.FindResult, error) {
		return r.app.Concepts.Find(ctx, in)
	}, func(o *concepts.FindResult) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%d candidates for %q among %d concepts\n", len(o.Candidates), o.Query, o.Total)
		for _, c := range o.Candidates {
			via := ""
			if c.IsAlias {
				via = fmt.Sprintf(" (via alias %q)", c.Matched)
			}
			fmt.Fprintf(&b, "- %.1f %s%s [%s, %d mentions]\n", c.Score, c.Label, via, c.ID, c.Mentions)
		}
		return b.String()
	})

	add(r, "concepts", &mcp.Tool{
		Name:  "find_similar_concepts",
		Title: "Find concepts close in meaning",
		Description: "Concepts whose embeddings are close to a concept (id, label or alias; its own vector, itself excluded) or to free text. " +
			"Each result has similarity (cosine), decay (freshness: the most recent note linking it) and score = similarity × decay, ranked by score, with a band " +
			"(≥0.90 likely synonyms, 0.75–0.90 strong, 0.60–0.75 related, else weak). The embedder is named: the built-in one sees spelling, not meaning. " +
			"Treat it as a ranking signal; saturated or degenerate cases come back as warnings.",
	}, readOnly, func(ctx context.Context, _ *mcp.CallToolRequest, in semantic.SimilarInput) (*semantic.SimilarResult, error) {
		return r.app.Semantic.FindSimilar(ctx, in)
	}, textSimilar)

	add(r, "concepts", &mcp.Tool{
		Name:        "list_concepts",
		Title:       "List concepts",
		Description: "Browse the concept vocabulary, newest first, optionally filtered by text on labels and aliases (contains, starts_with, ends_with; case-insensitive). Paged: offset/limit (default 50, max 500), total and has_more.",
	}, readOnly, func(ctx context.Context, _ *mcp.CallToolRequest, in concepts.ListInput) (*concepts.ListResult, error) {
		return r.app.Concepts.List(ctx, in)
	}, textConcepts)

	add(r, "concepts", &mcp.Tool{
		Name:        "create_concept",
		Title:       "Create a concept",
		Description: "Create a concept with a page under concepts/ (label, aliases, description, metadata). Fails with conflict, naming the owner, when the label or an alias already names a concept. Links to any alias resolve to the concept.",
	}, additive, func(ctx context.Context, _ *mcp.CallToolRequest, in concepts.CreateInput) (*noema.Concept, error) {
		return r.app.Concepts.Create(ctx, in)
	}, textConcept)

	add(r, "concepts", &mcp.Tool{
		Name:  "update_concept",
		Title: "Update a concept",
		Description: "Change a concept's label (the old label stays as an alias), aliases, description or metadata. Metadata merges key by key; " +
			"a key with a different value fails with metadata_conflict and nothing is written (use metadata_remove or metadata_replace).",
	}, idempotent, func(ctx context.Context, _ *mcp.CallToolRequest, in concepts.UpdateInput) (*noema.Concept, error) {
		return r.app.Concepts.Update(ctx, in)
	}, textConcept)

	add(r, "concepts", &mcp.Tool{
		Name:        "delete_concept",
		Title:       "Delete a concept",
		Description: "Delete a concept and its page. Refuses with conflict while notes link it, unless unlink=true, which turns those links into plain text.",
	}, destructive, func(ctx context.Context, _ *mcp.CallToolRequest, in DeleteConceptInput) (*concepts.DeleteResult, error) {
		return r.app.Concepts.Delete(ctx, in.Concept, in.Unlink)
	}, func(o *concepts.DeleteResult) string {
		return fmt.Sprintf("deleted concept %q (%s); %d notes unlinked", o.Label, o.ID, len(o.Unlinked))
	})
}

func textSimilar(o *semantic.SimilarResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d concepts similar to %q (embedder %s)\n", len(o.Results), o.Query, o.Embedder)
	for _, w := range o.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	for _, r := range o.Results {
		fmt.Fprintf(&b, "- %.3f %s [%s] similarity %.3f × decay %.3f (%s)\n", r.Score, r.Label, r.ID, r.Similarity, r.Decay, r.Band)
	}
	return b.String()
}

func textConcept(c *noema.Concept) string {
	s := fmt.Sprintf("%s [%s]", c.Label, c.ID)
	if len(c.Aliases) > 0 {
		s += " aka " + strings.Join(c.Aliases, ", ")
	}
	s += fmt.Sprintf("; %d mentions", c.Mentions)
	if c.Page != "" {
		s += "; page " + c.Page
	}
	if c.Description != "" {
		s += "\n" + c.Description
	}
	return s
}

func textConcepts(o *concepts.ListResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d concepts", len(o.Concepts), o.Total)
	if o.HasMore {
		fmt.Fprintf(&b, " (more from offset %d)", o.Offset+len(o.Concepts))
	}
	b.WriteString("\n")
	for _, c := range o.Concepts {
		fmt.Fprintf(&b, "- %s", c.Label)
		if len(c.Aliases) > 0 {
			fmt.Fprintf(&b, " (aka %s)", strings.Join(c.Aliases, ", "))
		}
		fmt.Fprintf(&b, " [%s, %d mentions]\n", c.ID, c.Mentions)
	}
	return b.String()
}

// conceptsResource serves noema://concepts{?text,match,offset,limit}.
func conceptsResource(r *registry) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u, err := url.Parse(req.Params.URI)
		if err != nil {
			return nil, fmt.Errorf("%s: bad resource uri: %v", noema.EINVALID, err)
		}
		q := u.Query()
		in := concepts.ListInput{Text: q.Get("text"), Match: q.Get("match")}
		if v := q.Get("offset"); v != "" {
			if in.Offset, err = strconv.Atoi(v); err != nil {
				return nil, fmt.Errorf("%s: offset must be a number", noema.EINVALID)
			}
		}
		if v := q.Get("limit"); v != "" {
			if in.Limit, err = strconv.Atoi(v); err != nil {
				return nil, fmt.Errorf("%s: limit must be a number", noema.EINVALID)
			}
		}
		res, err := r.app.Concepts.List(ctx, in)
		if err != nil {
			return nil, r.toolError("resources/read", err)
		}
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encode concepts: %w", err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
	}
}

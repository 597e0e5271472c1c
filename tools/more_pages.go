package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
)

// SubgraphOutput is a subgraph, or one page of it, within the budget.
// Truncated is set both when the expansion stopped at
// graph.MaxSubgraphNodes nodes (Capped says so) and when the budget left
// nodes or edges for later pages (next_cursor).
type SubgraphOutput struct {
	Nodes []noema.GraphNode `json:"nodes"`
	Edges []noema.GraphEdge `json:"edges"`
	// Capped is set when the expansion stopped at graph.MaxSubgraphNodes.
	Capped bool `json:"capped" jsonschema:"true when the expansion stopped at 2,000 nodes"`
	Budget
}

// Subgraph runs subgraph: the expansion whole, then as much as fits
// max_tokens from the cursor on, nodes before edges. Its cursor holds a
// hash of the whole subgraph, so it is refused once the graph changed.
func Subgraph(ctx context.Context, e *Env, in SubgraphInput) (*SubgraphOutput, error) {
	budget, err := budgetOf(in.MaxTokens)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(in.IDs))
	for i, ref := range in.IDs {
		id, err := nodeID(ctx, e, ref)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	g, err := graph.Subgraph(ctx, e.App.GraphIndex, ids, in.Depth, in.Type)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	if err := graph.WriteJSON(h, g); err != nil {
		return nil, fmt.Errorf("hash the subgraph: %w", err)
	}
	print := fingerprint(struct {
		IDs   []string `json:"ids"`
		Depth int      `json:"depth"`
		Type  string   `json:"type"`
		Graph string   `json:"graph"`
	}{ids, in.Depth, in.Type, hex.EncodeToString(h.Sum(nil)[:8])})
	offsets, err := readCursor(in.Cursor, "subgraph", print, 2,
		"cursor was returned for other seeds, depth or type, or for a graph that has changed since (its pages would skip or repeat items): call again with the arguments that returned it, or leave cursor out to start over")
	if err != nil {
		return nil, err
	}
	out := &SubgraphOutput{Nodes: from(g.Nodes, offsets[0]), Edges: from(g.Edges, offsets[1]), Capped: g.Truncated, Budget: Budget{MaxTokens: budget}}
	newCursor := func(o []int) string { return cursor{"subgraph", print, o}.String() }
	if err := fitSections(out, &out.Budget, textSubgraph, offsets, newCursor, list("nodes", &out.Nodes, false), list("edges", &out.Edges, false)); err != nil {
		return nil, err
	}
	out.Truncated = out.Truncated || out.Capped
	return out, nil
}

func textSubgraph(w io.Writer, g *SubgraphOutput) {
	fmt.Fprintf(w, "%d nodes, %d edges", len(g.Nodes), len(g.Edges))
	if g.Capped {
		fmt.Fprint(w, " (truncated)")
	}
	fmt.Fprintln(w)
	g.Budget.text(w)
}

// AnalyzeOutput is an analyze_graph answer within the budget.
type AnalyzeOutput struct {
	graph.AnalyzeResult
	Budget
}

// analyzeBudgeted runs analyze_graph and keeps of its answer what fits
// max_tokens from the cursor on: the concept's community first (when
// asked for), then the op's list — nodes, communities, paths or links —
// each item whole.
func analyzeBudgeted(ctx context.Context, e *Env, in AnalyzeInput) (*AnalyzeOutput, error) {
	budget, err := budgetOf(in.MaxTokens)
	if err != nil {
		return nil, err
	}
	res, err := AnalyzeGraph(ctx, e, in)
	if err != nil {
		return nil, err
	}
	args := in
	args.Paging = Paging{}
	print := fingerprint(args)
	offsets, err := readCursor(in.Cursor, "analyze_graph", print, 5)
	if err != nil {
		return nil, err
	}
	out := &AnalyzeOutput{AnalyzeResult: *res, Budget: Budget{MaxTokens: budget}}
	var community []graph.ConceptCommunity
	if res.ConceptCommunity != nil && offsets[0] == 0 {
		community = []graph.ConceptCommunity{*res.ConceptCommunity}
	}
	cc := list("concept_community", &community, false)
	keep := cc.keep
	cc.keep = func(k int) {
		keep(k)
		out.ConceptCommunity = nil
		if k > 0 {
			out.ConceptCommunity = &community[0]
		}
	}
	out.Nodes = from(out.Nodes, offsets[1])
	out.Communities = from(out.Communities, offsets[2])
	out.Paths = from(out.Paths, offsets[3])
	out.Links = from(out.Links, offsets[4])
	newCursor := func(o []int) string { return cursor{"analyze_graph", print, o}.String() }
	err = fitSections(out, &out.Budget, textAnalyzeOutput, offsets, newCursor, cc,
		list("nodes", &out.Nodes, false), list("communities", &out.Communities, false), list("paths", &out.Paths, false), list("links", &out.Links, false))
	if err != nil {
		return nil, err
	}
	return out, nil
}

func textAnalyzeOutput(w io.Writer, o *AnalyzeOutput) {
	textAnalyze(w, &o.AnalyzeResult)
	o.Budget.text(w)
}

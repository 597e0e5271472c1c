package tools

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/graph"
)

// AnalyzeInput is one analyze_graph call.
type AnalyzeInput struct {
	Op         string   `json:"op" jsonschema:"pagerank, communities, paths, predict_links or centrality" enum:"pagerank,communities,paths,predict_links,centrality" cli:"arg=OP"`
	Graph      string   `json:"graph,omitempty" jsonschema:"concepts (default): the concept graph; full: the exported graph of notes and concepts" default:"\"concepts\"" enum:"concepts,full"`
	Seeds      []string `json:"seeds,omitempty" jsonschema:"pagerank: personalise on these nodes (concept ids, labels or aliases; note URIs in the full graph): the random jumps land only on them" cli:"name=seed-node"`
	Concept    string   `json:"concept,omitempty" jsonschema:"communities: also report this node's community and siblings; predict_links: predict links for this node only"`
	From       string   `json:"from,omitempty" jsonschema:"paths: the start node"`
	To         string   `json:"to,omitempty" jsonschema:"paths: the end node"`
	MaxDepth   int      `json:"max_depth,omitempty" jsonschema:"paths: the longest path, in edges (default 3, max 6)" default:"3" minimum:"1" maximum:"6"`
	Limit      int      `json:"limit,omitempty" jsonschema:"nodes, communities, paths or links returned (default 20, max 500)" default:"20" minimum:"0" maximum:"500"`
	Members    int      `json:"members,omitempty" jsonschema:"communities: members listed per community, and siblings of concept (default 10, max 500)" default:"10" minimum:"0" maximum:"500"`
	Resolution float64  `json:"resolution,omitempty" jsonschema:"communities: Louvain resolution γ; above 1 gives smaller communities (default 1)" default:"1" minimum:"0"`
	Seed       *int64   `json:"seed,omitempty" jsonschema:"communities: Louvain's node order; centrality: the sample on large graphs (default 1): the same seed gives the same answer" default:"1" minimum:"0"`
	Paging
}

const analyzeDescription = "Graph algorithms over the knowledge graph, each reproducible in networkx from export_graph. " +
	"graph=concepts (default): concepts are nodes; two concepts share an undirected edge weighing the number of notes that link both within 32 concepts of each other (in order of first link; fewer in a note of over 1,024 concepts, which joins at most 32,768 pairs) plus the weights of the typed relations between them (1 for a relation without a weight). " +
	"graph=full: the export as an undirected graph (mentions weigh their link count, relations their weight, parallel edges summed, dangling relations left out). " +
	"Ops: pagerank (alpha 0.85, weighted; personalised on seeds): which nodes matter most, scores sum to 1. " +
	"communities: Louvain (both phases, resolution, seed: the same vault and seed give the same partition), largest first, members by PageRank, with the modularity; with concept, its community and siblings. " +
	"paths (from, to, max_depth=3): every simple path up to the depth, shortest first, then heaviest; has_more when cut at limit. " +
	"predict_links (concept?): Adamic–Adar scores of unlinked pairs with the common neighbours that suggest them — links the notes never made. " +
	"centrality: betweenness by hops (exact up to 5,000 nodes, else estimated from a seeded sample, and says so). " +
	"Names are ids, labels or aliases; an unknown name is not_found with the closest spellings. Results are cached until the graph changes. " +
	"The answer keeps to max_tokens (default 4000), whole items (concept's community first); next_cursor pages on within limit."

func analyzeTools() []*Tool {
	return []*Tool{
		New(Def{
			Name: "analyze_graph", Command: "graph analyze", Toolset: "graph", Title: "Analyze the graph", Hints: readOnly,
			Description: analyzeDescription,
		}, analyzeBudgeted, textAnalyzeOutput),

		New(Def{
			Command: "graph map", Title: "Map the concepts", Hints: readOnly,
			Description: "The concept map the web view draws: the concepts of highest PageRank (or one concept and its neighbours), each with its PageRank, community (as analyze_graph communities numbers them) and a place in the plane from a force-directed layout, and the concept graph's edges between them (co-occurrence and relations, weighted as analyze_graph's concept graph). Cached until the graph changes.",
		}, ConceptMap, textMap),
	}
}

// MapInput is one concept map.
type MapInput struct {
	Concept string `json:"concept,omitempty" jsonschema:"centre the map on this concept (id, label or alias): it and its neighbours, heaviest edge first" cli:"arg=CONCEPT,optional"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most concepts on the map (default 3000, max 20000): the highest PageRank first" default:"3000" minimum:"1" maximum:"20000"`
}

// ConceptMap lays out the concept graph (graph.Analyzer.Map).
func ConceptMap(ctx context.Context, e *Env, in MapInput) (*graph.MapResult, error) {
	return e.App.Graph.Map(ctx, graph.MapOptions{Limit: in.Limit, Concept: in.Concept,
		Resolve: func(ctx context.Context, name string) (string, error) { return resolveConcept(ctx, e, name) }})
}

func textMap(w io.Writer, o *graph.MapResult) {
	fmt.Fprintf(w, "%d of %d concepts, %d edges between them, %d communities\n", len(o.Nodes), o.GraphNodes, len(o.Edges), o.Communities)
	warnings(w, o.Warnings)
	for _, n := range o.Nodes {
		fmt.Fprintf(w, "- %.6f #%d (%.3f, %.3f) %s [%s]\n", n.Rank, n.Community, n.X, n.Y, n.Label, n.ID)
	}
}

// AnalyzeGraph runs analyze_graph on e's index, sharing the index's
// analysis cache (app.App.Graph).
func AnalyzeGraph(ctx context.Context, e *Env, in AnalyzeInput) (*graph.AnalyzeResult, error) {
	opts := graph.AnalyzeOptions{
		Op: in.Op, Graph: in.Graph, Seeds: in.Seeds, Concept: in.Concept, From: in.From, To: in.To,
		MaxDepth: in.MaxDepth, Limit: in.Limit, Members: in.Members, Resolution: in.Resolution,
		Resolve: func(ctx context.Context, name string) (string, error) { return resolveConcept(ctx, e, name) },
	}
	if in.Seed != nil {
		if *in.Seed < 0 {
			return nil, noema.Errorf(noema.EINVALID, "seed must not be negative").WithParam("seed")
		}
		s := uint64(*in.Seed)
		opts.Seed = &s
	}
	if in.Resolution < 0 {
		return nil, noema.Errorf(noema.EINVALID, "resolution must be positive").WithParam("resolution")
	}
	return e.App.Graph.Analyze(ctx, opts)
}

// analyzeCandidates is how many find_concepts candidates a not_found
// error of analyze_graph names.
const analyzeCandidates = 5

// resolveConcept returns the id of the concept a name (id, label or alias)
// names; a name that names none is not_found with the closest
// find_concepts candidates, never a guess.
func resolveConcept(ctx context.Context, e *Env, name string) (string, error) {
	if strings.HasPrefix(strings.ToLower(name), noema.URIScheme) {
		return "", noema.Errorf(noema.ENOTFOUND, "no note %q in the graph (notes are nodes of graph=full only)", name)
	}
	c, err := e.App.Concepts.Get(ctx, name)
	if err == nil {
		return c.ID, nil
	}
	if noema.ErrorCode(err) != noema.ENOTFOUND {
		return "", err
	}
	res, ferr := e.App.Concepts.Find(ctx, concepts.FindInput{Query: name, Limit: analyzeCandidates})
	var cands []concepts.Candidate
	if ferr == nil {
		cands = res.Candidates
	}
	if len(cands) == 0 {
		return "", &noema.Error{Code: noema.ENOTFOUND,
			Message: fmt.Sprintf("no concept %q, and no concept is spelled like it", name),
			Details: map[string]any{"candidates": []any{}}}
	}
	names := make([]string, len(cands))
	details := make([]any, len(cands))
	for i, cd := range cands {
		names[i] = fmt.Sprintf("%q (%s, score %.0f)", cd.Label, cd.ID, cd.Score)
		details[i] = map[string]any{"id": cd.ID, "label": cd.Label, "score": cd.Score, "matched": cd.Matched}
	}
	return "", &noema.Error{Code: noema.ENOTFOUND,
		Message: fmt.Sprintf("no concept %q; closest names (find_concepts): %s — call again with one of them if it is the concept you mean",
			name, strings.Join(names, ", ")),
		Details: map[string]any{"candidates": details}}
}

func textAnalyze(w io.Writer, o *graph.AnalyzeResult) {
	fmt.Fprintf(w, "%s on the %s graph (%d nodes, %d edges)\n", o.Op, o.Graph, o.GraphNodes, o.GraphEdges)
	warnings(w, o.Warnings)
	switch o.Op {
	case graph.OpPageRank, graph.OpCentrality:
		for _, n := range o.Nodes {
			fmt.Fprintf(w, "- %.6f %s [%s]\n", n.Score, n.Label, n.ID)
		}
	case graph.OpCommunities:
		if o.Modularity != nil && o.Total != nil {
			fmt.Fprintf(w, "%d communities, modularity %.4f\n", *o.Total, *o.Modularity)
		}
		for _, c := range o.Communities {
			labels := make([]string, len(c.Members))
			for i, m := range c.Members {
				labels[i] = m.Label
			}
			more := ""
			if c.Size > len(c.Members) {
				more = ", …"
			}
			fmt.Fprintf(w, "- #%d (%d): %s%s\n", c.ID, c.Size, strings.Join(labels, ", "), more)
		}
		if cc := o.ConceptCommunity; cc != nil {
			labels := make([]string, len(cc.Siblings))
			for i, m := range cc.Siblings {
				labels[i] = m.Label
			}
			fmt.Fprintf(w, "%s is in community #%d (%d members); top siblings: %s\n", cc.Concept.Label, cc.Community, cc.Size, strings.Join(labels, ", "))
		}
	case graph.OpPaths:
		for _, p := range o.Paths {
			labels := make([]string, len(p.Nodes))
			for i, n := range p.Nodes {
				labels[i] = n.Label
			}
			fmt.Fprintf(w, "- %d edges, weight %s: %s\n", p.Length, number(p.Weight), strings.Join(labels, " — "))
		}
		if o.HasMore != nil && *o.HasMore {
			fmt.Fprintln(w, "more paths: raise limit")
		}
	case graph.OpPredictLinks:
		for _, l := range o.Links {
			labels := make([]string, len(l.Common))
			for i, c := range l.Common {
				labels[i] = c.Label
			}
			fmt.Fprintf(w, "- %.4f %s [%s] — %s [%s], %d in common: %s\n", l.Score, l.A.Label, l.A.ID, l.B.Label, l.B.ID, l.CommonTotal, strings.Join(labels, ", "))
		}
	}
}

package graph

import (
	"cmp"
	"context"
	"fmt"
	"github.com/noema-mem/noema/internal/gate"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema"
)

// Operations of analyze_graph.
const (
	OpPageRank     = "pagerank"
	OpCommunities  = "communities"
	OpPaths        = "paths"
	OpPredictLinks = "predict_links"
	OpCentrality   = "centrality"
)

// Limits of analyze_graph. Larger requests are clamped, not refused.
const (
	DefaultAnalyzeLimit = 20
	MaxAnalyzeLimit     = 500
	DefaultMembers      = 10
	MaxMembers          = 500
	DefaultPathDepth    = 3
	MaxPathDepth        = 6
	// MaxCommon caps the common neighbours listed with a predicted link.
	MaxCommon = 10
)

// AnalyzeOptions is one analyze_graph call. Zero values mean the defaults.
type AnalyzeOptions struct {
	// Op is one of OpPageRank, OpCommunities, OpPaths, OpPredictLinks,
	// OpCentrality.
	Op string
	// Graph is AnalyzeConcepts (default) or AnalyzeFull.
	Graph string
	// Seeds personalise PageRank: the random jumps land on them only.
	Seeds []string
	// Concept is, for communities, the node whose community and siblings
	// to report; for predict_links, the node to predict links for.
	Concept string
	// From and To are the ends of the paths.
	From, To string
	// MaxDepth is the longest path in edges (default 3, max 6).
	MaxDepth int
	// Limit bounds the nodes, communities, paths or links returned
	// (default 20, max 500).
	Limit int
	// Members bounds the members listed per community and the siblings
	// (default 10, max 500).
	Members int
	// Resolution is Louvain's γ (default 1; must be positive).
	Resolution float64
	// Seed seeds Louvain's node order and betweenness sampling (default 1).
	Seed *uint64
	// Resolve turns a name that is not a node id (a concept label or
	// alias) into a node id; its error is returned as is (a not_found
	// naming candidates). Nil: only node ids are accepted.
	Resolve func(ctx context.Context, name string) (string, error)
}

// NodeRef is a node in a result: its id and label.
type NodeRef struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// ScoredNode is a node with a score (PageRank or betweenness).
type ScoredNode struct {
	ID    string  `json:"id"`
	Label string  `json:"label"`
	Kind  string  `json:"kind"`
	Score float64 `json:"score"`
}

// Community is one Louvain community.
type Community struct {
	// ID is the community's rank in the result: 0 for the largest.
	ID   int `json:"id"`
	Size int `json:"size"`
	// Members are the community's nodes, highest PageRank first (score is
	// the PageRank over the whole graph), at most AnalyzeOptions.Members.
	Members []ScoredNode `json:"members"`
}

// ConceptCommunity is the community of one node and its top siblings.
type ConceptCommunity struct {
	Concept NodeRef `json:"concept"`
	// Community is the community's id ([Community].ID) and Size its size.
	Community int `json:"community"`
	Size      int `json:"size"`
	// Siblings are the other members, highest PageRank first.
	Siblings []ScoredNode `json:"siblings"`
	// Stale reports that the community and ranks are those of an earlier
	// version of the graph (before the latest writes), served while the
	// current ones are computed in the background
	// (Analyzer.RecentConceptCommunity).
	Stale bool `json:"stale,omitempty"`
}

// PathResult is one simple path.
type PathResult struct {
	Nodes []NodeRef `json:"nodes"`
	// Length is the number of edges; Weight the sum of their weights.
	Length int     `json:"length"`
	Weight float64 `json:"weight"`
}

// PredictedLink is a pair of non-adjacent nodes and their Adamic–Adar
// score, with their common neighbours (most telling first, at most
// MaxCommon; CommonTotal counts them all).
type PredictedLink struct {
	A           NodeRef   `json:"a"`
	B           NodeRef   `json:"b"`
	Score       float64   `json:"score"`
	Common      []NodeRef `json:"common"`
	CommonTotal int       `json:"common_total"`
}

// AnalyzeResult is the answer of analyze_graph. Only the fields of the
// operation are set: pagerank and centrality {nodes, total, exact};
// communities {modularity, communities, total, has_more,
// concept_community}; paths {paths, has_more}; predict_links {links}.
type AnalyzeResult struct {
	Op    string `json:"op"`
	Graph string `json:"graph"`
	// GraphNodes and GraphEdges are the size of the graph analysed.
	GraphNodes int `json:"graph_nodes"`
	GraphEdges int `json:"graph_edges"`

	Nodes []ScoredNode `json:"nodes,omitzero"`
	// Total is the number of scored nodes (pagerank, centrality) or of
	// communities.
	Total *int `json:"total,omitempty"`
	// Exact is false when betweenness was estimated from sampled sources.
	Exact *bool `json:"exact,omitempty"`

	Modularity       *float64          `json:"modularity,omitempty"`
	Communities      []Community       `json:"communities,omitzero"`
	ConceptCommunity *ConceptCommunity `json:"concept_community,omitempty"`

	Paths []PathResult    `json:"paths,omitzero"`
	Links []PredictedLink `json:"links,omitzero"`

	HasMore *bool `json:"has_more,omitempty"`
	// Warnings explain an empty or approximate answer.
	Warnings []string `json:"warnings"`
}

// Analyzer answers analyze_graph from a noema.GraphSource and caches per graph
// version: the graphs and the results that cost more than a pass over the
// graph (PageRank vectors, partitions, betweenness, graph-wide link
// predictions). A call while the version is unchanged reuses them; the
// first call after a change rebuilds. Concurrent callers that need the
// same result share one computation; callers that need different ones (a
// slow betweenness, a quick community lookup) do not wait for each other.
type Analyzer struct {
	src noema.GraphSource

	mu  sync.Mutex
	cur *snapshot
	// ranked is the newest version whose concept communities and PageRank
	// are computed; ranking is set while RecentConceptCommunity computes a
	// newer one in the background.
	ranked  *rankedGraph
	ranking bool
	// rankDone is closed when the running background computation ends;
	// rankErr is the last one's error.
	rankDone    chan struct{}
	rankErr     error
	rankStarted time.Time // when the running computation was started
	// rankTook and rankEnded are how long the last background computation
	// took and when it ended; rankGap turns rankTook into the least time
	// between the end of one and the start of the next (nil: rankTook
	// itself, so ranking takes at most half a core however often the
	// graph changes).
	rankTook  time.Duration
	rankEnded time.Time
	rankGap   func(took time.Duration) time.Duration
}

// rankedGraph is the concept graph of one version with its communities
// and PageRank, complete.
type rankedGraph struct {
	version string
	g       *Weighted
	p       *rankedPartition
	pr      []float64
}

// snapshot is the cache of one graph version.
type snapshot struct {
	version string
	mu      sync.Mutex
	entries map[string]*entry
}

// entry is one cached result, computed once.
type entry struct {
	once sync.Once
	v    any
	err  error
}

// maxEntries bounds the results kept per version (personalised PageRank
// has a key per set of seeds); past it, all but the graphs are dropped.
const maxEntries = 256

// do returns the result cached under key, computing it with fn on first
// use; concurrent callers wait for the one computing. An error is not
// kept: the next call tries again.
func (s *snapshot) do(key string, fn func() (any, error)) (any, error) {
	s.mu.Lock()
	e := s.entries[key]
	if e == nil {
		if len(s.entries) >= maxEntries {
			kept := map[string]*entry{}
			for k, v := range s.entries {
				if strings.HasPrefix(k, "graph/") {
					kept[k] = v
				}
			}
			s.entries = kept
		}
		e = &entry{}
		s.entries[key] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.v, e.err = fn() })
	if e.err != nil {
		s.mu.Lock()
		if s.entries[key] == e {
			delete(s.entries, key)
		}
		s.mu.Unlock()
	}
	return e.v, e.err
}

// NewAnalyzer returns an Analyzer reading src.
func NewAnalyzer(src noema.GraphSource) *Analyzer {
	return &Analyzer{src: src}
}

// snapshot returns the cache of the current graph version, a new one
// when the version changed since the last call.
func (a *Analyzer) snapshot(ctx context.Context) (*snapshot, error) {
	v, err := a.src.GraphVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("read graph version: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur == nil || a.cur.version != v {
		a.cur = &snapshot{version: v, entries: map[string]*entry{}}
	}
	return a.cur, nil
}

// graph returns the graph of the kind, built once per version: the
// concept graph from the index's concept links when it reads them
// ([noema.ConceptLinker]), else from the export. The version is read before the
// graph, so a change racing the read can only make the cache newer than
// its version, and the next call rebuilds.
func (a *Analyzer) graph(ctx context.Context, s *snapshot, kind string) (*Weighted, error) {
	v, err := s.do("graph/"+kind, func() (any, error) { return a.build(ctx, kind) })
	if err != nil {
		return nil, err
	}
	return v.(*Weighted), nil
}

// graphFor is graph without keeping the graph in s's cache when it is not
// there yet: the caller uses it once (rank).
func (a *Analyzer) graphFor(ctx context.Context, s *snapshot, kind string) (*Weighted, error) {
	s.mu.Lock()
	e := s.entries["graph/"+kind]
	s.mu.Unlock()
	if e != nil {
		return a.graph(ctx, s, kind)
	}
	return a.build(ctx, kind)
}

// build reads the graph of the kind from the index.
func (a *Analyzer) build(ctx context.Context, kind string) (*Weighted, error) {
	if cl, ok := a.src.(noema.ConceptLinker); ok && kind == AnalyzeConcepts {
		l, err := cl.ConceptLinks(ctx)
		if err != nil {
			return nil, fmt.Errorf("read concept links: %w", err)
		}
		return ConceptGraphOf(l), nil
	}
	x, err := Export(ctx, a.src)
	if err != nil {
		return nil, err
	}
	if kind == AnalyzeFull {
		return FullGraph(x), nil
	}
	return ConceptGraph(x), nil
}

// Graph returns the analysed graph of a kind (AnalyzeConcepts or
// AnalyzeFull) as the index holds it now, from the cache when the graph
// has not changed.
func (a *Analyzer) Graph(ctx context.Context, kind string) (*Weighted, error) {
	_, g, err := a.current(ctx, kind)
	return g, err
}

// current returns the snapshot of the index's version now and its graph of
// the kind.
func (a *Analyzer) current(ctx context.Context, kind string) (*snapshot, *Weighted, error) {
	s, err := a.snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	g, err := a.graph(ctx, s, kind)
	if err != nil {
		return nil, nil, err
	}
	return s, g, nil
}

func memo[T any](s *snapshot, key string, fn func() T) T {
	v, _ := s.do(key, func() (any, error) { return fn(), nil })
	return v.(T)
}

type rankedPartition struct {
	comm       []int32 // node -> community id (rank: 0 largest)
	members    [][]int32
	modularity float64
}

// pagerank returns the (memoized) PageRank of g, personalised on seeds
// (node numbers, sorted) when there are any.
func (s *snapshot) pagerank(g *Weighted, seeds []int32) []float64 {
	key := fmt.Sprintf("pr/%s/%v", g.Kind, seeds)
	return memo(s, key, func() []float64 {
		var p []float64
		if len(seeds) > 0 {
			p = make([]float64, g.N())
			for _, s := range seeds {
				p[s] = 1
			}
		}
		x, _ := PageRank(g, PageRankAlpha, p)
		return x
	})
}

// partition returns the (memoized) Louvain partition with communities
// numbered by rank (largest first; ties by highest PageRank member, then
// lowest node number) and members ordered by PageRank.
//
// When ctx is background work (internal/gate), the computation gives way
// to requests as it goes; whoever computes it first, every caller gets the
// same partition.
func (s *snapshot) partition(ctx context.Context, g *Weighted, resolution float64, seed uint64) *rankedPartition {
	key := fmt.Sprintf("louvain/%s/%v/%d", g.Kind, resolution, seed)
	return memo(s, key, func() *rankedPartition {
		comm, mod := louvain(g, resolution, seed, func() { gate.Yield(ctx) })
		pr := s.pagerank(g, nil)
		return rankPartition(comm, pr, mod)
	})
}

func rankPartition(comm []int32, pr []float64, mod float64) *rankedPartition {
	members := groupMembers(comm)
	byRank := func(x, y int32) int {
		if pr[x] != pr[y] {
			if pr[x] > pr[y] {
				return -1
			}
			return 1
		}
		return cmp.Compare(x, y)
	}
	for _, ms := range members {
		slices.SortFunc(ms, byRank)
	}
	slices.SortFunc(members, func(x, y []int32) int {
		if len(x) != len(y) {
			return len(y) - len(x)
		}
		return byRank(x[0], y[0])
	})
	ranked := make([]int32, len(comm))
	for r, ms := range members {
		for _, i := range ms {
			ranked[i] = int32(r)
		}
	}
	return &rankedPartition{comm: ranked, members: members, modularity: mod}
}

// betweenness returns the (memoized) betweenness of g and whether it is
// exact.
func (s *snapshot) betweenness(g *Weighted, seed uint64) ([]float64, bool) {
	type bcResult struct {
		bc    []float64
		exact bool
	}
	key := fmt.Sprintf("bc/%s/%d", g.Kind, seed)
	r := memo(s, key, func() bcResult {
		bc, exact := Betweenness(g, BetweennessSamplesFor(g), seed)
		return bcResult{bc, exact}
	})
	return r.bc, r.exact
}

// Analyze runs one analyze_graph operation on the current graph.
func (a *Analyzer) Analyze(ctx context.Context, in AnalyzeOptions) (*AnalyzeResult, error) {
	opts, err := checkAnalyze(in)
	if err != nil {
		return nil, err
	}
	s, g, err := a.current(ctx, opts.kind)
	if err != nil {
		return nil, err
	}
	r := &analysis{in: in, analyzeParams: opts, s: s, g: g, empty: g.N() == 0,
		res: &AnalyzeResult{Op: in.Op, Graph: opts.kind, GraphNodes: g.N(), GraphEdges: g.Edges(), Warnings: []string{}}}
	if r.empty {
		what := "no concepts yet: link one from a note with [[Name]]"
		if opts.kind == AnalyzeFull {
			what = "no notes or concepts yet"
		}
		r.res.Warnings = append(r.res.Warnings, "the "+opts.kind+" graph is empty: "+what)
	}
	switch in.Op {
	case OpPageRank:
		err = r.pageRank(ctx)
	case OpCentrality:
		r.centrality()
	case OpCommunities:
		err = r.communities(ctx)
	case OpPaths:
		err = r.paths(ctx)
	case OpPredictLinks:
		err = r.predictLinks(ctx)
	}
	if err != nil {
		return nil, err
	}
	return r.res, nil
}

// analyzeParams are an analyze_graph call's parameters with their
// defaults applied and clamped.
type analyzeParams struct {
	kind                  string
	limit, members, depth int
	resolution            float64
	seed                  uint64
}

// checkAnalyze validates in and applies the defaults and limits.
func checkAnalyze(in AnalyzeOptions) (analyzeParams, error) {
	p := analyzeParams{kind: in.Graph, resolution: in.Resolution, seed: 1}
	if p.kind == "" {
		p.kind = AnalyzeConcepts
	}
	if p.kind != AnalyzeConcepts && p.kind != AnalyzeFull {
		return p, noema.Errorf(noema.EINVALID, "graph must be %s or %s", AnalyzeConcepts, AnalyzeFull).WithParam("graph")
	}
	var err error
	if p.limit, err = clampParam("limit", in.Limit, DefaultAnalyzeLimit, MaxAnalyzeLimit); err != nil {
		return p, err
	}
	if p.members, err = clampParam("members", in.Members, DefaultMembers, MaxMembers); err != nil {
		return p, err
	}
	if p.depth, err = clampParam("max_depth", in.MaxDepth, DefaultPathDepth, MaxPathDepth); err != nil {
		return p, err
	}
	if p.resolution == 0 {
		p.resolution = 1
	}
	if !(p.resolution > 0) || p.resolution > 1e6 {
		return p, noema.Errorf(noema.EINVALID, "resolution must be positive").WithParam("resolution")
	}
	if in.Seed != nil {
		p.seed = *in.Seed
	}
	switch in.Op {
	case OpPageRank, OpCommunities, OpPaths, OpPredictLinks, OpCentrality:
	case "":
		return p, noema.Errorf(noema.EINVALID, "op is required: pagerank, communities, paths, predict_links or centrality").WithParam("op")
	default:
		return p, noema.Errorf(noema.EINVALID, "unknown op %q: want pagerank, communities, paths, predict_links or centrality", in.Op).WithParam("op")
	}
	if in.Op == OpPaths && (strings.TrimSpace(in.From) == "" || strings.TrimSpace(in.To) == "") {
		return p, noema.Errorf(noema.EINVALID, "paths needs from and to").WithParam("from")
	}
	return p, nil
}

// analysis is one analyze_graph call on one snapshot's graph: each
// operation fills in res.
type analysis struct {
	in AnalyzeOptions
	analyzeParams
	s     *snapshot
	g     *Weighted
	empty bool
	res   *AnalyzeResult
}

// resolve returns the node a name given as param names: a node id, or
// else what in.Resolve turns it into.
func (r *analysis) resolve(ctx context.Context, param, name string) (int32, error) {
	name = strings.TrimSpace(name)
	if i, ok := r.g.Index(name); ok {
		return i, nil
	}
	if r.in.Resolve == nil {
		return 0, noema.Errorf(noema.ENOTFOUND, "no node %q in the %s graph", name, r.kind).WithParam(param)
	}
	id, err := r.in.Resolve(ctx, name)
	if err != nil {
		return 0, err
	}
	if i, ok := r.g.Index(id); ok {
		return i, nil
	}
	return 0, noema.Errorf(noema.ENOTFOUND, "no node %q in the %s graph", name, r.kind).WithParam(param)
}

// resolveOptional resolves name as param, -1 when it is blank.
func (r *analysis) resolveOptional(ctx context.Context, param, name string) (int32, error) {
	if strings.TrimSpace(name) == "" {
		return -1, nil
	}
	return r.resolve(ctx, param, name)
}

// pageRank ranks the nodes by PageRank, personalised by the seeds.
func (r *analysis) pageRank(ctx context.Context) error {
	var seeds []int32
	for _, s := range r.in.Seeds {
		if strings.TrimSpace(s) == "" {
			continue
		}
		i, err := r.resolve(ctx, "seeds", s)
		if err != nil {
			return err
		}
		seeds = append(seeds, i)
	}
	slices.Sort(seeds)
	seeds = slices.Compact(seeds)
	pr := r.s.pagerank(r.g, seeds)
	r.res.Nodes = topScored(r.g, pr, r.limit)
	r.res.Total = ptr(r.g.N())
	r.res.Exact = ptr(true)
	return nil
}

// centrality ranks the nodes by betweenness, estimated on large graphs.
func (r *analysis) centrality() {
	g := r.g
	bc, exact := r.s.betweenness(g, r.seed)
	r.res.Nodes = topScored(g, bc, r.limit)
	r.res.Total = ptr(g.N())
	r.res.Exact = ptr(exact)
	if !exact {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("betweenness estimated from %d of %d source nodes drawn with seed %d (exact up to %d nodes); scores are scaled estimates",
			BetweennessSamplesFor(g), g.N(), r.seed, MaxExactBetweenness))
	}
}

// communities lists the Louvain communities, and the community of
// in.Concept when given.
func (r *analysis) communities(ctx context.Context) error {
	g, res, limit, members := r.g, r.res, r.limit, r.members
	focus, err := r.resolveOptional(ctx, "concept", r.in.Concept)
	if err != nil {
		return err
	}
	p := r.s.partition(ctx, g, r.resolution, r.seed)
	pr := r.s.pagerank(g, nil)
	res.Modularity = ptr(p.modularity)
	res.Total = ptr(len(p.members))
	res.HasMore = ptr(len(p.members) > limit)
	res.Communities = make([]Community, 0, min(limit, len(p.members)))
	for id, ms := range p.members[:min(limit, len(p.members))] {
		c := Community{ID: id, Size: len(ms), Members: make([]ScoredNode, 0, min(members, len(ms)))}
		for _, i := range ms[:min(members, len(ms))] {
			c.Members = append(c.Members, scored(g, i, pr[i]))
		}
		res.Communities = append(res.Communities, c)
	}
	if focus >= 0 {
		res.ConceptCommunity = conceptCommunity(g, p, pr, focus, members)
	}
	if !r.empty && g.Edges() == 0 {
		res.Warnings = append(res.Warnings, "the graph has no edges: every node is its own community")
	}
	return nil
}

// paths lists the simple paths from in.From to in.To, shortest and
// heaviest first.
func (r *analysis) paths(ctx context.Context) error {
	g, res := r.g, r.res
	from, err := r.resolve(ctx, "from", r.in.From)
	if err != nil {
		return err
	}
	to, err := r.resolve(ctx, "to", r.in.To)
	if err != nil {
		return err
	}
	if from == to {
		res.Warnings = append(res.Warnings, "from and to are the same node: a simple path needs two")
	}
	ps, more, truncated := SimplePaths(g, from, to, r.depth, r.limit)
	res.Paths = make([]PathResult, len(ps))
	for k, p := range ps {
		pr := PathResult{Nodes: make([]NodeRef, len(p.Nodes)), Length: len(p.Nodes) - 1, Weight: p.Weight}
		for x, i := range p.Nodes {
			pr.Nodes[x] = ref(g, i)
		}
		res.Paths[k] = pr
	}
	res.HasMore = ptr(more)
	if truncated {
		res.Warnings = append(res.Warnings, fmt.Sprintf("more than %d paths of one length: only that many were ranked", MaxPathsEnumerated))
	}
	if len(ps) == 0 && from != to {
		res.Warnings = append(res.Warnings, fmt.Sprintf("no path of at most %d edges between them", r.depth))
	}
	return nil
}

// predictLinks ranks unlinked pairs by Adamic-Adar, graph-wide or from
// in.Concept, with their common neighbours.
func (r *analysis) predictLinks(ctx context.Context) error {
	g, res, limit := r.g, r.res, r.limit
	from, err := r.resolveOptional(ctx, "concept", r.in.Concept)
	if err != nil {
		return err
	}
	var links []LinkScore
	if from < 0 {
		// The graph-wide ranking costs the most: keep the longest list
		// once and cut it for smaller limits.
		all := memo(r.s, "aa/"+g.Kind, func() []LinkScore { return AdamicAdar(g, -1, MaxAnalyzeLimit) })
		links = all[:min(limit, len(all))]
	} else {
		links = AdamicAdar(g, from, limit)
	}
	res.Links = make([]PredictedLink, len(links))
	for k, l := range links {
		common := CommonNeighbors(g, l.A, l.B)
		pl := PredictedLink{A: ref(g, l.A), B: ref(g, l.B), Score: l.Score, CommonTotal: len(common), Common: make([]NodeRef, 0, min(MaxCommon, len(common)))}
		for _, c := range common[:min(MaxCommon, len(common))] {
			pl.Common = append(pl.Common, ref(g, c))
		}
		res.Links[k] = pl
	}
	if len(links) == 0 && !r.empty {
		res.Warnings = append(res.Warnings, "no pair of unlinked nodes shares a neighbour")
	}
	return nil
}

// ConceptCommunity returns the Louvain community (resolution 1, seed 1, on
// the concept graph; the partition communities returns by default) of the
// concept with the id, and its top siblings by PageRank, at most siblings
// of them (default 10 when 0, max 500). It is what build_context shows
// about a concept's cluster; it shares the cache of analyze_graph, so
// after the first call on a version it costs a lookup. A concept not in
// the graph is not_found.
func (a *Analyzer) ConceptCommunity(ctx context.Context, conceptID string, siblings int) (*ConceptCommunity, error) {
	n, err := clampParam("siblings", siblings, DefaultMembers, MaxMembers)
	if err != nil {
		return nil, err
	}
	s, err := a.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	r, err := a.rank(ctx, s)
	if err != nil {
		return nil, err
	}
	return r.community(conceptID, n, false)
}

// FirstRankWait is how long RecentConceptCommunity waits for a process's
// first communities before it answers without them (issue 21: at a
// million concepts they take minutes; a vault of thousands, milliseconds).
const FirstRankWait = 2 * time.Second

// RecentConceptCommunity is ConceptCommunity for answers that must stay
// fast right after a write (build_context): when the current graph's
// communities are not computed yet but an earlier version's are, it
// answers from those, with Stale set, and computes the current ones in
// the background, one computation at a time (a burst of writes costs one
// or two, not one each). Without earlier ones (the process's first call)
// it starts computing them and waits up to FirstRankWait: past that it
// answers unavailable, saying they are being computed, and a later call
// gets them. A concept the earlier graph does not have yet is not_found,
// as one outside the graph.
func (a *Analyzer) RecentConceptCommunity(ctx context.Context, conceptID string, siblings int) (*ConceptCommunity, error) {
	n, err := clampParam("siblings", siblings, DefaultMembers, MaxMembers)
	if err != nil {
		return nil, err
	}
	s, err := a.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	r := a.ranked
	if r != nil && r.version == s.version {
		a.mu.Unlock()
		return r.community(conceptID, n, false)
	}
	done := a.rankInBackground(ctx, s)
	// The first computation is waited for up to FirstRankWait from its
	// start, by whichever calls come meanwhile; later ones do not wait.
	left := time.Until(a.rankStarted.Add(FirstRankWait))
	a.mu.Unlock()
	if r != nil {
		return r.community(conceptID, n, true)
	}
	select {
	case <-done:
		left = max(left, time.Nanosecond)
	default:
	}
	if left <= 0 {
		return nil, errRanking()
	}
	wait := time.NewTimer(left)
	defer wait.Stop()
	select {
	case <-done:
	case <-wait.C:
		return nil, errRanking()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	a.mu.Lock()
	r, err = a.ranked, a.rankErr
	a.mu.Unlock()
	if r == nil {
		return nil, err
	}
	return r.community(conceptID, n, r.version != s.version)
}

// errRanking is RecentConceptCommunity's answer while the process's first
// communities are being computed.
func errRanking() error {
	return noema.Errorf(noema.EUNAVAILABLE, "the concept graph's communities are still being computed (the first time since the server started); ask again shortly")
}

// rankInBackground starts computing s's communities and PageRank unless a
// computation is running, and returns a channel closed when the running
// one ends. The caller holds a.mu.
//
// Once earlier communities exist (answered meanwhile, marked stale), a
// new computation is paced: it starts no sooner after the last one ended
// than that one took (rankGap), and then ranks the graph as it is at that
// moment, not as it was when asked. A burst of writes with build_context
// between them (each write a new version) so costs one computation per
// gap, not one per write competing with the writes for the cores.
func (a *Analyzer) rankInBackground(ctx context.Context, s *snapshot) <-chan struct{} {
	if a.ranking {
		return a.rankDone
	}
	a.ranking = true
	a.rankStarted = time.Now()
	done := make(chan struct{})
	a.rankDone = done
	var wait time.Duration
	if a.ranked != nil && a.rankTook > 0 {
		gap := a.rankTook
		if a.rankGap != nil {
			gap = a.rankGap(a.rankTook)
		}
		wait = gap - time.Since(a.rankEnded)
	}
	// The request's end must not cancel what the next ones use.
	bg := gate.Detached(ctx)
	go func() {
		defer close(done)
		if wait > 0 {
			time.Sleep(wait)
			if cur, err := a.snapshot(bg); err == nil {
				s = cur // the graph as it is now
			}
		}
		start := time.Now()
		_, err := a.rank(bg, s) // an error is retried by the next call
		a.mu.Lock()
		a.ranking, a.rankErr = false, err
		a.rankTook, a.rankEnded = time.Since(start), time.Now()
		a.mu.Unlock()
	}()
	return done
}

// rank computes (once per snapshot) the concept graph's communities and
// PageRank of s, and keeps them as the newest ranked version unless a
// newer one is kept already. What it keeps of the graph is the nodes
// (names and numbers), not the edges: the ranked version is held beside
// the next graph while that one is built and ranked (issue 21: the edges
// are 1.2 GB at a million concepts). The graph itself is kept in s's
// cache only when analyze_graph built it there.
func (a *Analyzer) rank(ctx context.Context, s *snapshot) (*rankedGraph, error) {
	g, err := a.graphFor(ctx, s, AnalyzeConcepts)
	if err != nil {
		return nil, err
	}
	r := &rankedGraph{version: s.version, g: g.nodesOnly(), p: s.partition(ctx, g, 1, 1), pr: s.pagerank(g, nil)}
	a.mu.Lock()
	if a.ranked == nil || a.ranked.version != a.cur.version {
		a.ranked = r
	}
	a.mu.Unlock()
	return r, nil
}

// community is the concept's community in r.
func (r *rankedGraph) community(conceptID string, n int, stale bool) (*ConceptCommunity, error) {
	i, ok := r.g.Index(conceptID)
	if !ok {
		return nil, noema.Errorf(noema.ENOTFOUND, "no concept %q in the concept graph", conceptID)
	}
	cc := conceptCommunity(r.g, r.p, r.pr, i, n)
	cc.Stale = stale
	return cc, nil
}

func conceptCommunity(g *Weighted, p *rankedPartition, pr []float64, i int32, n int) *ConceptCommunity {
	c := p.comm[i]
	ms := p.members[c]
	out := &ConceptCommunity{Concept: ref(g, i), Community: int(c), Size: len(ms), Siblings: []ScoredNode{}}
	for _, j := range ms {
		if len(out.Siblings) == n {
			break
		}
		if j != i {
			out.Siblings = append(out.Siblings, scored(g, j, pr[j]))
		}
	}
	return out
}

func clampParam(name string, v, def, maxV int) (int, error) {
	if v < 0 {
		return 0, noema.Errorf(noema.EINVALID, "%s must be between 1 and %d", name, maxV).WithParam(name)
	}
	if v == 0 {
		return def, nil
	}
	return min(v, maxV), nil
}

func ptr[T any](v T) *T { return &v }

func ref(g *Weighted, i int32) NodeRef { return NodeRef{ID: g.IDs[i], Label: g.Labels[i]} }

func scored(g *Weighted, i int32, s float64) ScoredNode {
	return ScoredNode{ID: g.IDs[i], Label: g.Labels[i], Kind: g.Kinds[i], Score: s}
}

// topScored returns the limit highest scores, ties by node number.
func topScored(g *Weighted, score []float64, limit int) []ScoredNode {
	idx := make([]int32, len(score))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(x, y int32) int {
		if score[x] != score[y] {
			if score[x] > score[y] {
				return -1
			}
			return 1
		}
		return cmp.Compare(x, y)
	})
	out := make([]ScoredNode, 0, min(limit, len(idx)))
	for _, i := range idx[:min(limit, len(idx))] {
		out = append(out, scored(g, i, score[i]))
	}
	return out
}

package concepts

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/fuzzy"
	"github.com/noema-mem/noema/vault"
)

// Limits of concept listings.
const (
	DefaultFindLimit = 20
	MaxFindLimit     = 500
	DefaultListLimit = 50
	MaxListLimit     = 500
	// MaxQueryRunes bounds a find_concepts query: partial scorers cost
	// query length × label length, and no concept name is longer.
	MaxQueryRunes = 1000
)

// matcher holds every concept name, processed once for fuzzy matching.
type matcher struct {
	version string
	ids     []string // group -> concept id
	labels  []string
	aliases [][]string
	texts   []string // every name; groups[i] is the concept of texts[i]
	groups  []int

	// rev and deleted are the names revision and deletion count the
	// names were read at (sqlite's concept_rev).
	rev, deleted int64
	// findLoaded is set when the find index came with the names from
	// the names snapshot.
	findLoaded bool

	mu     sync.Mutex
	byProc map[string]*fuzzy.Choices
	pos    map[string]int // concept id -> group, built on first use

	dups dupState  // analyze_duplicates' index, built on first use
	find findState // find_concepts' second channel, built on first use
}

// FindInput asks which concepts are spelled like a query.
type FindInput struct {
	Query     string  `json:"query" jsonschema:"the name you are about to use" cli:"arg=QUERY"`
	Limit     int     `json:"limit,omitempty" jsonschema:"how many candidates (default 20, max 500)" default:"20" minimum:"0" maximum:"500"`
	MinScore  float64 `json:"min_score,omitempty" jsonschema:"drop candidates scoring below this, 0-100 (default 0: recall first)" default:"0" minimum:"0" maximum:"100"`
	Processor string  `json:"processor,omitempty" jsonschema:"default (lowercase, non-alphanumerics to spaces, trim) or none" default:"\"default\"" enum:"default,none"`
}

// Candidate is one concept that may be what the query names.
type Candidate struct {
	ID      string   `json:"id"`
	Label   string   `json:"label"`
	Aliases []string `json:"aliases"`
	// Score is WRatio (0-100), rounded to 2 decimals.
	Score    float64 `json:"score"`
	Matched  string  `json:"matched"`
	IsAlias  bool    `json:"matched_alias"`
	Mentions int     `json:"mentions"`
	// Channels are what found the candidate: "wratio" (the best WRatio
	// scores), "folded" (the same words after case, accent, plural, word
	// order and function-word folding, symbols such as c++ and c# kept),
	// "head_word" (the same name but for generic head words: "Git
	// version control system" and "Git"), "acronym" (a meaning of the
	// query written as a common acronym, or that acronym: "ML" and
	// "machine learning", from the shipped acronym lexicon). The score is
	// WRatio's either way.
	Channels []string `json:"channels"`
}

// FindResult lists candidates, most similar first.
type FindResult struct {
	Query      string      `json:"query"`
	Scorer     string      `json:"scorer"`
	Processor  string      `json:"processor"`
	Candidates []Candidate `json:"candidates"`
	// Total is the number of concepts scored.
	Total    int      `json:"total"`
	Warnings []string `json:"warnings"`
}

// Find scores query against every concept's label and aliases with
// rapidfuzz's WRatio and returns the best concepts first: a concept's score
// is the best over its names, and ties break by label, then id. It is a
// candidate surfacer: nothing is cut unless min_score asks for it, and the
// caller decides what is a duplicate.
func (s *Service) Find(ctx context.Context, in FindInput) (*FindResult, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, noema.Errorf(noema.EINVALID, "query is required").WithParam("query")
	}
	if n := len([]rune(in.Query)); n > MaxQueryRunes {
		return nil, noema.Errorf(noema.EINVALID, "query is %d characters; the limit is %d", n, MaxQueryRunes).WithParam("query")
	}
	if in.MinScore < 0 || in.MinScore > 100 {
		return nil, noema.Errorf(noema.EINVALID, "min_score must be between 0 and 100").WithParam("min_score")
	}
	procName := in.Processor
	if procName == "" {
		procName = "default"
	}
	if procName != "default" && procName != "none" {
		return nil, noema.Errorf(noema.EINVALID, "processor must be default or none").WithParam("processor")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultFindLimit
	}
	limit = min(limit, MaxFindLimit)
	v, err := s.names(ctx)
	if err != nil {
		return nil, err
	}
	parts := []*matcher{v.base}
	if v.delta != nil {
		parts = append(parts, v.delta)
	}
	res := &FindResult{Query: in.Query, Scorer: "WRatio", Processor: procName, Candidates: []Candidate{}, Total: len(v.base.ids) - len(v.hidden), Warnings: []string{}}
	if v.delta != nil {
		res.Total += len(v.delta.ids)
	}
	proc, _ := fuzzy.ParseProcessor(procName)
	pq := in.Query
	if proc != nil {
		pq = proc(in.Query)
	}
	if pq == "" {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the query %q is empty after the default processor (it keeps only letters and digits): every concept scores 0; try processor \"none\"", in.Query))
	}
	type found struct {
		m        *matcher
		g, index int
		score    float64
		channels []string
	}
	// Matcher order: label, then id (the order names are loaded in).
	byScore := func(a, b found) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.m.labels[a.g], b.m.labels[b.g]); c != 0 {
			return c
		}
		return cmp.Compare(a.m.ids[a.g], b.m.ids[b.g])
	}
	// The second channel's index and the fuzzy choices are built on first
	// use, from the same names: build both at once. The answer waits for
	// the second channel's index at most FindIndexWait once the choices
	// are ready (issue 21: at a million concepts it takes seconds more);
	// without it, it answers from WRatio alone and says so.
	if secondChannel {
		for _, m := range parts {
			go m.findIndex()
		}
	}
	var all []found
	for i, m := range parts {
		choices, err := m.choices(procName)
		if err != nil {
			return nil, err
		}
		hide := 0
		if i == 0 {
			hide = len(v.hidden) // the base's best may include superseded names
		}
		matches, err := choices.ExtractGroups(ctx, in.Query, fuzzy.ScorerWRatio, limit+hide, in.MinScore)
		if err != nil {
			return nil, fmt.Errorf("fuzzy match: %w", err)
		}
		for _, g := range matches {
			if i == 0 && v.hidden[g.Group] {
				continue
			}
			all = append(all, found{m: m, g: g.Group, index: g.Index, score: g.Score, channels: []string{"wratio"}})
		}
	}
	slices.SortStableFunc(all, byScore)
	all = all[:min(len(all), limit)]
	at := map[string]int{}
	for i, f := range all {
		at[f.m.ids[f.g]] = i
	}
	var indexes []*findIndex
	if secondChannel {
		for _, m := range parts {
			x := m.findIndexWithin(ctx, FindIndexWait)
			if x == nil {
				indexes = nil
				res.Warnings = append(res.Warnings, "the index of folded names and head words is still being built (the first find_concepts since the server started): these candidates are by WRatio alone")
				break
			}
			indexes = append(indexes, x)
		}
	}
	if indexes != nil {
		var extra []found
		for i, m := range parts {
			for _, h := range indexes[i].channelHits(m, in.Query) {
				if i == 0 && v.hidden[h.g] {
					continue
				}
				id := m.ids[h.g]
				if i, ok := at[id]; ok {
					if i >= 0 {
						all[i].channels = append(all[i].channels, h.channel)
					}
					continue
				}
				// Its exact WRatio, over its names as find_concepts scores them.
				f := found{m: m, g: h.g, index: -1, channels: []string{h.channel}}
				// Its names are adjacent (groups never decrease).
				for i := sort.SearchInts(m.groups, h.g); i < len(m.texts) && m.groups[i] == h.g; i++ {
					pt := m.texts[i]
					if proc != nil {
						pt = proc(pt)
					}
					if sc := fuzzy.WRatio(pq, pt, 0); f.index < 0 || sc > f.score {
						f.index, f.score = i, sc
					}
				}
				if f.index >= 0 && f.score >= in.MinScore {
					at[id] = -1
					extra = append(extra, f)
				}
			}
		}
		// At most half the candidates come from the second channel, the
		// best scoring; they replace the lowest WRatio-only ones.
		slices.SortStableFunc(extra, func(a, b found) int { return cmp.Compare(b.score, a.score) })
		extra = extra[:min(len(extra), (limit+1)/2)]
		for len(all)+len(extra) > limit && len(all) > 0 && slices.Equal(all[len(all)-1].channels, []string{"wratio"}) {
			all = all[:len(all)-1]
		}
		all = append(all, extra...)
		slices.SortStableFunc(all, byScore)
		all = all[:min(len(all), limit)]
	}
	ids := make([]string, len(all))
	for i, f := range all {
		m := f.m
		ids[i] = m.ids[f.g]
		res.Candidates = append(res.Candidates, Candidate{
			ID: m.ids[f.g], Label: m.labels[f.g], Aliases: m.aliases[f.g],
			Score: round2(f.score), Matched: m.texts[f.index], IsAlias: m.texts[f.index] != m.labels[f.g], Channels: f.channels,
		})
	}
	counts, err := s.DB.MentionCounts(ctx, ids)
	if err != nil {
		return nil, err
	}
	for i := range res.Candidates {
		res.Candidates[i].Mentions = counts[res.Candidates[i].ID]
	}
	return res, nil
}

// FindIndexWait is how long find_concepts waits, once its fuzzy choices
// are ready, for the index of its second channel (folded names, head
// words) when that is being built: a vault of thousands builds it in
// milliseconds, a million concepts in seconds.
const FindIndexWait = time.Second

// Warm builds what find_concepts needs — every concept's names and their
// fuzzy choices under the default processor, then the second channel's
// index — so that a server's first answer does not build them (App.Start
// runs it first of its background work). The names come from the names
// snapshot (NamesFile) when it is of this index, with what changed since
// read from the index; else from the index, and the snapshot is written
// once the rest is built. choicesReady, when not nil, is called once the
// choices are built: find_concepts can answer from then on (waiting at
// most FindIndexWait for the rest).
func (s *Service) Warm(ctx context.Context, choicesReady func()) error {
	v, err := s.names(ctx)
	if err == nil {
		for _, m := range []*matcher{v.base, v.delta} {
			if m != nil {
				if _, err = m.choices("default"); err != nil {
					break
				}
			}
		}
	}
	if choicesReady != nil {
		choicesReady()
	}
	if err != nil {
		return err
	}
	if secondChannel {
		for _, m := range []*matcher{v.base, v.delta} {
			if m != nil {
				m.findIndex()
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Names read in full from the index, or a find index built anew: keep
	// them for the next start.
	if v.base.version != snapshotVersion || secondChannel && !v.base.findLoaded {
		id, err := s.indexID(ctx)
		if err != nil || id == "" {
			return err
		}
		return s.saveSnapshot(v.base, id)
	}
	return nil
}

// Count returns how many concepts the registry holds, from find_concepts'
// names (cached: free once Warm has run).
func (s *Service) Count(ctx context.Context) (int, error) {
	v, err := s.names(ctx)
	if err != nil {
		return 0, err
	}
	n := len(v.base.ids) - len(v.hidden)
	if v.delta != nil {
		n += len(v.delta.ids)
	}
	return n, nil
}

// secondChannel turns on find_concepts' second candidate channel (tests
// measure recall without it).
var secondChannel = true

// channelHit is a concept the second channel found for a query.
type channelHit struct {
	g       int
	channel string
}

// matcher returns the cached names, rebuilt when the registry changed.
func (s *Service) matcher(ctx context.Context) (*matcher, error) {
	v, err := s.names(ctx)
	if err != nil {
		return nil, err
	}
	if v.delta == nil {
		return v.base, nil
	}
	// Whole-registry analyses want one index of every name: fold the
	// names added since into a full reload.
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache != v {
		v = s.cache // another call reloaded meanwhile
		if v.delta == nil && v.version == v.base.version {
			return v.base, nil
		}
	}
	full, err := s.loadNames(ctx, v.version)
	if err != nil {
		return nil, err
	}
	s.cache = &nameView{version: v.version, base: full}
	return full, nil
}

// nameView is every concept's names at one registry version: the names
// loaded in full at some earlier version (base), and those of the
// concepts added or renamed since (delta, nil when none); a base concept
// also in delta is hidden (delta has its current names). A write that
// adds a concept thus costs a look at the concepts it changed, not a
// reload of all names and a rebuild of their indexes.
type nameView struct {
	version string
	base    *matcher
	delta   *matcher
	hidden  map[int]bool // base groups superseded by delta
}

// maxDelta is how many changed concepts a view keeps beside its base
// before the names are reloaded in full: at least maxDeltaMin, else a
// tenth of the base, so that a reload is paid once per many writes.
const maxDeltaMin = 2000

// names returns the view of the concepts' names at the current registry
// version: the cached one when nothing changed; else the cached base (the
// first time, the names snapshot's, when it is of this index) with the
// concepts added or renamed since; else (no base, a concept was deleted,
// or the changes outgrew maxDelta) a full reload.
func (s *Service) names(ctx context.Context) (*nameView, error) {
	version, err := s.DB.ConceptsVersion(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache != nil && s.cache.version == version {
		return s.cache, nil
	}
	if s.cache == nil && s.NamesFile != "" {
		// The first names of the process: from the snapshot when it is
		// of this index, with what changed since (below).
		if m := s.loadSnapshot(ctx); m != nil {
			s.cache = &nameView{version: snapshotVersion, base: m}
		}
	}
	if s.cache != nil {
		base := s.cache.base
		delta := &matcher{version: version, byProc: map[string]*fuzzy.Choices{}}
		at, deleted, err := s.DB.EachConceptByLabelSince(ctx, base.rev, func(id, label string, aliases []string) {
			delta.ids, delta.labels, delta.aliases = append(delta.ids, id), append(delta.labels, label), append(delta.aliases, aliases)
		})
		if err != nil {
			return nil, err
		}
		// An index behind the base (its revision lower) is not the one
		// the base was read from: read it in full.
		if deleted == base.deleted && at >= base.rev && len(delta.ids) <= max(maxDeltaMin, len(base.ids)/10) {
			delta.rev, delta.deleted = at, deleted
			delta.index()
			v := &nameView{version: version, base: base}
			if len(delta.ids) > 0 {
				v.delta, v.hidden = delta, map[int]bool{}
				for _, id := range delta.ids {
					if g, ok := base.group(id); ok {
						v.hidden[g] = true
					}
				}
			}
			s.cache = v
			return v, nil
		}
	}
	m, err := s.loadNames(ctx, version)
	if err != nil {
		return nil, err
	}
	s.cache = &nameView{version: version, base: m}
	return s.cache, nil
}

// loadNames reads every concept's names.
func (s *Service) loadNames(ctx context.Context, version string) (*matcher, error) {
	m := &matcher{version: version, byProc: map[string]*fuzzy.Choices{}}
	at, deleted, err := s.DB.EachConceptByLabelSince(ctx, 0, func(id, label string, aliases []string) {
		m.ids, m.labels, m.aliases = append(m.ids, id), append(m.labels, label), append(m.aliases, aliases)
	})
	if err != nil {
		return nil, err
	}
	m.rev, m.deleted = at, deleted
	m.index()
	return m, nil
}

// index lists every name of the matcher's concepts (texts, groups).
func (m *matcher) index() {
	n := len(m.ids)
	for _, al := range m.aliases {
		n += len(al)
	}
	m.texts, m.groups = make([]string, 0, n), make([]int, 0, n)
	for g := range m.ids {
		m.texts = append(m.texts, m.labels[g])
		m.groups = append(m.groups, g)
		for _, a := range m.aliases[g] {
			m.texts = append(m.texts, a)
			m.groups = append(m.groups, g)
		}
	}
}

// group returns the group of the concept id (a map built on first use).
func (m *matcher) group(id string) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pos == nil {
		m.pos = make(map[string]int, len(m.ids))
		for g, id := range m.ids {
			m.pos[id] = g
		}
	}
	g, ok := m.pos[id]
	return g, ok
}

// choices builds (once) the processed names for a processor.
func (m *matcher) choices(proc string) (*fuzzy.Choices, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.byProc[proc]; ok {
		return c, nil
	}
	p, err := fuzzy.ParseProcessor(proc)
	if err != nil {
		return nil, noema.Errorf(noema.EINVALID, "processor: %v", err)
	}
	c, err := fuzzy.NewGroupedChoices(m.texts, m.groups, p)
	if err != nil {
		return nil, fmt.Errorf("prepare concept names: %w", err)
	}
	m.byProc[proc] = c
	return c, nil
}

// ListInput browses the vocabulary.
type ListInput struct {
	Text   string `json:"text,omitempty" jsonschema:"only concepts with a label or alias matching this (case-, width- and -/_-insensitive)"`
	Match  string `json:"match,omitempty" jsonschema:"contains (default), starts_with or ends_with" default:"\"contains\"" enum:"contains,starts_with,ends_with"`
	Offset int    `json:"offset,omitempty" jsonschema:"paging offset (default 0)" default:"0" minimum:"0"`
	Limit  int    `json:"limit,omitempty" jsonschema:"page size (default 50, max 500)" default:"50" minimum:"0" maximum:"500"`
}

// ListResult is one page of concepts, newest first.
type ListResult struct {
	Concepts []noema.Concept `json:"concepts"`
	Total    int             `json:"total"`
	Offset   int             `json:"offset"`
	Limit    int             `json:"limit"`
	HasMore  bool            `json:"has_more"`
}

// List returns concepts newest first (by created time, then label and id),
// optionally filtered by a text matched against their names' keys.
func (s *Service) List(ctx context.Context, in ListInput) (*ListResult, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	if in.Offset < 0 {
		return nil, noema.Errorf(noema.EINVALID, "offset must be >= 0").WithParam("offset")
	}
	var pattern string
	if t := vault.Key(in.Text); t != "" {
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(t)
		switch in.Match {
		case "", "contains":
			pattern = "%" + esc + "%"
		case "starts_with":
			pattern = esc + "%"
		case "ends_with":
			pattern = "%" + esc
		default:
			return nil, noema.Errorf(noema.EINVALID, "match must be contains, starts_with or ends_with").WithParam("match")
		}
	} else if in.Match != "" && in.Match != "contains" && in.Match != "starts_with" && in.Match != "ends_with" {
		return nil, noema.Errorf(noema.EINVALID, "match must be contains, starts_with or ends_with").WithParam("match")
	}
	res := &ListResult{Offset: in.Offset, Limit: limit}
	var err error
	if res.Total, res.Concepts, err = s.DB.ListConcepts(ctx, pattern, in.Offset, limit); err != nil {
		return nil, err
	}
	res.HasMore = in.Offset+len(res.Concepts) < res.Total
	return res, nil
}

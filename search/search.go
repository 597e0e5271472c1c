// Package search answers search_notes: which notes are about this?
//
// Three modes rank notes:
//
//   - fulltext: SQLite FTS5 with BM25 over the note's title and body (the
//     title weighs [Tuning.TitleWeight] times the body), English stemming
//     (porter) so "compress" finds "compression", and a bigram column so
//     Chinese and Japanese text (no spaces) is found by any substring of two
//     or more characters. The exact phrase and the terms within ten tokens
//     of each other (NEAR) add to BM25; a note holding every term of the
//     query counts [Tuning.AllTermsBoost] times (partial matches still come
//     back); the best [PassageDepth] notes are lifted by their best passage
//     (a line: a chat turn, a paragraph) holding the query's terms together
//     ([Tuning.PassageWeight]), so a long note is not drowned by its own
//     length.
//   - semantic: cosine similarity of the query's embedding with the stored
//     vectors of the notes' chunks (a note scores its best chunk), with the
//     embedder the chunks were embedded with. An embedder that is missing or
//     fails makes semantic mode an unavailable error.
//   - hybrid (default): both lists' scores fused, each list weighted by
//     what its embedder can know. Full text weighs 1 (its BM25 relative to
//     the best, a note with every term counting [Tuning.AllTermsBoost]
//     times); a meaning model's list (minilm, Ollama, OpenAI) weighs
//     [Tuning.SemanticWeight]; a spelling model's (the builtin embedder,
//     noema.IsSpellingModel) [Tuning.SpellingWeight], 0 by default: it only
//     adds the notes full text did not find, below them, and is searched
//     only when full text leaves the page unfilled. A query naming a
//     concept of the registry (label or alias, exactly or one typo away)
//     lifts the notes linking it and its page ([Tuning.ConceptWeight]),
//     and when most of the query's words are such names the semantic list
//     weighs less ([Tuning.NamedShrink]).
//     The semantic list is cut below [Tuning.SemanticFloor] × its best
//     cosine. With the embedder unavailable, hybrid answers from full text
//     with a warning (when the semantic list was searched).
//
// Then, unless Input.Decay is false, each score is multiplied by the note's
// recency weight (package decay), and a note that no longer holds —
// superseded by a note naming it in `supersedes`, or past its valid_until —
// by timeline.StaleWeight; it then ranks below the notes that supersede
// it, which join the answer when the search did not find them (Hit.Time
// says why; package timeline and docs/time.md have the rules, and
// Input.AsOf answers as of a past date). A query written as `[[X]]` resolves X as
// a concept (aliases included) and returns the notes that link it, and its
// page, freshest first; an unknown X is searched as text, with a warning.
//
// # Queries
//
// Any text is a valid query: it is never handed to FTS5 as syntax. The
// sanitiser splits it into words (runs of letters, numbers and marks, as
// FTS5's unicode61 tokenizer does) and CJK runs; every other character —
// quotes, parentheses, '-', '^', ':', '+', emoji, invalid UTF-8 — separates
// words. AND, OR, NOT and NEAR in capitals are dropped as operators (not
// obeyed); English stop words are not searched for unless the query has
// nothing else; a '*' right after a word of two or more characters makes
// it a prefix. Each word becomes a double-quoted FTS5 string. At most
// [MaxTerms] distinct terms are searched. Only a NUL byte is
// invalid_argument.
//
// # Scores
//
// Every score is in 0..1, so min_score means the same in every mode:
//
//   - fulltext: the note's full-text strength (−BM25, × AllTermsBoost with
//     every term, × its passage lift) relative to the best: the first
//     scores 1.
//   - semantic: the cosine similarity (negative values are 0).
//   - hybrid: (t + w·v) / (1 + w), t the note's fulltext score, v its
//     cosine placed between the floor (0) and the best cosine (1), w the
//     semantic weight: 1 means first in both lists. With w = 0, t.
//   - `[[X]]`: 1 for every linking note.
//
// Then score × decay when decay is on (Hit.Decay always shows the weight).
// Ties break by path (for `[[X]]`, by freshness, then path; the notes only
// the semantic list found, by cosine), so paging is stable. Each list contributes its best [Depth] notes, and total counts the
// fused candidates (in fulltext mode: the matching notes, up to Depth).
//
// # Snippets
//
// About [SnippetChars] characters around the best match, the matched terms
// between [MarkOpen] and [MarkClose] (« and », which Markdown never uses
// for syntax); for a semantic-only hit, the start of its best chunk; for a
// `[[X]]` hit, the text around the first link to X; else the start of the
// body, else the title. Never empty.
//
// Searching never records an access: it does not refresh decay.
//
// docs/search.md has the measurements behind these choices.
package search

import (
	"context"
	"fmt"
	"maps"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/semantic/chunk"
	"github.com/noema-mem/noema/timeline"
)

// Modes.
const (
	ModeHybrid   = "hybrid"
	ModeFulltext = "fulltext"
	ModeSemantic = "semantic"
)

// Limits and ranking constants.
const (
	DefaultLimit = 10
	MaxLimit     = 100
	// Depth is how many notes each ranked list contributes to a search.
	Depth = 200
	// SnippetChars is the target length of a snippet.
	SnippetChars = 160
	// MarkOpen and MarkClose surround the matched terms in a snippet.
	MarkOpen, MarkClose = "«", "»"
)

// Tuning holds the ranking weights; [DefaultTuning] is what the
// evaluation in docs/search.md chose.
type Tuning struct {
	// TitleWeight is the BM25 weight of the title column (the body's is 1).
	TitleWeight float64
	// SemanticWeight weighs, in hybrid mode, the semantic list of a meaning
	// model (a sentence encoder: minilm, Ollama, OpenAI) against the
	// full-text list (weight 1); SpellingWeight that of a spelling model
	// (the builtin n-gram embedder, noema.IsSpellingModel). At 0 the list only
	// breaks full text's ties (by cosine) and adds the notes full text did
	// not find, below every full-text hit.
	SemanticWeight, SpellingWeight float64
	// SemanticFloor drops, in hybrid mode, the semantic candidates whose
	// cosine is below this share of the best one: the tail of a semantic
	// list is noise that would only shuffle the full-text ranking. The
	// kept candidates score 0 at the floor and 1 at the best cosine.
	SemanticFloor float64
	// PassageWeight lifts, in both modes that use full text, a note whose
	// best passage (PassageLines consecutive lines) holds the query's
	// terms together: its BM25 is multiplied by 1 + PassageWeight × the
	// IDF-weighted share of the terms that passage holds (see
	// liftPassages). 0 turns the lift off.
	PassageWeight float64
	PassageLines  int
	// ConceptWeight weighs, in hybrid mode, the concept list (the notes
	// linking a concept the query names, by label or alias, exactly or one
	// typo away) against full text's 1; 0 turns concept lifting off.
	ConceptWeight float64
	// NamedShrink shrinks, in hybrid mode, the semantic list's weight when
	// the query is mostly concept names: when c, the share of the query's
	// content words (stop words left out) that are concept names, is at
	// least NamedShare, the list weighs (1 − c)^NamedShrink of its weight.
	// A query that is a concept's name ("notes on Kubernetes") is answered
	// by the registry, which knows which notes are about it; a sentence
	// model's list only knows which notes resemble the name, and would
	// pull the linking notes down. A question naming a concept in passing
	// ("what did Caroline make in ceramics", c = ⅓) keeps the list's
	// whole weight: there the list is what finds the paraphrase. 0 turns
	// it off.
	NamedShrink, NamedShare float64
	// AllTermsBoost is the factor on the BM25 of a note holding every term
	// of the query (fulltext and hybrid); 0 makes hard tiers (every such
	// note above the others, scoring above 0.5, the others at most 0.5).
	AllTermsBoost float64
}

// DefaultTuning is the Tuning of a new Service.
var DefaultTuning = Tuning{
	TitleWeight: 4, SemanticWeight: 0.2, SpellingWeight: 0, SemanticFloor: 0.5, AllTermsBoost: 1.1,
	PassageWeight: 0.5, PassageLines: 1, ConceptWeight: 1, NamedShrink: 4, NamedShare: 0.5,
}

// Input is the search_notes request.
type Input struct {
	Query    string   `json:"query" jsonschema:"what to look for: words, a phrase, Chinese/Japanese text, or [[Concept]] for the notes linking a concept" cli:"arg" maxLength:"100000"`
	Mode     string   `json:"mode,omitempty" jsonschema:"hybrid (default), fulltext or semantic" default:"\"hybrid\"" enum:"hybrid,fulltext,semantic"`
	Folder   string   `json:"folder,omitempty" jsonschema:"only notes under this vault folder"`
	Tags     []string `json:"tags,omitempty" jsonschema:"only notes with every one of these tags (a tag includes its nested tags)" cli:"name=tag"`
	Since    string   `json:"since,omitempty" jsonschema:"only notes modified or read since: RFC 3339 time, date (2006-01-02) or duration like 24h or 7d"`
	Limit    int      `json:"limit,omitempty" jsonschema:"page size (default 10, max 100)" default:"10" minimum:"1" maximum:"100"`
	Offset   int      `json:"offset,omitempty" jsonschema:"paging offset (default 0)" default:"0" minimum:"0"`
	MinScore float64  `json:"min_score,omitempty" jsonschema:"drop hits scoring below this (0..1)" minimum:"0" maximum:"1"`
	Decay    *bool    `json:"decay,omitempty" jsonschema:"multiply scores by recency decay (default true)" default:"true" cli:"negate" negated:"rank without recency decay: an old note scores as a new one"`
	// AsOf answers from the notes valid at that date (docs/time.md).
	AsOf string `json:"as_of,omitempty" jsonschema:"answer as of this date (2026-01-02: the end of that day) or time (RFC 3339): notes written after it are left out, a note superseded after it is current, one whose valid_until is before it has expired, and decay counts from it (default: now, leaving nothing out)"`
}

// Ranks are a hit's 1-based positions in the lists it was found in (0 or
// absent: not in that list).
type Ranks struct {
	Fulltext int `json:"fulltext,omitempty"`
	Semantic int `json:"semantic,omitempty"`
}

// Hit is one note found.
type Hit struct {
	URI   string `json:"uri"`
	Title string `json:"title"`
	// Score is in 0..1 (see the package doc), decay applied when on.
	Score float64 `json:"score"`
	// Snippet is about 160 characters around the best match, the matched
	// terms between « and »; never empty.
	Snippet string `json:"snippet"`
	// Decay is the note's recency weight (reported even with decay off).
	Decay float64 `json:"decay"`
	Ranks Ranks   `json:"ranks"`
	// Place says what supersedes the note, or that it expired (absent
	// for a note that holds and replaces nothing).
	timeline.Place
}

// Result is the search_notes answer.
type Result struct {
	Query    string   `json:"query"`
	Mode     string   `json:"mode"`
	Hits     []Hit    `json:"hits"`
	Total    int      `json:"total"`
	HasMore  bool     `json:"has_more"`
	Warnings []string `json:"warnings"`
}

// Service searches notes. Create it with [New]; it is safe for concurrent
// use.
type Service struct {
	DB       noema.SearchIndex
	Embedder noema.Embedder
	Decay    decay.Config
	// Now returns the current time; tests replace it.
	Now func() time.Time
	// Tuning weighs the ranking; New sets DefaultTuning.
	Tuning Tuning
	// Chunking is how the semantic service cut the notes (its Chunking):
	// the chunks are read under that scheme's key. The zero Scheme is the
	// embedder's own (chunk.For its kind).
	Chunking chunk.Scheme

	// VectorsFile is the file that keeps the note chunks' vectors between
	// processes (snapshot.go): a cache of the index, written after a
	// process read many of them from it; "" keeps none.
	VectorsFile string
	// snapshotMin is the fewest chunks worth a snapshot; 0 is
	// snapshotMinChunks (tests lower it). build names the build that
	// reads and writes snapshots; "" is the running one (tests name
	// others).
	snapshotMin int
	build       string
	// liftInRanking turns liftApart and the per-term plan off: the
	// passage lift's bodies always come in the ranking statement, and it
	// reads every one (tests compare).
	liftInRanking bool

	chunks chunkCache
	terms  termCache
	names  conceptNames

	// Time reads memory over time (supersession, validity); nil: every
	// note is current, and as_of leaves no note out.
	Time noema.TimeIndex
	// timeline keeps the last timeline read from Time.
	timeline timeline.Cache
}

// New returns a Service reading idx (sqlite.SearchIndex), embedding queries with
// e (the embedder the note chunks were embedded with; nil disables
// semantic search) and weighting by d.
func New(idx noema.SearchIndex, e noema.Embedder, d decay.Config) *Service {
	return &Service{DB: idx, Embedder: e, Decay: d, Now: time.Now, Tuning: DefaultTuning}
}

// candidate is a note in the fused list.
type candidate struct {
	id      int64
	ranks   Ranks
	base    float64 // score before decay
	score   float64
	decay   float64
	note    noema.SearchNote
	chunk   *noema.ChunkVector // best chunk, for semantic hits
	cosine  float64
	textHit bool
	// concept is the strength (0..1) with which the query names a concept
	// the note links (or is the page of); 0 for none.
	concept float64
	bm25    float64 // FTS5 bm25 (negative, lower is better)
	every   bool    // holds every term of the query
	// linkKeys are the keys of the concept of a `[[X]]` query.
	linkKeys map[string]bool
	// order is the position in a `[[X]]` answer (freshest first).
	order   int
	snippet string
	// status is the note's place in time at the answer's time (see
	// overTime).
	status timeline.Status
	// successor: not found by the search, added as the successor of a
	// candidate it supersedes.
	successor bool
	// body is the note's indexed body when the search has read it
	// already (hasBody), so the snippet need not read it again.
	body    string
	hasBody bool
	// occ are the query's terms' occurrences in body, when the passage
	// lift found them already (hasOcc).
	occ    []occurrence
	hasOcc bool
}

// Search runs one search_notes request.
func (s *Service) Search(ctx context.Context, in Input) (*Result, error) {
	if err := checkNUL(in); err != nil {
		return nil, err
	}
	mode := strings.ToLower(strings.TrimSpace(in.Mode))
	if mode == "" {
		mode = ModeHybrid
	}
	if mode != ModeHybrid && mode != ModeFulltext && mode != ModeSemantic {
		return nil, noema.Errorf(noema.EINVALID, "mode %q is not hybrid, fulltext or semantic", in.Mode)
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	if in.Offset < 0 {
		return nil, noema.Errorf(noema.EINVALID, "offset must be >= 0")
	}
	if math.IsNaN(in.MinScore) || in.MinScore < 0 || in.MinScore > 1 {
		return nil, noema.Errorf(noema.EINVALID, "min_score must be between 0 and 1")
	}
	now := s.Now()
	f, err := s.filter(in, now)
	if err != nil {
		return nil, err
	}
	useDecay := in.Decay == nil || *in.Decay
	res := &Result{Query: in.Query, Mode: mode, Hits: []Hit{}, Warnings: []string{}}

	var cands []*candidate
	var p *parsed
	if key, ok := conceptQuery(in.Query); ok {
		var found bool
		cands, found, err = s.conceptCandidates(ctx, key, f)
		if err != nil {
			return nil, err
		}
		if !found {
			res.Warnings = append(res.Warnings, fmt.Sprintf("no concept is named %q; searched its text instead", key))
			p = parse(in.Query)
		}
	} else {
		p = parse(in.Query)
	}
	if p != nil {
		if p.empty() {
			res.Warnings = append(res.Warnings, "the query has no words to search for")
		}
		if p.truncated {
			res.Warnings = append(res.Warnings, fmt.Sprintf("the query has more than %d distinct terms; only the first %d were searched", MaxTerms, MaxTerms))
		}
		cands, err = s.ranked(ctx, in.Query, p, mode, f, in.Offset+limit, res)
		if err != nil {
			return nil, err
		}
	}
	view, err := s.view(ctx, in.AsOf, now)
	if err != nil {
		return nil, err
	}
	if view.AsOf() {
		now = view.At() // decay counts from as_of
	}
	if err := s.weigh(ctx, cands, now, useDecay); err != nil {
		return nil, err
	}
	if cands, err = s.overTime(ctx, view, cands, f, now, useDecay); err != nil {
		return nil, err
	}
	kept := cands[:0]
	for _, c := range cands {
		if c.score >= in.MinScore && c.note.Path != "" {
			kept = append(kept, c)
		}
	}
	cands = kept
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.order != b.order {
			return a.order < b.order
		}
		// Hybrid: the semantic list orders the notes only it found (below
		// every full-text hit with a spelling model); full text's own ties
		// keep full text's order (path), so the default ranks as fulltext
		// where the semantic list weighs nothing. (Breaking those ties by
		// the builtin's cosine measured worse: docs/search.md.)
		if a.cosine != b.cosine && !a.textHit && !b.textHit {
			return a.cosine > b.cosine
		}
		return a.note.Path < b.note.Path
	})
	belowSuccessors(cands)
	res.Total = len(cands)
	if in.Offset >= len(cands) {
		return res, nil
	}
	page := cands[in.Offset:min(in.Offset+limit, len(cands))]
	res.HasMore = in.Offset+len(page) < len(cands)
	if err := s.snippets(ctx, page, p); err != nil {
		return nil, err
	}
	for _, c := range page {
		res.Hits = append(res.Hits, Hit{
			URI: noema.NoteURI(c.note.Path), Title: c.note.Title, Score: round(c.score), Snippet: c.snippet,
			Decay: round(c.decay), Ranks: c.ranks, Place: hitTime(view, c),
		})
	}
	return res, nil
}

// round keeps six decimals, so JSON shows 0.875 rather than 0.87500000001.
func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func checkNUL(in Input) error {
	fields := append([]string{in.Query, in.Mode, in.Folder, in.Since, in.AsOf}, in.Tags...)
	for _, f := range fields {
		if strings.IndexByte(f, 0) >= 0 {
			return noema.Errorf(noema.EINVALID, "search input contains a NUL byte")
		}
	}
	return nil
}

// filter builds the noema.SearchFilter of a request.
func (s *Service) filter(in Input, now time.Time) (noema.SearchFilter, error) {
	var f noema.SearchFilter
	folder := strings.Trim(strings.TrimSpace(in.Folder), "/")
	if folder != "" {
		if strings.Contains(folder, `\`) {
			return f, noema.Errorf(noema.EINVALID, "folder %q: use '/' between folders", in.Folder)
		}
		var elems []string
		for _, e := range strings.Split(folder, "/") {
			switch {
			case e == "" || e == ".":
			case e == "..":
				return f, noema.Errorf(noema.EINVALID, "folder %q: '..' is not allowed", in.Folder)
			default:
				elems = append(elems, e)
			}
		}
		f.Folder = strings.Join(elems, "/")
	}
	for _, t := range in.Tags {
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if t != "" {
			f.Tags = append(f.Tags, t)
		}
	}
	if strings.TrimSpace(in.Since) != "" {
		t, err := noema.ParseSince(in.Since, now)
		if err != nil {
			return f, err
		}
		f.Since = t
	}
	return f, nil
}

// ranked returns the fused candidates of a text query.
func (s *Service) ranked(ctx context.Context, raw string, p *parsed, mode string, f noema.SearchFilter, need int, res *Result) ([]*candidate, error) {
	var (
		byID  map[int64]*candidate
		order []*candidate
		slab  []candidate // candidates are allocated in blocks
	)
	// size says how many candidates are expected (the full-text hits).
	size := func(n int) {
		if byID == nil {
			byID = make(map[int64]*candidate, n)
			order = make([]*candidate, 0, n)
			slab = make([]candidate, 0, n)
		}
	}
	get := func(id int64) *candidate {
		size(16)
		c, ok := byID[id]
		if !ok {
			if len(slab) == cap(slab) {
				slab = make([]candidate, 0, max(16, len(order)))
			}
			slab = append(slab, candidate{id: id})
			c = &slab[len(slab)-1]
			byID[id] = c
			order = append(order, c)
		}
		return c
	}
	// The semantic side (embed the query, scan the vectors) runs beside
	// the full-text query: two cores, half the wait. In hybrid mode the
	// scan keeps to one goroutine, the full-text query holding the other
	// core (on two goroutines the scan slowed it down as much as it gained).
	//
	// A list of weight 0 (a spelling model's) can only add notes below
	// every full-text hit: it is searched after full text, and only when
	// full text leaves the page (need hits) unfilled.
	var (
		sem     []semHit
		semWarn []string
		semErr  error
		semOK   bool
		semRan  bool
		wg      sync.WaitGroup
	)
	lazy := mode == ModeHybrid && !p.empty() && s.semanticWeight() == 0
	if mode != ModeFulltext && strings.TrimSpace(raw) != "" && !lazy {
		workers := 2
		if mode == ModeHybrid && !p.empty() {
			workers = 1
		}
		semRan = true
		wg.Go(func() { sem, semWarn, semErr = s.semantic(ctx, raw, f, workers, Depth, mode == ModeSemantic) })
	}
	// The versions are read once: by the first term count, or by the
	// ranking statement.
	tv := &textVersion{}
	var text []noema.TextHit
	var bodies map[int64]readBody // read by the passage lift
	var textErr error
	if mode != ModeSemantic && !p.empty() {
		text, textErr = s.rankText(ctx, tv, p, f, need)
		if textErr == nil && len(text) > 0 && !text[0].HasBody {
			textErr = s.countOne(ctx, tv, p, f)
		}
		if textErr == nil {
			text, bodies, textErr = s.liftPassages(ctx, tv, p, text, need)
		}
	}
	wg.Wait()
	if textErr != nil {
		return nil, textErr
	}
	if lazy && len(text) < need {
		semRan = true
		// Only the notes that fill the page can be seen.
		sem, semWarn, semErr = s.semantic(ctx, raw, f, 2, min(Depth, need+len(text)), false)
	}
	if semRan {
		res.Warnings = append(res.Warnings, semWarn...)
		switch {
		case semErr == nil:
			semOK = true
		case mode == ModeSemantic || noema.ErrorCode(semErr) != noema.EUNAVAILABLE:
			return nil, semErr
		default:
			res.Warnings = append(res.Warnings, "semantic search is unavailable ("+noema.ErrorMessage(semErr)+"); these hits are from full text only")
		}
	}
	// Full-text scores with AllTermsBoost 0 (hard tiers): notes with every
	// term in (0.5, 1], the others in (0, 0.5], each placed by its BM25
	// relative to the best of its tier. Otherwise (below) the soft tier.
	bestAll, bestSome := 0.0, 0.0
	oneTerm := len(p.terms) < 2 // every hit holds every term (p.all() is "")
	for _, h := range text {
		if h.All || oneTerm {
			bestAll = min(bestAll, h.BM25)
		} else {
			bestSome = min(bestSome, h.BM25)
		}
	}
	size(len(text) + 16)
	for i, h := range text {
		c := get(h.ID)
		c.ranks.Fulltext = i + 1
		c.textHit = true
		c.note = h.Note
		if b, ok := bodies[h.ID]; ok {
			c.body, c.hasBody, c.occ, c.hasOcc = b.text, true, b.occ, true
		} else if h.HasBody {
			c.body, c.hasBody = h.Body, true
		}
		every := h.All || oneTerm
		c.bm25, c.every = h.BM25, every
		best := bestSome
		if every {
			best = bestAll
		}
		rel := 1.0
		if best < 0 {
			rel = min(1, max(1e-6, h.BM25/best))
		}
		c.base = 0.5 * rel
		if every {
			c.base += 0.5
		}
	}
	if mode == ModeHybrid && len(sem) > 0 && s.Tuning.SemanticFloor > 0 {
		floor := sem[0].score * s.Tuning.SemanticFloor
		n := 0
		for n < len(sem) && sem[n].score >= floor {
			n++
		}
		sem = sem[:n]
	}
	for i, h := range sem {
		c := get(h.id)
		c.ranks.Semantic = i + 1
		c.cosine = max(0, h.score)
		chunk := h.chunk
		c.chunk = &chunk
	}
	switch mode {
	case ModeFulltext:
		if boost := s.Tuning.AllTermsBoost; boost > 0 {
			// The soft every-term tier, as in hybrid: both modes rank
			// full text alike.
			bestText := 0.0
			for _, c := range order {
				bestText = max(bestText, c.textScore(boost))
			}
			for _, c := range order {
				if bestText > 0 {
					c.base = min(1, max(1e-6, c.textScore(boost)/bestText))
				}
			}
		}
	case ModeSemantic:
		for _, c := range order {
			c.base = c.cosine
		}
	case ModeHybrid:
		cover, warn, err := s.liftConcepts(ctx, tv, raw, f, get)
		if err != nil {
			return nil, err
		}
		if warn != "" {
			res.Warnings = append(res.Warnings, warn)
		}
		s.fuse(order, sem, !p.empty(), semOK, cover)
	}
	return order, nil
}

// fuse scores the hybrid candidates: the full-text score (0..1, already
// in c.base) plus the semantic list's weight × the note's cosine placed
// between the floor (0) and the best cosine (1), divided by the sum of the
// weights of the lists searched, so 1 is first in both. Scores, not ranks,
// are fused: a full-text hit well ahead of the next keeps its lead unless
// the semantic list is both sure and weighty, and where full text is
// unsure (close scores) the semantic list decides. The semantic weight is
// what the embedder can know: a meaning model's SemanticWeight, a spelling
// model's SpellingWeight; when the query is mostly concept names it
// shrinks with cover, the share of the query's content words that name
// them (Tuning.NamedShrink, Tuning.NamedShare).
func (s *Service) fuse(order []*candidate, sem []semHit, textSearched, semOK bool, cover float64) {
	named := cover > 0
	ws := s.semanticWeight()
	if named && s.Tuning.NamedShrink > 0 && cover >= s.Tuning.NamedShare {
		ws *= math.Pow(1-cover, s.Tuning.NamedShrink)
	}
	norm := 0.0
	if textSearched {
		norm++
	}
	if semOK && len(sem) > 0 {
		norm += ws
	}
	wc := 0.0
	if named {
		wc = s.Tuning.ConceptWeight
		norm += wc
	}
	best := 0.0
	if len(sem) > 0 {
		best = max(0, sem[0].score)
	}
	floor := best * s.Tuning.SemanticFloor
	boost := s.Tuning.AllTermsBoost
	bestText := 0.0
	for _, c := range order {
		if c.textHit {
			bestText = max(bestText, c.textScore(boost))
		}
	}
	for _, c := range order {
		ft := 0.0
		if c.textHit {
			ft = c.base
			if boost > 0 && bestText > 0 {
				ft = c.textScore(boost) / bestText
			}
		}
		sv := 0.0
		if c.ranks.Semantic > 0 {
			sv = 1
			if best > floor {
				sv = min(1, max(0, (c.cosine-floor)/(best-floor)))
			}
		}
		c.base = 0
		if norm > 0 {
			c.base = (ft + ws*sv + wc*c.concept) / norm
		}
	}
}

// semanticWeight is the semantic list's weight in hybrid mode: what the
// embedder can know (SpellingWeight for a spelling model, else
// SemanticWeight).
func (s *Service) semanticWeight() float64 {
	if noema.IsSpellingModel(s.Embedder) {
		return s.Tuning.SpellingWeight
	}
	return s.Tuning.SemanticWeight
}

// textScore is the candidate's full-text strength for fusion: −BM25,
// times boost when it holds every term of the query.
func (c *candidate) textScore(boost float64) float64 {
	x := max(0, -c.bm25)
	if c.every {
		x *= boost
	}
	return x
}

// fewNotes reports whether p is one term in at most Depth notes by its
// count cached: noema.TextQuery.Few.
func (s *Service) fewNotes(p *parsed) bool {
	docs, ok := s.oneTermDocs(p)
	return ok && docs <= Depth
}

// oneTermDocs is how many notes hold the term of a one-term query, by its
// count cached at any version (a stale count only chooses a plan's cost);
// ok is false for other queries and uncached terms.
func (s *Service) oneTermDocs(p *parsed) (docs int, ok bool) {
	if len(p.terms) != 1 {
		return 0, false
	}
	d, _, _, ok := s.terms.cached(p.exprs())
	if !ok {
		return 0, false
	}
	return d[0], true
}

// rankText ranks p's full text (Depth notes), reading the text and
// concept-registry versions in the ranking statement where it can (into
// tv). When the plan was chosen from term counts cached at a version not
// read yet (tv.guess), the version the ranking read confirms them; when it
// read none, one more statement does; counts of an older version make it
// rank again from fresh ones, so the answer is always that of counts of
// the version ranked.
func (s *Service) rankText(ctx context.Context, tv *textVersion, p *parsed, f noema.SearchFilter, need int) ([]noema.TextHit, error) {
	if !tv.read {
		tv.mayGuess = true
	}
	defer func() { tv.mayGuess = false }() // later counts read the version
	for {
		plan, err := s.fulltextMatch(ctx, tv, p, f)
		if err != nil {
			return nil, err
		}
		var vs noema.IndexVersions
		q := noema.TextQuery{
			Match: plan.match, Bonus: p.bonus(), All: p.all(),
			EveryFirst: plan.everyFirst, Together: plan.together, BonusHoldsAll: p.bonusHoldsAll(),
			Weights: [3]float64{s.Tuning.TitleWeight, 1, 1}, Filter: f, Limit: Depth,
			Versions: &vs, Few: s.fewNotes(p),
		}
		if plan.perTerm {
			q.Terms = p.exprs()
		} else {
			q.Bodies = s.textBodies(p, f, need)
		}
		text, err := s.DB.SearchText(ctx, q)
		if err != nil {
			return nil, err
		}
		if vs.Read {
			tv.concepts, tv.conceptsRead = vs.Concepts, true
			if !tv.read {
				tv.v, tv.read = vs.Text, true
			}
		}
		if !tv.guess {
			return text, nil
		}
		v := vs.Text
		if !vs.Read {
			if v, err = s.DB.SearchTextVersion(ctx); err != nil {
				return nil, err
			}
		}
		if v == tv.v {
			tv.guess = false
			return text, nil
		}
		*tv = textVersion{} // ranked with stale counts: again, reading the version
	}
}

// textPlan is how a full-text query is sent to the index: its MATCH
// expression and the TextQuery flags that choose how SearchText ranks it
// (each gives the same answer; they differ in cost).
type textPlan struct {
	match      string
	everyFirst bool // noema.TextQuery.EveryFirst
	together   bool // noema.TextQuery.Together
	// perTerm ranks each term on its own (noema.TextQuery.Terms).
	perTerm bool
}

// fulltextMatch returns the plan of p's full-text query. A term found in
// half of the notes or more weighs nothing in FTS5's BM25 (its IDF is
// clamped to 1e-6): a note holding only such terms scores about 0 and
// ranks below every note holding a rare term (one in at most a quarter of
// the notes). So when a rare term alone already finds [Depth] notes, the
// common terms are left out of the expression: the best Depth notes are
// the same, their scores move by less than 1e-4 (which can only swap
// near-ties), and BM25 is not computed for most of the index. The common
// terms still decide the every-term tier (noema.TextQuery.All).
//
// Otherwise the plan follows the terms' note counts: when the terms are
// common enough that, were they independent, 2 × Depth notes would hold
// them all, those notes are ranked first (noema.TextQuery.EveryFirst: for two
// common words they fill the Depth, and the notes holding one word are
// never scored); when all the terms together are in at most 2 × Depth
// notes, the phrase/NEAR bonus is ranked with them in one query
// (noema.TextQuery.Together).
//
// Searches with a filter keep the default plan (the counts are the whole
// index's).
func (s *Service) fulltextMatch(ctx context.Context, tv *textVersion, p *parsed, f noema.SearchFilter) (textPlan, error) {
	if tv == nil {
		tv = &textVersion{}
	}
	plan, err := s.planText(ctx, tv, p, f)
	if err == nil && tv.guess && !plan.together {
		// Counts not confirmed yet chose a plan of several statements,
		// which read no version: read it first, as before, and plan again.
		*tv = textVersion{}
		return s.planText(ctx, tv, p, f)
	}
	return plan, err
}

// planText is fulltextMatch's plan from the term counts, read or cached
// (tv.guess: cached at a version not confirmed yet).
func (s *Service) planText(ctx context.Context, tv *textVersion, p *parsed, f noema.SearchFilter) (textPlan, error) {
	plan := textPlan{match: p.match()}
	// Under a filter the counts would have to be the filtered notes'.
	if len(p.terms) < 2 || !skipCommonTerms || !f.IsZero() {
		return plan, nil
	}
	docs, total, err := s.termDocs(ctx, tv, p.exprs())
	if err != nil {
		return textPlan{}, err
	}
	skip := map[int]bool{}
	rare := 0 // a lower bound of the notes the rare terms find
	for i, n := range docs {
		switch {
		case 2*n >= total:
			// log((N − n + ½)/(n + ½)) ≤ 0: FTS5 clamps the IDF to 1e-6.
			skip[i] = true
		case 4*n <= total:
			// IDF ≥ log 3: any note holding the term outranks every note
			// holding only clamped terms (at most MaxTerms × 1e-6 × 2.2).
			rare = max(rare, n)
		}
	}
	if len(skip) > 0 && rare >= Depth {
		plan.match = p.matchSkipping(skip)
		return plan, nil
	}
	switch textPlans {
	case "none":
		return plan, nil
	case "every-first":
		plan.everyFirst = true
		return plan, nil
	case "together":
		plan.together = true
		return plan, nil
	case "per-term":
		plan.together, plan.perTerm = true, perTermFits(p)
		return plan, nil
	}
	// The notes expected to hold every term, were the terms independent
	// (the counts stop at half of the notes: an underestimate), and the
	// notes holding some term (at most).
	all, some := float64(total), 0
	for _, n := range docs {
		all *= float64(n) / float64(max(total, 1))
		some += n
	}
	plan.everyFirst = all >= 2*Depth
	plan.together = some <= 2*Depth
	// Rare terms are ranked each on its own: it costs less than
	// Together's one expression (no every-term lookup, no sort in SQLite)
	// and says which terms each note's body holds, so the passage lift
	// reads only the bodies holding two (docs/search.md, Speed round 12).
	plan.perTerm = plan.together && !s.liftInRanking && perTermFits(p)
	return plan, nil
}

// perTermFits reports whether p's terms can be ranked each on its own
// (noema.TextQuery.Terms): two or more, its bonus, if any, holding every
// one.
func perTermFits(p *parsed) bool {
	return len(p.terms) >= 2 && len(p.terms) <= 64 && (p.bonus() == "" || p.bonusHoldsAll())
}

// termDocs returns SearchTermDocs(exprs), each count read from the index
// once per state of its text: counting a term walks its doclist (half of
// the notes for a common one, most of fulltextMatch's cost at 100,000
// notes), and agents' queries share their common words.
//
// tv holds the text version one search has read (nil: read it): a search
// reads it at most once, however many times it counts terms.
func (s *Service) termDocs(ctx context.Context, tv *textVersion, exprs []string) (docs []int, total int, err error) {
	if tv == nil {
		tv = &textVersion{}
	}
	c := &s.terms
	if !tv.read && tv.mayGuess {
		// Every count cached: take the version they were counted at for
		// the index's; the ranking statement will tell (rankText).
		if docs, total, version, ok := c.cached(exprs); ok {
			tv.v, tv.read, tv.guess = version, true, true
			return docs, total, nil
		}
	}
	if !tv.read {
		if tv.v, err = s.DB.SearchTextVersion(ctx); err != nil {
			return nil, 0, err
		}
		tv.read = true
	}
	version := tv.v
	c.mu.Lock()
	if c.docs == nil || c.version != version || len(c.docs) > maxCachedTerms {
		c.docs, c.version, c.total = map[string]int{}, version, -1
	}
	docs = make([]int, len(exprs))
	var missing []string
	for i, e := range exprs {
		n, ok := c.docs[e]
		if !ok {
			missing = append(missing, e)
		}
		docs[i] = n
	}
	total = c.total
	c.mu.Unlock()
	if len(missing) == 0 && total >= 0 {
		return docs, total, nil
	}
	counts, total, err := s.DB.SearchTermDocs(ctx, missing)
	if err != nil {
		return nil, 0, err
	}
	got := make(map[string]int, len(missing))
	for i, e := range missing {
		got[e] = counts[i]
	}
	c.mu.Lock()
	if c.version == version { // else the text moved meanwhile: keep nothing
		c.total = total
		maps.Copy(c.docs, got)
	}
	c.mu.Unlock()
	for i, e := range exprs {
		if n, ok := got[e]; ok {
			docs[i] = n
		}
	}
	return docs, total, nil
}

// cachedDocs returns the cached counts of exprs when every one is cached
// at the version tv read (not guessed); ok is false otherwise. It reads
// nothing from the index.
func (s *Service) cachedDocs(tv *textVersion, exprs []string) (docs []int, ok bool) {
	if tv == nil || !tv.read || tv.guess {
		return nil, false
	}
	docs, _, version, ok := s.terms.cached(exprs)
	return docs, ok && version == tv.v
}

// cached returns the counts of exprs and of the notes, and the version
// they were counted at, when every one is cached (ok).
func (c *termCache) cached(exprs []string) (docs []int, total int, version int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.docs == nil || c.total < 0 {
		return nil, 0, 0, false
	}
	docs = make([]int, len(exprs))
	for i, e := range exprs {
		if docs[i], ok = c.docs[e]; !ok {
			return nil, 0, 0, false
		}
	}
	return docs, c.total, c.version, true
}

// textVersion is the index's text version as one search read it (v,
// when read), and the concept registry's (concepts, when conceptsRead:
// the ranking statement reads both, noema.TextQuery.Versions).
//
// With mayGuess, termDocs may take the version the cached term counts
// were counted at for the index's without reading it (read and guess
// set); rankText then confirms it, or ranks again.
type textVersion struct {
	v        int64
	read     bool
	mayGuess bool
	guess    bool

	concepts     string
	conceptsRead bool
}

// maxCachedTerms bounds the term counts termDocs keeps; past it the cache
// starts over.
const maxCachedTerms = 10000

// termCache holds the notes counted per full-text term expression, for one
// text version of the index.
type termCache struct {
	mu      sync.Mutex
	version int64
	total   int // notes in the index; -1 before the first count
	docs    map[string]int
}

// skipCommonTerms turns fulltextMatch's pruning on; tests compare.
var skipCommonTerms = true

// textPlans is how fulltextMatch chooses EveryFirst and Together: by the
// term counts ("counts"); tests compare with "none" and with each plan
// forced ("every-first", "together", "per-term").
var textPlans = "counts"

// weigh loads the candidates' notes and applies decay.
func (s *Service) weigh(ctx context.Context, cands []*candidate, now time.Time, useDecay bool) error {
	if err := s.load(ctx, cands, now); err != nil {
		return err
	}
	for _, c := range cands {
		c.score = c.base
		if useDecay {
			c.score *= c.decay
		}
		c.score = min(1, max(0, c.score))
	}
	return nil
}

// load reads the notes of the candidates that lack theirs and sets every
// candidate's decay weight at now.
func (s *Service) load(ctx context.Context, cands []*candidate, now time.Time) error {
	var missing []int64
	for _, c := range cands {
		if c.note.Path == "" {
			missing = append(missing, c.id)
		}
	}
	if len(missing) > 0 {
		notes, err := s.DB.SearchNotes(ctx, missing)
		if err != nil {
			return err
		}
		for _, c := range cands {
			if c.note.Path == "" {
				c.note = notes[c.id]
			}
		}
	}
	for _, c := range cands {
		c.decay = s.Decay.Weight(c.note.Path, decay.Reference(c.note.Modified, c.note.Accessed), now)
	}
	return nil
}

// conceptQuery reports whether q is `[[X]]` and returns X's key.
func conceptQuery(q string) (string, bool) {
	q = strings.TrimSpace(q)
	if !strings.HasPrefix(q, "[[") || !strings.HasSuffix(q, "]]") || len(q) < 5 {
		return "", false
	}
	inner := q[2 : len(q)-2]
	if strings.Contains(inner, "[[") || strings.Contains(inner, "]]") {
		return "", false
	}
	if i := strings.IndexAny(inner, "|#"); i >= 0 {
		inner = inner[:i]
	}
	inner = strings.TrimSpace(inner)
	if inner == "" {
		return "", false
	}
	return inner, true
}

// chunkID packs a note id and chunk position into a vector id.
func chunkID(note int64, idx int) int64 { return note<<20 | int64(idx&0xFFFFF) }

func noteOf(id int64) int64 { return id >> 20 }

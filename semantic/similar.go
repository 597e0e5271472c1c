package semantic

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
	"github.com/noema-mem/noema/vector"
)

// Limits of find_similar_concepts.
const (
	DefaultMaxResults = 10
	MaxMaxResults     = 200
	// saturationSpread is how close the top ten similarities may be before
	// the neighbourhood counts as saturated (docs/decisions.md, "Embeddings and decay").
	saturationSpread = 1e-6
)

// SimilarInput asks for concepts that mean something close to a concept.
type SimilarInput struct {
	Concept    string `json:"concept" jsonschema:"a concept (id, label or alias) or any free text" cli:"arg=NAME"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"how many neighbours (default 10, max 200)" default:"10" minimum:"0" maximum:"200" cli:"name=max"`
	Decay      *bool  `json:"decay,omitempty" jsonschema:"weight by recency (default true); false ranks by similarity alone" default:"true" cli:"negate" negated:"rank by similarity alone, ignoring recency"`
}

// Similar is one neighbour.
type Similar struct {
	ID         string   `json:"id"`
	Label      string   `json:"label"`
	Aliases    []string `json:"aliases"`
	Similarity float64  `json:"similarity"`
	Decay      float64  `json:"decay"`
	Score      float64  `json:"score"`
	Band       string   `json:"band"`
}

// SimilarResult lists neighbours by score = similarity × decay.
type SimilarResult struct {
	Query string `json:"query"`
	// ConceptID is set when the query resolved to a concept (excluded from
	// the results); otherwise the text itself was embedded.
	ConceptID string `json:"concept_id,omitempty"`
	// Resolved says whether the query named a concept (false: it was
	// embedded as free text).
	Resolved bool `json:"resolved"`
	// Fallback is "fuzzy" when the embedder was unreachable with nothing
	// cached and the results are find_concepts' candidates instead
	// (similarity 0, score = WRatio / 100); the backend's error is a
	// warning.
	Fallback string    `json:"fallback,omitempty"`
	Embedder string    `json:"embedder"`
	Meaning  string    `json:"meaning"`
	Results  []Similar `json:"results"`
	Warnings []string  `json:"warnings"`
}

// Band names the similarity band (docs/decisions.md, "Embeddings and decay"). What the bands mean depends
// on the embedder; see Meaning.
func Band(sim float64) string {
	switch {
	case sim >= 0.90:
		return "likely synonyms"
	case sim >= 0.75:
		return "strong relationship"
	case sim >= 0.60:
		return "related"
	default:
		return "weak"
	}
}

// meaning explains what similarity means for the embedder in use.
func meaning(name string) string {
	if strings.HasPrefix(name, "builtin/") {
		return "builtin embedder: similarity reflects shared spelling and word stems, not meaning; ≥0.90 is usually the same name spelled differently, and true synonyms with different words score low"
	}
	return "model embedder: similarity reflects meaning as the model sees it; ≥0.90 likely synonyms, 0.75–0.90 strong relationship, 0.60–0.75 related, below 0.60 weak"
}

// FindSimilar returns the concepts closest in meaning to in.Concept, each
// with its cosine similarity, decay (freshness) and score = similarity ×
// decay, ranked by score. A name that resolves to a concept uses that
// concept's own vector and is excluded; anything else is embedded as text.
func (s *Service) FindSimilar(ctx context.Context, in SimilarInput) (*SimilarResult, error) {
	return s.FindSimilarOr(ctx, in, nil)
}

// Fuzzy returns up to k candidates spelled like query (find_concepts),
// each with its WRatio score (0-100) in Similar.Score.
type Fuzzy func(ctx context.Context, query string, k int) ([]Similar, error)

// FindSimilarOr is FindSimilar that, when the embedder is unreachable and
// no vector is cached, answers with fuzzy's candidates marked
// fallback "fuzzy" (docs/decisions.md, "Embeddings and decay": an
// unreachable backend degrades to fuzzy answers with a warning) instead of failing with unavailable. fuzzy may
// be nil.
func (s *Service) FindSimilarOr(ctx context.Context, in SimilarInput, fuzzy Fuzzy) (*SimilarResult, error) {
	q := strings.TrimSpace(in.Concept)
	if q == "" {
		return nil, noema.Errorf(noema.EINVALID, "concept must be a non-empty name")
	}
	k := in.MaxResults
	if k <= 0 {
		k = DefaultMaxResults
	}
	k = min(k, MaxMaxResults)
	useDecay := in.Decay == nil || *in.Decay
	res := &SimilarResult{Query: q, Embedder: s.Embedder.Name(), Meaning: meaning(s.Embedder.Name()), Results: []Similar{}, Warnings: []string{}}
	if err := s.Refresh(ctx); err != nil {
		// With the backend down, answer from the vectors already cached.
		s.mu.RLock()
		cached := s.idx != nil && s.idx.Len() > 0
		s.mu.RUnlock()
		if noema.ErrorCode(err) == noema.EUNAVAILABLE && !cached && fuzzy != nil {
			return s.fuzzyFallback(ctx, res, q, k, err, fuzzy)
		}
		if noema.ErrorCode(err) != noema.EUNAVAILABLE || !cached {
			return nil, err
		}
		res.Warnings = append(res.Warnings, "the embedder is unavailable ("+noema.ErrorMessage(err)+"): answering from cached vectors; concepts added or changed since are missing")
	}

	var self string
	var qv []float32
	if id, err := s.DB.ConceptNamed(ctx, q, vault.Key(q)); err == nil && id != "" {
		self = id
		res.ConceptID, res.Resolved = self, true
		if qv, err = s.vectorOf(ctx, self); err != nil {
			return nil, err
		}
	}
	if qv == nil {
		vecs, err := s.Embedder.Embed(ctx, []string{q})
		if err != nil {
			return nil, fmt.Errorf("embed query with %s: %w", s.Embedder.Name(), err)
		}
		qv = vecs[0]
	}
	if degenerate(qv) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the embedding of %q is degenerate (zero or non-finite): it has no neighbours, and none are invented", q))
		return res, nil
	}
	p := s.Progress()
	if p.Embedded < p.Concepts {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d of %d concepts have no vector yet (embedding in progress or their text is empty)", p.Concepts-p.Embedded, p.Concepts))
	}

	s.mu.RLock()
	selfVID, hasSelf := s.rows[self]
	s.mu.RUnlock()
	var filter func(int64) bool
	if hasSelf {
		filter = func(id int64) bool { return id != selfVID }
	}
	best, err := s.rank(ctx, qv, k, filter, useDecay)
	if err != nil {
		return nil, err
	}
	res.Results = unrelated(best)
	// Saturation: the top min(10, n) similarities, whenever there are at
	// least three, all within saturationSpread.
	if n := len(res.Results); n >= 3 {
		top := res.Results[:min(10, n)]
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range top {
			lo, hi = math.Min(lo, r.Similarity), math.Max(hi, r.Similarity)
		}
		if hi-lo <= saturationSpread {
			res.Warnings = append(res.Warnings, fmt.Sprintf("saturated neighbourhood: the top %d similarities are all %.6f; treat this as a ranking signal, not as synonyms, and check with build_context or search_notes", len(top), hi))
		}
	}
	return res, nil
}

// fuzzyFallback answers with find_concepts' candidates when no vector can
// be had.
func (s *Service) fuzzyFallback(ctx context.Context, res *SimilarResult, q string, k int, cause error, fuzzy Fuzzy) (*SimilarResult, error) {
	res.Fallback = "fuzzy"
	res.Warnings = append(res.Warnings, "the embedder is unavailable and nothing is cached ("+noema.ErrorMessage(cause)+"): these are find_concepts' spelling candidates (score = WRatio / 100), not neighbours in meaning")
	if id, err := s.DB.ConceptNamed(ctx, q, vault.Key(q)); err == nil && id != "" {
		res.ConceptID, res.Resolved = id, true
	}
	cands, err := fuzzy(ctx, q, k+1)
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		if c.ID == res.ConceptID || len(res.Results) == k {
			continue
		}
		c.Score /= 100
		c.Decay, c.Similarity, c.Band = 1, 0, fallbackBand
		res.Results = append(res.Results, c)
	}
	res.Results = unrelated(res.Results)
	return res, nil
}

// fallbackBand is the band of the fuzzy fallback's results.
const fallbackBand = "fuzzy fallback"

// minSimilarity is the least a result needs, as similarity (or, for the
// fuzzy fallback, as WRatio / 100): one that prints as 0.000 has nothing
// in common with the query, and the results are not padded with it. Decay
// does not count: an old neighbour is still a neighbour.
const minSimilarity = 0.0005

// unrelated drops the results below minSimilarity, keeping the order.
func unrelated(rs []Similar) []Similar {
	return slices.DeleteFunc(rs, func(r Similar) bool {
		sim := r.Similarity
		if r.Band == fallbackBand {
			sim = r.Score
		}
		return !(sim >= minSimilarity)
	})
}

// score returns the hits as results, weighed by decayOf (nil: decay
// off, every weight 1).
func (s *Service) score(ctx context.Context, hits []vector.Hit, now time.Time, decayOf decayFunc) ([]Similar, error) {
	ids := make([]string, 0, len(hits))
	s.mu.RLock()
	for _, h := range hits {
		ids = append(ids, s.conceptOf(h.ID))
	}
	s.mu.RUnlock()
	details, err := s.details(ctx, ids)
	if err != nil {
		return nil, err
	}
	weights := map[string]float64{}
	if decayOf != nil {
		if weights, err = decayOf(ctx, ids, now); err != nil {
			return nil, err
		}
	}
	out := make([]Similar, 0, len(hits))
	for i, h := range hits {
		d := details[ids[i]]
		w := 1.0
		if decayOf != nil {
			w = weights[ids[i]]
		}
		sim := float64(h.Score)
		out = append(out, Similar{ID: ids[i], Label: d.label, Aliases: d.aliases, Similarity: sim, Decay: w, Score: sim * w, Band: Band(sim)})
	}
	return out, nil
}

// decayFunc returns concepts' decay weights at now.
type decayFunc func(ctx context.Context, ids []string, now time.Time) (map[string]float64, error)

type detail struct {
	label   string
	aliases []string
}

func (s *Service) details(ctx context.Context, ids []string) (map[string]detail, error) {
	out := make(map[string]detail, len(ids))
	err := s.DB.ConceptNames(ctx, ids, func(id, label string, aliases []string) {
		out[id] = detail{label: label, aliases: aliases}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func degenerate(v []float32) bool {
	return vector.IsDegenerate(v)
}

package search

import (
	"context"
	"maps"
	"math"
	"math/bits"
	"sort"
	"strings"

	"github.com/noema-mem/noema"
)

// PassageDepth is how many of the best full-text candidates the passage
// lift (Tuning.PassageWeight) reads and rescores.
const PassageDepth = 50

// liftPassages rescores the best PassageDepth full-text hits by their best
// passage: a note whose best passage (PassageLines consecutive lines: a
// turn of a chat, a paragraph of prose) holds the query's rarer terms
// together gains on one that holds them scattered over its length. Each
// hit's BM25 is multiplied by 1 + PassageWeight × the IDF-weighted share
// of the query's terms found in that passage (so it stays negative and a
// lift only improves it); the hits are then sorted again as SearchText
// sorts them. Queries of one term, or with PassageWeight 0, are left as
// they are. Which terms a body holds is the index's to say (the per-term
// ranking's noema.TextHit.BodyTerms, else SearchBodyTerms), whatever the
// plan: a body holding fewer than two is lifted without reading it
// (needsBody). It returns the bodies it read and the terms' occurrences
// it found in them, by note id, for the snippets.
//
// When it must read bodies, it also reads those of the best page hits
// (need) that it has not: the snippets then need no statement of their own
// (they read the page's that are still missing).
func (s *Service) liftPassages(ctx context.Context, tv *textVersion, p *parsed, text []noema.TextHit, need int) ([]noema.TextHit, map[int64]readBody, error) {
	w := s.Tuning.PassageWeight
	if s.liftBodies(p) == 0 || len(text) < 2 {
		return text, nil, nil
	}
	idf, err := s.termIDF(ctx, tv, p)
	if err != nil {
		return nil, nil, err
	}
	n := min(len(text), PassageDepth)
	// The terms each body holds, by the index: the per-term ranking said
	// so of its hits; for the others, one statement asks.
	var unknown []int64
	for i := range n {
		if !text[i].TermsRead {
			unknown = append(unknown, text[i].ID)
		}
	}
	if len(unknown) > 0 {
		held, err := s.DB.SearchBodyTerms(ctx, p.exprs(), unknown)
		if err != nil {
			return nil, nil, err
		}
		for i := range n {
			if !text[i].TermsRead {
				text[i].BodyTerms, text[i].TermsRead = held[text[i].ID], true
			}
		}
	}
	var cjkTerms uint64 // the CJK terms' bits (needsBody)
	for i, t := range p.terms {
		if t.cjk {
			cjkTerms |= 1 << i
		}
	}
	bodies := make(map[int64]string, n)
	needs := make([]bool, n)
	// The bodies the lift needs that the ranking did not read
	// (noema.TextQuery.Bodies), and the page's it does not need.
	var ids, page []int64
	for i := range n {
		needs[i] = needsBody(text[i], cjkTerms)
		switch {
		case text[i].HasBody:
			bodies[text[i].ID] = text[i].Body
		case needs[i]:
			ids = append(ids, text[i].ID)
		case i < need:
			page = append(page, text[i].ID)
		}
	}
	if len(ids) > 0 {
		more, err := s.DB.SearchBodies(ctx, append(ids, page...))
		if err != nil {
			return nil, nil, err
		}
		maps.Copy(bodies, more)
	}
	lines := max(1, s.Tuning.PassageLines)
	read := make(map[int64]readBody, n)
	for i := range n {
		var b readBody
		if body, ok := bodies[text[i].ID]; ok || needs[i] {
			b = readBody{text: body, occ: occurrences(body, p)}
			read[text[i].ID] = b
		}
		if needs[i] {
			text[i].BM25 *= 1 + w*bestPassage(b.text, b.occ, idf, lines)
		} else {
			text[i].BM25 *= 1 + w*bodyShare(text[i].BodyTerms, idf)
		}
	}
	sort.SliceStable(text, func(i, j int) bool {
		a, b := text[i], text[j]
		if a.All != b.All {
			return a.All
		}
		if a.BM25 != b.BM25 {
			return a.BM25 < b.BM25
		}
		return a.Note.Path < b.Note.Path
	})
	return text, read, nil
}

// needsBody reports whether the passage lift must read h's body: when the
// index says it holds two of the terms or more, or a CJK term (the cjk
// column also holds the title's bigrams, so the index cannot tell a CJK
// term of the body from one of the title; cjk has their bits), or did not
// say (TermsRead false). A body holding one term has no passage holding
// two (bestPassage's share is that term's), one holding none no passage
// at all: for two rare words, most of the notes found.
//
// So which terms a body holds is the index's (its porter stemmer) for
// every plan; only in the bodies read does the snippets' matcher
// (occurrences: the stem as the start of any word) find where they meet.
func needsBody(h noema.TextHit, cjk uint64) bool {
	return !h.TermsRead || h.BodyTerms&cjk != 0 || bits.OnesCount64(h.BodyTerms) > 1
}

// bodyShare is bestPassage's share for a body holding the terms of mask,
// at most one: that term's IDF share, or 0.
func bodyShare(mask uint64, idf []float64) float64 {
	if mask == 0 {
		return 0
	}
	return max(0, idf[bits.TrailingZeros64(mask)])
}

// readBody is a note's indexed body and the query's terms' occurrences in
// it (occurrences), as the passage lift read them.
type readBody struct {
	text string
	occ  []occurrence
}

// liftBodies is how many bodies the passage lift reads for p: its
// PassageDepth (the ranking brings them, noema.TextQuery.Bodies, and the
// snippets reuse them), or none when it leaves p as it is (the snippets
// then read the page's alone: reading 50 bodies in the ranking cost more
// than a statement for ten, measured at 100,000 notes).
func (s *Service) liftBodies(p *parsed) int {
	if s.Tuning.PassageWeight <= 0 || len(p.terms) < 2 {
		return 0
	}
	return PassageDepth
}

// textBodies is how many of the best full-text hits' bodies the ranking
// statement reads (noema.TextQuery.Bodies): the passage lift's
// (liftBodies), unless its terms' cached counts say the ranking finds
// more notes than that (liftApart: none); for a query of one term in so
// few notes (by its count cached, countOne) that they are at most twice
// the page (need), every
// one's, which the snippets then need not read in a statement of their
// own (at 10,000 notes, a rare word's ten bodies apart cost more than its
// twenty in the ranking); else none. The count only chooses the cost: a
// stale one reads more or fewer bodies, and the snippets read the page's
// that are missing. The per-term plan (noema.TextQuery.Terms) reads no
// body in the ranking: rankText does not ask.
func (s *Service) textBodies(p *parsed, f noema.SearchFilter, need int) int {
	if n := s.liftBodies(p); n > 0 {
		if s.liftApart(p, n) {
			return 0
		}
		return n
	}
	if f.IsZero() {
		if docs, ok := s.oneTermDocs(p); ok && docs <= 2*need {
			return Depth
		}
	}
	return 0
}

// liftApart reports whether the passage lift's n bodies are better read
// in a statement of their own than in the ranking statement: when the
// query's terms, by their counts cached (at any version: a stale count
// only chooses the cost), are in more than n notes together. The ranking
// statement then has to number its notes by row_number() to read the best
// n's bodies, a window over every note ranked (up to the Depth), which
// cost more than the statement apart: for two rare words at 100,000
// notes (200-400 notes found) a tenth of the search (docs/search.md,
// Speed round 10).
func (s *Service) liftApart(p *parsed, n int) bool {
	if s.liftInRanking {
		return false
	}
	docs, _, _, ok := s.terms.cached(p.exprs())
	if !ok {
		return false
	}
	sum := 0
	for _, d := range docs {
		sum += d
	}
	return sum > n
}

// countOne counts the notes holding the term of a one-term query, when
// the ranking read the index's version (tv) and the count is not cached
// yet, for textBodies to choose by the next time.
func (s *Service) countOne(ctx context.Context, tv *textVersion, p *parsed, f noema.SearchFilter) error {
	if len(p.terms) != 1 || !f.IsZero() || !tv.read || tv.guess || s.liftBodies(p) > 0 {
		return nil
	}
	exprs := []string{p.terms[0].expr()}
	if _, ok := s.cachedDocs(tv, exprs); ok {
		return nil
	}
	_, _, err := s.termDocs(ctx, tv, exprs)
	return err
}

// termIDF returns each query term's share of the query's IDF (BM25's
// log(1 + (N − n + ½)/(n + ½)), n the notes holding it), summing to 1.
// The counts stop at half of the notes (termDocs), where the IDF is
// already small.
func (s *Service) termIDF(ctx context.Context, tv *textVersion, p *parsed) ([]float64, error) {
	docs, total, err := s.termDocs(ctx, tv, p.exprs())
	if err != nil {
		return nil, err
	}
	idf := make([]float64, len(docs))
	sum := 0.0
	for i, d := range docs {
		idf[i] = math.Log(1 + (float64(total-d)+0.5)/(float64(d)+0.5))
		sum += idf[i]
	}
	for i := range idf {
		if sum > 0 {
			idf[i] /= sum
		}
	}
	return idf, nil
}

// bestPassage returns the largest IDF share of the query's terms that any
// run of lines consecutive non-empty lines of body holds, occ being the
// terms' occurrences in body.
//
// Two cases skip the line table (each gives what it would): occurrences
// of one term only (rare words seldom meet: every window holding one holds
// that term alone), and passages of one line (two occurrences share a line
// when no line break lies between them; a line holding one is not empty).
func bestPassage(body string, occ []occurrence, idf []float64, lines int) float64 {
	if len(occ) == 0 {
		return 0
	}
	var terms uint64
	for _, o := range occ {
		terms |= 1 << o.term
	}
	if bits.OnesCount64(terms) == 1 {
		return max(0, idf[occ[0].term])
	}
	if lines == 1 {
		best := 0.0
		for i := 0; i < len(occ); {
			var seen uint64
			share := 0.0
			j := i
			for ; j < len(occ) && (j == i || strings.IndexByte(body[occ[j-1].a:occ[j].a], '\n') < 0); j++ {
				if t := occ[j].term; seen&(1<<t) == 0 {
					seen |= 1 << t
					share += idf[t]
				}
			}
			best = max(best, share)
			i = j
		}
		return best
	}
	return passageByLines(body, occ, idf, lines)
}

// passageByLines is bestPassage through a table of the non-empty lines'
// starts, for any number of lines.
func passageByLines(body string, occ []occurrence, idf []float64, lines int) float64 {
	// Line number of every occurrence.
	var starts []int // byte offset of each non-empty line
	for off := 0; off < len(body); {
		end := strings.IndexByte(body[off:], '\n')
		if end < 0 {
			end = len(body) - off
		}
		if strings.TrimSpace(body[off:off+end]) != "" {
			starts = append(starts, off)
		}
		off += end + 1
	}
	lineOf := func(at int) int { return sort.SearchInts(starts, at+1) - 1 }
	best := 0.0
	for i := 0; i < len(occ); {
		first := lineOf(occ[i].a)
		var seen uint64
		share := 0.0
		for j := i; j < len(occ) && lineOf(occ[j].a) < first+lines; j++ {
			if t := occ[j].term; seen&(1<<t) == 0 {
				seen |= 1 << t
				share += idf[t]
			}
		}
		best = max(best, share)
		// Next window: the first occurrence on a later line.
		for i < len(occ) && lineOf(occ[i].a) == first {
			i++
		}
	}
	return best
}

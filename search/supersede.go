package search

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/timeline"
)

// This file ranks notes over time (package timeline, docs/time.md): a
// superseded, expired or pending note is weighted down and placed below
// its successors, the successors the search did not find join the answer,
// and as_of leaves out the notes not written yet.

// view returns the timeline at the answer's time: as_of when given (an
// invalid one is invalid_argument), else now. Without a TimeIndex every
// note is current.
func (s *Service) view(ctx context.Context, asOf string, now time.Time) (timeline.View, error) {
	at, isAsOf := now, strings.TrimSpace(asOf) != ""
	if isAsOf {
		var err error
		if at, err = noema.ParseAsOf(asOf); err != nil {
			return timeline.View{}, err
		}
	}
	return s.timeline.View(ctx, s.Time, at, isAsOf)
}

// overTime applies the view to the weighed candidates: with as_of it
// leaves out the notes written after it; each successor of a superseded
// candidate (existing at the view's time) scores at least what that
// candidate scored (decay applied): it answers what the note it replaces
// answered, and takes its place. Those the search did not find join it
// when the filter admits them. Then every stale note is weighted by
// timeline.StaleWeight.
func (s *Service) overTime(ctx context.Context, v timeline.View, cands []*candidate, f noema.SearchFilter, now time.Time, useDecay bool) ([]*candidate, error) {
	if v.AsOf() {
		var err error
		if cands, err = s.existing(ctx, v, cands); err != nil {
			return nil, err
		}
	}
	if v.Empty() {
		return cands, nil
	}
	byID := make(map[int64]*candidate, len(cands))
	for _, c := range cands {
		byID[c.id] = c
		c.status = v.Status(c.id)
	}
	inherit := map[int64]float64{} // successor id -> the best score it takes over
	for _, c := range cands {
		if len(c.status.SupersededBy) == 0 {
			continue
		}
		for _, id := range v.Successors(c.id) {
			if sc, ok := inherit[id]; !ok || c.score > sc {
				inherit[id] = c.score
			}
		}
	}
	var added []*candidate
	for id, score := range inherit {
		if c := byID[id]; c != nil {
			c.score = max(c.score, score)
			continue
		}
		if n := v.Note(id); n != nil && v.Exists(id, n.Created) {
			added = append(added, &candidate{id: id, score: score, status: v.Status(id), successor: true})
		}
	}
	slices.SortFunc(added, func(a, b *candidate) int { return cmp.Compare(a.id, b.id) })
	if len(added) > 0 && !f.IsZero() {
		admitted, err := s.DB.SearchFilterIDs(ctx, f)
		if err != nil {
			return nil, err
		}
		added = slices.DeleteFunc(added, func(a *candidate) bool { return !admitted[a.id] })
	}
	if len(added) > 0 {
		if err := s.load(ctx, added, now); err != nil {
			return nil, err
		}
		cands = append(cands, added...)
	}
	for _, c := range cands {
		c.score *= c.status.Weight()
	}
	return cands, nil
}

// existing leaves out the candidates that do not exist at the view's
// time (written, or valid from, after as_of).
func (s *Service) existing(ctx context.Context, v timeline.View, cands []*candidate) ([]*candidate, error) {
	var ids []int64
	for _, c := range cands {
		if v.Note(c.id) == nil {
			ids = append(ids, c.id)
		}
	}
	created := map[int64]time.Time{}
	if len(ids) > 0 && s.Time != nil {
		var err error
		if created, err = s.Time.NoteCreated(ctx, ids); err != nil {
			return nil, err
		}
	}
	kept := cands[:0]
	for _, c := range cands {
		at, ok := created[c.id]
		if !ok {
			at = c.note.Modified // no TimeIndex: the note's own time
		}
		if v.Exists(c.id, at) {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// belowSuccessors places every candidate below the candidates that
// supersede it, its score lowered to theirs (see timeline.Below).
func belowSuccessors(cands []*candidate) {
	timeline.Below(cands, func(c *candidate) int64 { return c.id },
		func(c *candidate) []int64 { return c.status.SupersededBy },
		func(moved **candidate, succ *candidate) { (*moved).score = min((*moved).score, succ.score) })
}

// hitTime is what the hit of c says of its place in time.
func hitTime(v timeline.View, c *candidate) timeline.Place {
	p := v.Place(c.status)
	p.Successor = c.successor
	return p
}

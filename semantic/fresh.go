package semantic

import (
	"context"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/decay"
)

// find_similar_concepts ranks by similarity × decay, a concept's decay
// being the largest weight of the notes that mention it. Both decay curves
// fall with over = now − ref − grace(path), so that weight is the curve at
// now − E, E being the latest ref + grace over the concept's notes. The
// service keeps an upper bound of E for every concept (freshness), in step
// with the index through the graph log, and so bounds every candidate's
// score without a query; only the few candidates whose bound can still
// reach the k-th best score are weighed exactly, by their notes, as
// before (docs/embeddings.md, "Decay without a scan").

// dayNS is a day in nanoseconds (decay measures age in 24-hour days).
const dayNS = 24 * float64(time.Hour)

// boundSlackDays is taken off every bound's age so that the rounding of
// E (float64 nanoseconds, ≈ 256 ns at today's dates) and of the age in
// days can only raise a bound; boundSlack covers the last bits of the
// curves' own rounding.
const (
	boundSlackDays = 1e-6
	boundSlack     = 1 + 1e-9
)

// freshness is the service's bound of each concept's E, as Unix
// nanoseconds (float64): absent means no notes (weight 1), +Inf a note
// with no known time. It holds the E of every note, so that a concept
// read again (a key moved to it, its page changed) costs its note ids.
// Bounds only ever need to be at least the truth: a note that loses a
// link, or whose time moves back, leaves its concepts' bounds as they
// were until the next full read.
type freshness struct {
	mu     sync.Mutex
	read   bool  // the bounds were read
	at     int64 // graph log position the bounds hold at
	note   map[int64]noteFacts
	latest map[string]float64
	pages  map[int64][]string // note -> concepts whose page it is
	pageOf map[string]int64
	ver    int64 // counts changes to latest
	// byVID caches latest by vector id, for index generation gen and
	// freshness version ver.
	byVID        []float64
	vidGen, vidV int64
}

// noteFacts are what a note's decay weight is computed from: its
// modification time and last access (Unix ns, 0: never read), as
// ConceptNotes gives them, and its path's grace in days.
type noteFacts struct {
	modified, accessed int64
	grace              float64
}

// latest bounds the note's ref + grace (Unix ns) from above: the later of
// its times (never below decay.Reference's) plus its grace.
func (n noteFacts) latest() float64 {
	return float64(max(n.modified, n.accessed)) + n.grace*dayNS
}

// weight is the note's decay weight at now, as decay.Config.Weight gives
// it from ConceptNotes' values: the same arithmetic on the same inputs.
func (n noteFacts) weight(c decay.Config, now time.Time) float64 {
	var accessed time.Time
	if n.accessed != 0 {
		accessed = time.Unix(0, n.accessed)
	}
	return c.WeightGrace(n.grace, decay.Reference(time.Unix(0, n.modified), accessed), now)
}

// latestByVID brings the bounds in step with the index and returns them
// by vector id (+Inf where no bound is known) as of index generation
// gen. The slice is the service's: callers must not modify it.
func (s *Service) latestByVID(ctx context.Context, r noema.ConceptFreshnessReader) (latest []float64, gen int64, err error) {
	f := &s.fresh
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := s.freshen(ctx, r); err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if f.byVID != nil && f.vidGen == s.gen && f.vidV == f.ver {
		return f.byVID, s.gen, nil
	}
	out := make([]float64, len(s.byVID))
	for vid, e := range s.byVID {
		out[vid] = math.Inf(1)
		if e.id == "" {
			continue
		}
		if v, ok := f.latest[e.id]; ok {
			out[vid] = v
		}
	}
	f.byVID, f.vidGen, f.vidV = out, s.gen, f.ver
	return out, s.gen, nil
}

// freshen applies what changed in the index since the bounds were read
// (everything, the first time). The caller holds s.fresh.mu.
func (s *Service) freshen(ctx context.Context, r noema.ConceptFreshnessReader) error {
	f := &s.fresh
	type conceptE struct {
		id   string
		e    float64
		has  bool
		page int64
	}
	notes := map[int64]noteFacts{}
	gone := map[int64]bool{}
	var concepts []conceptE
	touched := map[string]float64{}
	noteE := func(id int64) (float64, bool) {
		if n, ok := notes[id]; ok {
			return n.latest(), true
		}
		if gone[id] {
			return 0, false
		}
		n, ok := f.note[id]
		return n.latest(), ok
	}
	since := int64(-1) // never read: everything
	if f.read {
		since = f.at
	}
	at, full, err := r.ConceptFreshness(ctx, since, func(note int64) []string { return f.pages[note] }, noema.FreshnessVisitor{
		Note: func(id int64, path string, mod, acc int64, live bool) {
			if !live {
				gone[id] = true
				return
			}
			notes[id] = noteFacts{modified: mod, accessed: acc, grace: s.Decay.Grace(path)}
		},
		Concept: func(id string, ns []int64, page int64) {
			c := conceptE{id: id, e: math.Inf(-1), page: page}
			for _, n := range ns {
				e, ok := noteE(n)
				if !ok {
					e = math.Inf(1) // not known: no bound
				}
				c.e, c.has = max(c.e, e), true
			}
			concepts = append(concepts, c)
		},
		Touch: func(id string, note int64) {
			e, ok := noteE(note)
			if !ok {
				e = math.Inf(1)
			}
			if old, seen := touched[id]; !seen || e > old {
				touched[id] = e
			}
		},
	})
	if err != nil {
		return err
	}
	if full {
		f.note, f.latest = notes, make(map[string]float64, len(concepts))
		f.pages, f.pageOf = map[int64][]string{}, map[string]int64{}
	} else if len(notes)+len(gone)+len(concepts)+len(touched) == 0 {
		f.at, f.read = at, true
		return nil
	}
	if !full {
		for id, e := range notes {
			f.note[id] = e
		}
		for id := range gone {
			delete(f.note, id)
		}
	}
	for _, c := range concepts {
		if old := f.pageOf[c.id]; old != 0 {
			f.pages[old] = slices.DeleteFunc(f.pages[old], func(id string) bool { return id == c.id })
			if len(f.pages[old]) == 0 {
				delete(f.pages, old)
			}
			delete(f.pageOf, c.id)
		}
		if c.page != 0 {
			f.pageOf[c.id] = c.page
			f.pages[c.page] = append(f.pages[c.page], c.id)
		}
		if c.has {
			f.latest[c.id] = c.e
		} else {
			delete(f.latest, c.id)
		}
	}
	for id, e := range touched {
		if old, ok := f.latest[id]; !ok || e > old {
			f.latest[id] = e
		}
	}
	f.at, f.read = at, true
	f.ver++
	return nil
}

// weightBound returns an upper bound of the decay weight, at now, of a
// concept whose notes' latest ref + grace is at most e (Unix ns): the
// curve at an age a little below now − e, so that no rounding can put it
// under the weight decay.Config.Weight computes. maxGrace is the longest
// grace in days (an age past what time.Duration holds saturates there).
func (s *Service) weightBound(e float64, now int64, maxGrace float64) float64 {
	if s.Decay.Disabled || math.IsInf(e, 1) {
		return 1
	}
	over := min((float64(now)-e)/dayNS, float64(math.MaxInt64)/dayNS-maxGrace) - boundSlackDays
	if !(over > 0) {
		return 1
	}
	return min(1, s.Decay.Curve(over)*boundSlack)
}

// RefreshDecay brings the decay bounds of find_similar_concepts in step
// with the index, reading them in full the first time, so that a server
// does it in the background rather than in its first answer. It does
// nothing when decay is off or the index cannot report freshness.
func (s *Service) RefreshDecay(ctx context.Context) error {
	r, ok := s.DB.(noema.ConceptFreshnessReader)
	if !ok || s.Decay.Disabled {
		return nil
	}
	_, _, err := s.latestByVID(ctx, r)
	return err
}

// exactDecay returns each of the concepts ids' decay weight at now, as
// conceptDecay computes it from their notes' rows, from the note ids the
// index gives and the notes' times the bounds keep (read in step with the
// index just before, by latestByVID); a concept with a note the bounds do
// not know yet (written meanwhile) is weighed from its notes' rows.
func (s *Service) exactDecay(ctx context.Context, r noema.ConceptFreshnessReader, ids []string, now time.Time) (map[string]float64, error) {
	out := make(map[string]float64, len(ids))
	var unknown []string
	f := &s.fresh
	f.mu.Lock()
	err := r.ConceptNoteIDs(ctx, ids, func(id string, notes []int64) {
		w, has := 0.0, false
		for _, n := range notes {
			facts, ok := f.note[n]
			if !ok {
				unknown = append(unknown, id)
				return
			}
			w, has = max(w, facts.weight(s.Decay, now)), true
		}
		if has {
			out[id] = w
		}
	})
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if len(unknown) > 0 {
		more, err := s.conceptDecay(ctx, unknown, now)
		if err != nil {
			return nil, err
		}
		maps.Copy(out, more)
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			out[id] = 1 // no notes: nothing says it is stale
		}
	}
	return out, nil
}

// Package timeline answers, for search_notes and build_context, which
// notes hold at a time: a note may supersede others (front matter
// `supersedes`) and hold only between `valid_from` and `valid_until`
// (docs/time.md). It reads nothing itself: a [View] evaluates a
// [noema.Timeline] (read through the port [noema.TimeIndex]) at one time,
// and [Below] orders a ranked list so that no note ranks above a note that
// supersedes it.
//
// The rules, at the time T of an answer (as_of, else now):
//
//   - A note starts at its valid_from, else when it was written (its
//     front matter `created`, else its file's modification time).
//   - With as_of, a note that starts after T does not exist yet: the
//     answer leaves it out. Without as_of nothing is left out; a note
//     whose valid_from is after now does not hold yet ([Status.Pending]).
//   - A note is superseded at T by the notes naming it in `supersedes`
//     that have started by T (with as_of; without, whose valid_from, if
//     any, is not after now). A note superseded after T is current at T.
//   - A note has expired at T when its valid_until is before T (a date
//     holds through its day).
//
// A note that is superseded, expired or pending is stale: it stays in the
// answer, weighted by [StaleWeight], and below its successors.
package timeline

import (
	"slices"
	"time"

	"github.com/noema-mem/noema"
)

// StaleWeight multiplies the score of a superseded, expired or pending
// note: it stays findable (a question about the past still finds it) but
// a current note about as relevant ranks above it. Decay is applied
// separately (docs/time.md).
const StaleWeight = 0.5

// View is a timeline evaluated at one time. The zero View (no timeline)
// makes every note current.
type View struct {
	tl   *noema.Timeline
	at   time.Time
	asOf bool
}

// NewView evaluates tl at at: the as_of of a call when asOf, else now.
func NewView(tl *noema.Timeline, at time.Time, asOf bool) View {
	return View{tl: tl, at: at, asOf: asOf}
}

// At returns the time the view evaluates.
func (v View) At() time.Time { return v.at }

// AsOf reports whether the view answers as of a past (or given) time,
// leaving out the notes that did not exist then.
func (v View) AsOf() bool { return v.asOf }

// Empty reports whether no note has a place in time: every note is
// current and nothing needs reading.
func (v View) Empty() bool { return v.tl == nil || len(v.tl.Notes) == 0 }

// Note returns the timeline's entry of a note, nil when it has none.
func (v View) Note(id int64) *noema.TimedNote {
	if v.tl == nil {
		return nil
	}
	return v.tl.Notes[id]
}

// Status is what a note is at a view's time.
type Status struct {
	// SupersededBy are the notes (row ids) superseding it at the time,
	// ascending.
	SupersededBy []int64
	// Supersedes are the notes it names in `supersedes`, ascending.
	Supersedes []int64
	// Expired: its valid_until is before the time.
	Expired bool
	// Pending: its valid_from is after the time (only without as_of: with
	// as_of such a note does not exist yet).
	Pending bool
	// ValidFrom and ValidUntil are its bounds (zero: none).
	ValidFrom, ValidUntil time.Time
}

// Stale reports whether the note does not hold at the time: superseded,
// expired or pending.
func (s Status) Stale() bool { return len(s.SupersededBy) > 0 || s.Expired || s.Pending }

// Weight is the factor on the note's score: StaleWeight when stale, else 1.
func (s Status) Weight() float64 {
	if s.Stale() {
		return StaleWeight
	}
	return 1
}

// Exists reports whether the note exists at the view's time: always
// without as_of; with it, when it starts (valid_from, else created, the
// time it was written) at or before the time.
func (v View) Exists(id int64, created time.Time) bool {
	if !v.asOf {
		return true
	}
	start := created
	if n := v.Note(id); n != nil {
		start = n.Start()
	}
	return !start.After(v.at)
}

// started reports whether the timeline note n has started by the view's
// time, as a successor must have to supersede.
func (v View) started(n *noema.TimedNote) bool {
	if v.asOf {
		return !n.Start().After(v.at)
	}
	return n.ValidFrom.IsZero() || !n.ValidFrom.After(v.at)
}

// Status returns what the note with row id id is at the view's time.
func (v View) Status(id int64) Status {
	n := v.Note(id)
	if n == nil {
		return Status{}
	}
	s := Status{Supersedes: n.Supersedes, ValidFrom: n.ValidFrom, ValidUntil: n.ValidUntil}
	for _, by := range n.SupersededBy {
		if succ := v.Note(by); succ != nil && v.started(succ) {
			s.SupersededBy = append(s.SupersededBy, by)
		}
	}
	s.Expired = !n.ValidUntil.IsZero() && v.at.After(n.ValidUntil)
	s.Pending = !v.asOf && !n.ValidFrom.IsZero() && n.ValidFrom.After(v.at)
	return s
}

// Successors returns the notes that supersede id at the view's time,
// directly or through a chain (the successor's successors), nearest
// first, each once; id itself is never among them.
func (v View) Successors(id int64) []int64 {
	var out []int64
	seen := map[int64]bool{id: true}
	frontier := []int64{id}
	for len(frontier) > 0 {
		var next []int64
		for _, f := range frontier {
			for _, by := range v.Status(f).SupersededBy {
				if !seen[by] {
					seen[by] = true
					out = append(out, by)
					next = append(next, by)
				}
			}
		}
		frontier = next
	}
	return out
}

// Below reorders items, a list in rank order, so that no item ranks above
// an item that supersedes it: an item above one of its successors moves
// to just below the lowest of them, and lower is called with it and that
// successor (to lower its score to the successor's, so that scores stay in
// order). The other items keep their order. A cycle of supersession
// (A supersedes B, B supersedes A) cannot be ordered: it stops moving
// after as many passes as there are items, in an order that depends only
// on the input.
func Below[T any](items []T, id func(T) int64, supersededBy func(T) []int64, lower func(moved *T, successor T)) {
	if len(items) < 2 {
		return
	}
	// Each pass moves every item that is above a successor; a chain of n
	// notes settles in n passes. A cycle would move forever: stop after
	// as many passes as there are items.
	for range len(items) {
		moved := false
		for i := 0; i < len(items); i++ {
			succ := supersededBy(items[i])
			if len(succ) == 0 {
				continue
			}
			last := -1
			for j := i + 1; j < len(items); j++ {
				if slices.Contains(succ, id(items[j])) {
					last = j
				}
			}
			if last < 0 {
				continue
			}
			it := items[i]
			lower(&it, items[last])
			copy(items[i:last], items[i+1:last+1])
			items[last] = it
			moved = true
			// The item now at i is looked at in the next pass.
		}
		if !moved {
			return
		}
	}
}

// Place is what a listed note (a search hit, a build_context note) says of
// its place in time; every field is absent for a note that holds and
// replaces nothing.
type Place struct {
	// SupersededBy are the memory:// URIs of the notes that supersede it
	// at the answer's time (they rank above it).
	SupersededBy []string `json:"superseded_by,omitempty"`
	// Supersedes are the URIs of the notes it names in `supersedes`.
	Supersedes []string `json:"supersedes,omitempty"`
	// Expired: its valid_until is before the answer's time.
	Expired bool `json:"expired,omitempty"`
	// NotYetValid: its valid_from is after now (without as_of).
	NotYetValid bool `json:"not_yet_valid,omitempty"`
	// ValidFrom and ValidUntil are its front matter's bounds.
	ValidFrom  time.Time `json:"valid_from,omitzero"`
	ValidUntil time.Time `json:"valid_until,omitzero"`
	// Successor: the search did not find this note; it is listed because
	// it supersedes a note it found (Supersedes names which).
	Successor bool `json:"successor,omitempty"`
}

// Place returns the place in time of a note whose status is s.
func (v View) Place(s Status) Place {
	return Place{SupersededBy: v.uris(s.SupersededBy), Supersedes: v.uris(s.Supersedes),
		Expired: s.Expired, NotYetValid: s.Pending, ValidFrom: s.ValidFrom, ValidUntil: s.ValidUntil}
}

// uris are the memory:// URIs of the timeline's notes among ids.
func (v View) uris(ids []int64) []string {
	var out []string
	for _, id := range ids {
		if n := v.Note(id); n != nil {
			out = append(out, noema.NoteURI(n.Path))
		}
	}
	return out
}

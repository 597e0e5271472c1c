package recall

import (
	"slices"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/timeline"
)

// This file places build_context's notes in time (package timeline,
// docs/time.md): the notes that hold are listed first, then the
// superseded, expired or pending ones, each below the listed notes that
// supersede it; as_of leaves out the notes not written yet, of the notes
// listed and of co-occurrence alike, and moves decay's "now" to it.

// overTime reads the timeline at the answer's time (asOf when given,
// already checked by BuildContext; else now) and, with as_of, which notes
// of the graph did not exist yet.
func (k *call) overTime(asOf string) error {
	at, isAsOf := k.now, strings.TrimSpace(asOf) != ""
	var err error
	if isAsOf {
		if at, err = noema.ParseAsOf(asOf); err != nil {
			return err
		}
		k.now = at // decay counts from as_of
	}
	s := k.s
	if k.view, err = s.timeline.View(k.ctx, s.Time, at, isAsOf); err != nil {
		return err
	}
	if s.Time == nil || !isAsOf {
		return nil
	}
	ids := make([]int64, 0, k.g.NumNotes())
	for i := range k.g.NumNotes() {
		if n := k.g.NoteAt(int32(i)); !n.Deleted {
			ids = append(ids, n.ID)
		}
	}
	created, err := s.Time.NoteCreated(k.ctx, ids)
	if err != nil {
		return err
	}
	k.gone = make([]bool, k.g.NumNotes())
	for i := range k.g.NumNotes() {
		n := k.g.NoteAt(int32(i))
		at, ok := created[n.ID]
		k.gone[i] = n.Deleted || !ok || !k.view.Exists(n.ID, at)
	}
	return nil
}

// existing returns the notes (indexes) that exist at the answer's time.
func (k *call) existing(notes []int32) []int32 {
	if k.gone == nil {
		return notes
	}
	return slices.DeleteFunc(slices.Clone(notes), func(i int32) bool { return k.gone[i] })
}

// compareTime orders two notes (indexes) by their place in time: a note
// that holds first, one that is superseded, expired or pending after it
// (-1 when a comes first, 1 when b does, 0 when alike). build_context
// lists notes by freshness, not relevance: a note that no longer holds is
// the least fresh.
func (k *call) compareTime(a, b int32) int {
	if k.view.Empty() {
		return 0
	}
	sa := k.view.Status(k.g.NoteAt(a).ID).Stale()
	sb := k.view.Status(k.g.NoteAt(b).ID).Stale()
	switch {
	case sa == sb:
		return 0
	case sb:
		return -1
	}
	return 1
}

// belowSuccessors places every listed note below the listed notes that
// supersede it (timeline.Below).
func (k *call) belowSuccessors(top []int32) {
	if k.view.Empty() {
		return
	}
	timeline.Below(top, func(i int32) int64 { return k.g.NoteAt(i).ID },
		func(i int32) []int64 { return k.view.Status(k.g.NoteAt(i).ID).SupersededBy },
		func(*int32, int32) {})
}

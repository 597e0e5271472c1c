package timeline_test

import (
	"slices"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/timeline"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func day(n int) time.Time { return t0.AddDate(0, 0, n) }

// fixture: a preference stated (1), changed (2 supersedes 1), changed
// again (3 supersedes 2); a plan (4) replaced from day 20 (5 supersedes
// 4, valid_from day 20); an offer (6) valid until day 10.
func fixture() *noema.Timeline {
	return &noema.Timeline{Version: 1, Notes: map[int64]*noema.TimedNote{
		1: {ID: 1, Path: "p1.md", Created: day(0), SupersededBy: []int64{2}},
		2: {ID: 2, Path: "p2.md", Created: day(5), Supersedes: []int64{1}, SupersededBy: []int64{3}},
		3: {ID: 3, Path: "p3.md", Created: day(9), Supersedes: []int64{2}},
		4: {ID: 4, Path: "plan.md", Created: day(1), SupersededBy: []int64{5}},
		5: {ID: 5, Path: "plan2.md", Created: day(2), ValidFrom: day(20), Supersedes: []int64{4}},
		6: {ID: 6, Path: "offer.md", Created: day(0), ValidUntil: noema.EndOfDay(day(10).Truncate(24 * time.Hour))},
	}}
}

func TestStatus(t *testing.T) {
	tl := fixture()
	cases := []struct {
		name        string
		at          time.Time
		asOf        bool
		id          int64
		by          []int64
		expired     bool
		pending     bool
		exists      bool
		successors  []int64
		createdLone time.Time // for a note outside the timeline
	}{
		{"now: the first preference is superseded by the second", day(30), false, 1, []int64{2}, false, false, true, []int64{2, 3}, time.Time{}},
		{"now: the last preference is current", day(30), false, 3, nil, false, false, true, nil, time.Time{}},
		{"as of day 1 only the first exists, and is current", day(1), true, 1, nil, false, false, true, nil, time.Time{}},
		{"as of day 1 the second does not exist yet", day(1), true, 2, nil, false, false, false, nil, time.Time{}},
		{"as of day 6 the second is current", day(6), true, 2, nil, false, false, true, nil, time.Time{}},
		{"as of day 6 the first is superseded", day(6), true, 1, []int64{2}, false, false, true, []int64{2}, time.Time{}},
		{"now (day 15): the plan's successor starts on day 20, so the plan holds", day(15), false, 4, nil, false, false, true, nil, time.Time{}},
		{"now (day 15): the successor is pending", day(15), false, 5, nil, false, true, true, nil, time.Time{}},
		{"as of day 15 the successor does not exist yet", day(15), true, 5, nil, false, false, false, nil, time.Time{}},
		{"as of day 21 the plan is superseded", day(21), true, 4, []int64{5}, false, false, true, []int64{5}, time.Time{}},
		{"the offer holds through day 10", day(10).Add(11 * time.Hour), false, 6, nil, false, false, true, nil, time.Time{}},
		{"the offer has expired on day 11", day(11), false, 6, nil, true, false, true, nil, time.Time{}},
		{"as of day 11 too", day(11), true, 6, nil, true, false, true, nil, time.Time{}},
		{"a note outside the timeline written before as_of exists", day(3), true, 99, nil, false, false, true, nil, day(2)},
		{"a note outside the timeline written after as_of does not", day(3), true, 99, nil, false, false, false, nil, day(4)},
		{"without as_of every note exists", day(3), false, 99, nil, false, false, true, nil, day(4)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := timeline.NewView(tl, c.at, c.asOf)
			s := v.Status(c.id)
			if !slices.Equal(s.SupersededBy, c.by) || s.Expired != c.expired || s.Pending != c.pending {
				t.Errorf("Status = %+v; want superseded by %v, expired %v, pending %v", s, c.by, c.expired, c.pending)
			}
			if got := v.Exists(c.id, c.createdLone); got != c.exists {
				t.Errorf("Exists = %v, want %v", got, c.exists)
			}
			if got := v.Successors(c.id); !slices.Equal(got, c.successors) {
				t.Errorf("Successors = %v, want %v", got, c.successors)
			}
			if s.Stale() != (len(c.by) > 0 || c.expired || c.pending) {
				t.Errorf("Stale = %v", s.Stale())
			}
		})
	}
}

func TestEmptyView(t *testing.T) {
	var v timeline.View
	if !v.Empty() || v.Status(1).Stale() || !v.Exists(1, t0) {
		t.Fatal("the zero view must make every note current")
	}
}

type item struct {
	id    int64
	score float64
	by    []int64
}

func TestBelow(t *testing.T) {
	cases := []struct {
		name  string
		items []item
		want  []int64
	}{
		{"a chain in reverse", []item{{1, 0.9, []int64{2}}, {2, 0.8, []int64{3}}, {3, 0.7, nil}}, []int64{3, 2, 1}},
		{"already in order", []item{{3, 0.9, nil}, {2, 0.8, []int64{3}}, {1, 0.7, []int64{2}}}, []int64{3, 2, 1}},
		{"others keep their places", []item{{1, 0.9, []int64{3}}, {7, 0.8, nil}, {3, 0.7, nil}, {8, 0.6, nil}}, []int64{7, 3, 1, 8}},
		{"a successor not in the list moves nothing", []item{{1, 0.9, []int64{5}}, {7, 0.8, nil}}, []int64{1, 7}},
		{"below the lowest of two successors", []item{{1, 0.9, []int64{2, 3}}, {2, 0.8, nil}, {4, 0.75, nil}, {3, 0.7, nil}}, []int64{2, 4, 3, 1}},
		{"a cycle ends", []item{{1, 0.9, []int64{2}}, {2, 0.8, []int64{1}}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items := slices.Clone(c.items)
			timeline.Below(items, func(it item) int64 { return it.id }, func(it item) []int64 { return it.by },
				func(moved *item, succ item) { moved.score = min(moved.score, succ.score) })
			var got []int64
			for i, it := range items {
				got = append(got, it.id)
				if i > 0 && it.score > items[i-1].score && c.want != nil {
					t.Errorf("scores out of order: %+v", items)
				}
			}
			if c.want != nil && !slices.Equal(got, c.want) {
				t.Errorf("order = %v, want %v", got, c.want)
			}
			if len(got) != len(c.items) {
				t.Errorf("items lost: %v", got)
			}
		})
	}
}

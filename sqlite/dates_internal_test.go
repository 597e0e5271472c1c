package sqlite

import "testing"

// TestDatesOf checks how a write moves a linked concept's times without a
// pass over its links (issue 21: a note linking a hub concept must not
// re-read the hub's links), and when it must take the pass.
func TestDatesOf(t *testing.T) {
	keys := func(ks ...string) map[string]bool {
		m := map[string]bool{}
		for _, k := range ks {
			m[k] = true
		}
		return m
	}
	const c0, u0 = 100, 500 // the hub's stored earliest creation and latest modification
	tests := []struct {
		name     string
		d        noteDates
		ok       bool
		cre, upd int64
	}{
		{"a new note linking the hub", noteDates{has: true, newCreated: 600, newModified: 600, newKeys: keys("hub")}, true, c0, 600},
		{"an older new note", noteDates{has: true, newCreated: 50, newModified: 60, newKeys: keys("hub")}, true, 50, u0},
		{"an append to the latest note", noteDates{had: true, oldCreated: 200, oldModified: u0, oldKeys: keys("hub"),
			has: true, newCreated: 200, newModified: 700, newKeys: keys("hub")}, true, c0, 700},
		{"an edit of a middle note", noteDates{had: true, oldCreated: 200, oldModified: 300, oldKeys: keys("hub"),
			has: true, newCreated: 200, newModified: 400, newKeys: keys("hub")}, true, c0, u0},
		{"a note not linking the hub", noteDates{has: true, newCreated: 1, newModified: 900, newKeys: keys("other")}, true, c0, u0},
		{"the latest note unlinks the hub", noteDates{had: true, oldCreated: 200, oldModified: u0, oldKeys: keys("hub"),
			has: true, newCreated: 200, newModified: 600, newKeys: keys("other")}, false, 0, 0},
		{"the earliest note is deleted", noteDates{had: true, oldCreated: c0, oldModified: 300, oldKeys: keys("hub")}, false, 0, 0},
		{"the latest note goes back in time", noteDates{had: true, oldCreated: 200, oldModified: u0, oldKeys: keys("hub"),
			has: true, newCreated: 200, newModified: 450, newKeys: keys("hub")}, false, 0, 0},
		{"the earliest note loses its creation time", noteDates{had: true, oldCreated: c0, oldModified: 300, oldKeys: keys("hub"),
			has: true, newCreated: 0, newModified: 300, newKeys: keys("hub")}, false, 0, 0},
		{"a new note of unknown creation", noteDates{has: true, newCreated: 0, newModified: 300, newKeys: keys("hub")}, true, c0, u0},
	}
	for _, tt := range tests {
		c := &Change{dates: []noteDates{tt.d}}
		cre, upd, ok := c.datesOf("hub", c0, u0)
		if ok != tt.ok || (ok && (cre != tt.cre || upd != tt.upd)) {
			t.Errorf("%s: datesOf = %d, %d, %v; want %d, %d, %v", tt.name, cre, upd, ok, tt.cre, tt.upd, tt.ok)
		}
	}
	if _, _, ok := (&Change{}).datesOf("hub", 0, u0); ok {
		t.Error("a concept of unknown creation settled without a pass")
	}
}

package sqlite

import "testing"

// TestParseVersions checks the versions' column of a ranking statement
// (rankVersioned): the text version, the graph log's position and a
// concept registry version that may be empty or hold spaces.
func TestParseVersions(t *testing.T) {
	for _, c := range []struct {
		in       string
		text     int64
		seq      int64
		concepts string
	}{
		{"12 40 ", 12, 40, ""},
		{"-1 0 c7", -1, 0, "c7"},
		{"3 9 a b  c", 3, 9, "a b  c"},
	} {
		text, seq, concepts, err := parseVersions(c.in)
		if err != nil || text != c.text || seq != c.seq || concepts != c.concepts {
			t.Errorf("parseVersions(%q) = %d, %d, %q, %v; want %d, %d, %q", c.in, text, seq, concepts, err, c.text, c.seq, c.concepts)
		}
	}
	for _, in := range []string{"", "12", "12 40", "x 40 c", "12 y c"} {
		if _, _, _, err := parseVersions(in); err == nil {
			t.Errorf("parseVersions(%q): no error", in)
		}
	}
}

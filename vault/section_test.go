package vault

import "testing"

func TestFindSection(t *testing.T) {
	doc := "intro\n" +
		"# Title\n" +
		"top text\n" +
		"## Notes\n" +
		"note text\n" +
		"### Detail\n" +
		"detail text\n" +
		"```\n" +
		"## Not A Heading\n" +
		"```\n" +
		"## Next ##\n" +
		"next text\n" +
		"> ## Quoted\n" +
		"#NoSpace is a tag\n" +
		"# Last"
	tests := []struct {
		heading string
		want    string
		ok      bool
	}{
		{"Notes", "note text\n### Detail\ndetail text\n```\n## Not A Heading\n```\n", true},
		{"## notes", "note text\n### Detail\ndetail text\n```\n## Not A Heading\n```\n", true},
		{"  ###   NOTES  ", "note text\n### Detail\ndetail text\n```\n## Not A Heading\n```\n", true},
		{"Detail", "detail text\n```\n## Not A Heading\n```\n", true},
		{"Next", "next text\n> ## Quoted\n#NoSpace is a tag\n", true}, // closing #'s are not text
		{"Title", "top text\n## Notes\nnote text\n### Detail\ndetail text\n```\n## Not A Heading\n```\n## Next ##\nnext text\n> ## Quoted\n#NoSpace is a tag\n", true},
		{"Last", "", true}, // last line, no line break
		{"Not A Heading", "", false},
		{"Quoted", "", false},
		{"NoSpace is a tag", "", false},
		{"Missing", "", false},
		{"", "", false},
		{"#", "", false},
	}
	for _, tt := range tests {
		start, end, ok := FindSection([]byte(doc), tt.heading)
		if ok != tt.ok {
			t.Errorf("FindSection(%q) ok = %v, want %v", tt.heading, ok, tt.ok)
			continue
		}
		if got := doc[start:end]; ok && got != tt.want {
			t.Errorf("FindSection(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

func TestFindSectionEdges(t *testing.T) {
	tests := []struct {
		name, doc, heading, want string
	}{
		{"heading at end with newline", "# A\n", "A", ""},
		{"empty section", "# A\n# B\nb\n", "A", ""},
		{"setext does not end a section", "# A\na\nB\n---\nmore\n", "A", "a\nB\n---\nmore\n"},
		{"crlf", "# A\r\nx\r\n# B\r\n", "A", "x\r\n"},
		{"indented heading", "   ## A\nx\n", "A", "x\n"},
		{"4 spaces is code", "    # A\nx\n# A\ny\n", "A", "y\n"},
		{"first match wins", "# A\n1\n# A\n2\n", "A", "1\n"},
		{"lower level does not end", "## A\n1\n### B\n2\n# C\n", "A", "1\n### B\n2\n"},
		{"heading in list is not a section end", "# A\n- # B\n  text\n# C\n", "A", "- # B\n  text\n"},
		{"html block hides heading", "# A\n<div>\n# B\n</div>\n\n# C\n", "A", "<div>\n# B\n</div>\n\n"},
	}
	for _, tt := range tests {
		start, end, ok := FindSection([]byte(tt.doc), tt.heading)
		if !ok {
			t.Errorf("%s: not found", tt.name)
			continue
		}
		if got := tt.doc[start:end]; got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

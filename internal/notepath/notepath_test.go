package notepath

import (
	"testing"

	"github.com/noema-mem/noema"
)

func TestNote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a.md", "a.md"},
		{"./notes//a.md", "notes/a.md"},
		{"deep/folder/Ä b.md", "deep/folder/Ä b.md"},
		{"a.txt", ""},
		{"notes/", ""},
		{"../a.md", ""},
		{"/a.md", ""},
		{"C:/a.md", ""},
		{"./C:/a.md", ""},
		{".noema/a.md", ""},
		{"a/.x.md", ""},
		{"a\\b.md", ""},
		{"a\x00.md", ""},
		{"bad\xff.md", ""},
		{"", ""},
		{".", ""},
	} {
		got, err := Note(tc.in)
		if tc.want == "" {
			if noema.ErrorCode(err) != noema.EINVALID {
				t.Errorf("Note(%q) = %q, %v; want invalid_argument", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Note(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

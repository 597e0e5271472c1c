package notepath

import (
	"cmp"
	"slices"
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

// TestCompareIsTheWalkOrder: Compare sorts paths as a walk that lists
// each folder's entries by name and descends into a folder where its name
// sorts — the order sync merges the walk with the indexed notes in.
func TestCompareIsTheWalkOrder(t *testing.T) {
	// In the walk's order: each folder's names sorted, "a" (a folder)
	// before "a b.md", "a-", "a.md", "ab" (its name is a prefix of theirs).
	walk := []string{"A.md", "a/b/c.md", "a/z.md", "a b.md", "a-/y.md", "a.md", "ab/x.md", "ab/y/z.md", "b.md", "é.md", "é/x.md"}
	// "é.md" and "é/x.md": the folder "é" sorts before the name "é.md".
	walk[len(walk)-2], walk[len(walk)-1] = "é/x.md", "é.md"
	for i, a := range walk {
		for j, b := range walk {
			if got, want := Compare(a, b), cmp.Compare(i, j); got != want {
				t.Errorf("Compare(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
	shuffled := slices.Clone(walk)
	slices.Reverse(shuffled)
	slices.SortFunc(shuffled, Compare)
	if !slices.Equal(shuffled, walk) {
		t.Errorf("sorted: %q, want %q", shuffled, walk)
	}
}

// BenchmarkCompare: two paths of one folder, as a sync's merge compares
// them.
func BenchmarkCompare(b *testing.B) {
	x, y := "Projects and plans/Quarterly review of the roadmap.md", "Projects and plans/Quarterly review of the budget.md"
	for b.Loop() {
		if Compare(x, y) <= 0 {
			b.Fatal("order")
		}
	}
}

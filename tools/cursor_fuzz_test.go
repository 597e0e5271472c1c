package tools

import (
	"errors"
	"testing"

	"github.com/noema-mem/noema"
)

// FuzzReadCursor: a cursor is a client's string. Whatever it holds,
// readCursor either returns exactly n non-negative offsets or an
// invalid_argument error on the cursor parameter, and never panics; a
// cursor it made itself reads back to the offsets it was made from.
func FuzzReadCursor(f *testing.F) {
	f.Add("", 1, 0, 0)
	f.Add(cursor{"search_notes", "0123456789abcdef", []int{20}}.String(), 1, 20, 0)
	f.Add(cursor{"build_context", "fedcba9876543210", []int{3, 0, 7, 1}}.String(), 4, 3, 7)
	f.Add(cursor{"search_notes", "0123456789abcdef", []int{-3}}.String(), 1, 0, 0)   // forged: a negative offset
	f.Add(cursor{"search_notes", "0123456789abcdef", []int{1, 2}}.String(), 1, 0, 0) // forged: too many offsets
	f.Add("!!not base64!!", 2, 1, 2)
	f.Fuzz(func(t *testing.T, s string, n, a, b int) {
		if n < 1 || n > 4 {
			n = 1 + abs(n)%4
		}
		const tool, print = "search_notes", "0123456789abcdef"
		offs, err := readCursor(s, tool, print, n)
		if err != nil {
			var e *noema.Error
			if !errors.As(err, &e) || e.Code != noema.EINVALID || e.Param != "cursor" {
				t.Fatalf("readCursor(%q): error %v is not invalid_argument on cursor", s, err)
			}
		} else {
			if len(offs) != n {
				t.Fatalf("readCursor(%q): %d offsets, want %d", s, len(offs), n)
			}
			for _, o := range offs {
				if o < 0 {
					t.Fatalf("readCursor(%q): negative offset %d", s, o)
				}
			}
		}
		want := make([]int, n)
		want[0] = abs(a)
		want[n-1] = abs(b)
		got, err := readCursor(cursor{tool, print, want}.String(), tool, print, n)
		if err != nil {
			t.Fatalf("a cursor readCursor made is refused: %v", err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round trip of %v: %v", want, got)
			}
		}
	})
}

func abs(x int) int {
	if x < 0 {
		if x == -x { // the most negative int
			return 0
		}
		return -x
	}
	return x
}

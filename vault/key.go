package vault

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema/internal/ascii"
	"github.com/noema-mem/noema/internal/notepath"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Key normalizes a concept label into the key that identifies the concept:
// Unicode NFKC, case-folded (full Unicode case folding), runs of whitespace,
// '_' and '-' collapsed into one space, and trimmed. So
// "Gradient_Checkpointing", "gradient-checkpointing" and
// "  gradient   checkpointing " all have the key "gradient checkpointing".
//
// Other punctuation is kept ("C++" and "C" are different concepts), and so are
// other dashes such as '–'. Invalid UTF-8 sequences are kept as they are.
func Key(s string) string {
	if ascii.Is(s) {
		if isASCIIKey(s) {
			return s
		}
		return collapse(s, true)
	}
	// NFKC before folding (compatibility forms fold like their targets) and
	// after (folding can produce decomposed sequences, e.g. for 'İ').
	s = norm.NFKC.String(s)
	s = cases.Fold().String(s)
	s = norm.NFKC.String(s)
	return collapse(s, false)
}

// isSep reports whether r separates words in a key.
func isSep(r rune) bool {
	return r == '_' || r == '-' || unicode.IsSpace(r)
}

// collapse lowercases ASCII letters when lower is set, replaces runs of
// separators by one space and trims them at both ends.
func collapse(s string, lower bool) string {
	var b strings.Builder
	b.Grow(len(s))
	pendingSpace := false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if isSep(r) {
			pendingSpace = b.Len() > 0
			i += size
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
			pendingSpace = false
		}
		if lower && 'A' <= r && r <= 'Z' {
			b.WriteByte(byte(r) + 'a' - 'A')
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isASCIIKey reports whether the ASCII string s is already a key.
func isASCIIKey(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z', c == '_', c == '-', c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		case c == ' ' && s[i+1] == ' ':
			return false
		}
	}
	return true
}

// MaxSlugBytes bounds the length of a [Slug] in bytes. With ".md" and a
// de-duplicating suffix such as "-12" a file name stays far below the
// 255-byte limit of common file systems, even for scripts that need three
// bytes per character.
const MaxSlugBytes = 100

// Slug turns a title into a readable file-name stem that is valid on Linux,
// macOS and Windows:
//
//   - the title is NFKC-normalized and lowercased;
//   - Unicode letters, digits and combining marks are kept, so "日本語のメモ"
//     stays "日本語のメモ" and "Café Déjà vu" becomes "café-déjà-vu";
//   - every other character (spaces, punctuation, symbols, emoji, characters
//     that are illegal in file names on some OS such as <>:"/\|?*, control
//     characters) becomes a separator; runs of separators become one '-',
//     trimmed at both ends;
//   - the result is cut to at most [MaxSlugBytes] bytes, on a rune boundary;
//   - it is never empty ("untitled") and never a Windows reserved device name
//     ("con", "nul", "com1", … get a trailing '_').
func Slug(title string) string {
	title = norm.NFKC.String(title)
	var b strings.Builder
	b.Grow(len(title))
	pendingDash := false
	lastKept := false // the previous rune was kept (a mark may follow it)
	for _, r := range title {
		keep := unicode.IsLetter(r) || unicode.IsDigit(r) ||
			(lastKept && unicode.IsMark(r))
		if !keep {
			pendingDash = b.Len() > 0
			lastKept = false
			continue
		}
		r = unicode.ToLower(r)
		size := utf8.RuneLen(r)
		extra := 0
		if pendingDash {
			extra = 1
		}
		if b.Len()+extra+size > MaxSlugBytes {
			break
		}
		if pendingDash {
			b.WriteByte('-')
			pendingDash = false
		}
		b.WriteRune(r)
		lastKept = true
	}
	s := b.String()
	if s == "" {
		return "untitled"
	}
	if notepath.WindowsReserved(s) {
		s += "_"
	}
	return s
}

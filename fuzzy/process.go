package fuzzy

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema/internal/ascii"
)

// Processor transforms a string before it is scored. A nil Processor leaves
// strings unchanged, which is RapidFuzz's default (processor=None) since 3.0.
type Processor func(string) string

// DefaultProcess is RapidFuzz's C++ utils.default_process: every code point
// that is a letter (Lu Ll Lt Lm Lo) or a number (Nd Nl No) in the Unicode 13.0
// tables is replaced by its simple lowercase mapping (one code point, no
// final-sigma rule, ß unchanged); every other code point, '_' and combining
// marks included, becomes U+0020. Leading and trailing U+0020 are then
// trimmed; runs of spaces inside the string are kept.
//
// Letters and numbers assigned after Unicode 13.0 are treated as
// non-alphanumeric, as the C++ tables do. Invalid UTF-8 bytes read as U+FFFD
// (a symbol) and so become spaces.
func DefaultProcess(s string) string {
	if ascii.Is(s) {
		b := make([]byte, len(s))
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
				b[i] = c
			case c >= 'A' && c <= 'Z':
				b[i] = c + ('a' - 'A')
			default:
				b[i] = ' '
			}
		}
		return strings.Trim(string(b), " ")
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		sb.WriteRune(processRune(r))
	}
	return strings.Trim(sb.String(), " ")
}

// processRune maps one code point the way DefaultProcess does.
func processRune(r rune) rune {
	if isAlnum13(r) {
		return unicode.ToLower(r)
	}
	return ' '
}

// isAlnum13 reports whether r is a letter or number in Unicode 13.0, which is
// what CPython's str.isalnum and RapidFuzz's C++ tables use.
func isAlnum13(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	if !unicode.IsLetter(r) && !unicode.IsNumber(r) {
		return false
	}
	return !inPost13(r)
}

// inPost13 reports whether r is in post13Alnum.
func inPost13(r rune) bool {
	lo, hi := 0, len(post13Alnum)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case r < post13Alnum[m][0]:
			hi = m
		case r > post13Alnum[m][1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// ParseProcessor returns the processor with the given name: "default" (also
// "default_process") for DefaultProcess, and "none" or "" for nil.
func ParseProcessor(name string) (Processor, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "default", "default_process", "defaultprocess":
		return DefaultProcess, nil
	case "", "none":
		return nil, nil
	}
	return nil, fmt.Errorf("unknown processor %q: %w", name, ErrInvalidArgument)
}

// apply runs p on s, or returns s if p is nil.
func (p Processor) apply(s string) string {
	if p == nil {
		return s
	}
	return p(s)
}

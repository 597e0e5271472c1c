// Package cjk holds the one rule the full-text index and its queries must
// share for scripts written without spaces (Chinese, Japanese, Korean):
// which characters those are ([Is]) and how a note's runs of them are cut
// into the bigrams the index's cjk column holds ([Bigrams]).
//
// It sits under internal/ rather than in package search because the index
// adapter (package sqlite, which writes the column) may import only the
// root package, and the rule is not a domain type: it is tokenization
// detail that search (building the query) and sqlite (writing the row)
// agree on. It imports only the standard library.
package cjk

import (
	"strings"
	"unicode"
)

// Is reports whether r is written without spaces between words: Han
// ideographs, Hiragana, Katakana (and the prolonged sound mark) and Hangul.
// Runs of these are indexed as overlapping bigrams (see [Bigrams]).
func Is(r rune) bool {
	if r < 0x1100 { // Hangul Jamo, the first of these scripts
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r) || r == 'ー'
}

// Bigrams is the text the index's cjk column holds for a note: for every
// run of CJK characters (see [Is]) in the texts, its overlapping bigrams
// followed by its last character alone, space-separated; other text is
// left out. A query's CJK run of n ≥ 2 characters is then the phrase of its
// n−1 bigrams, which matches exactly where the run occurs as a substring;
// one character is a prefix query, which the trailing unigram makes
// complete. The sqlite package calls it when it writes a note's FTS row.
func Bigrams(texts ...string) string {
	var b strings.Builder
	for _, text := range texts {
		if !maybe(text) {
			continue
		}
		var run []rune
		flush := func() {
			if len(run) == 0 {
				return
			}
			for i := 0; i+1 < len(run); i++ {
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(string(run[i : i+2]))
			}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(run[len(run)-1])
			run = run[:0]
		}
		for _, r := range text {
			if Is(r) {
				run = append(run, r)
				continue
			}
			flush()
		}
		flush()
	}
	return b.String()
}

// maybe reports whether text has a character from U+0800 on, the only
// ones that can be CJK: in UTF-8 they start with a byte from 0xE0. Most
// notes have none, and this is a quick look at bytes.
func maybe(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0xE0 {
			return true
		}
	}
	return false
}

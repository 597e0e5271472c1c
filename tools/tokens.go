package tools

import "unicode/utf8"

// EstimateTokens estimates how many tokens a model's tokenizer makes of b,
// in one pass and without a vocabulary. It follows the way byte-pair
// tokenizers of the cl100k and o200k kind cut text before merging: a run of
// letters is a word (a space before it joins it), at most five letters a
// token; a run of digits is cut into groups of at most three (a space
// before it is a token); a run of other ASCII symbols (JSON's ":", "},{")
// is a token per two; a run of line breaks or spaces is one; each
// non-ASCII character (accented letters, «», Chinese, Japanese) is one, and
// one outside the Basic Multilingual Plane (emoji) three.
//
// It is meant to overestimate: on noema's own answers and on the project's
// docs, source, hex ids and numbers it came out at 1.00 to 1.35 times
// cl100k_base's and o200k_base's counts, never below (docs/budgets.md has
// the figures and the command), so a budget kept by this estimate is kept
// by those tokenizers.
func EstimateTokens(b []byte) int {
	n := 0
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c >= utf8.RuneSelf:
			_, size := utf8.DecodeRune(b[i:])
			n++
			if size == 4 {
				n += 2
			}
			i += size
		case isLetter(c):
			j := i
			for j < len(b) && isLetter(b[j]) {
				j++
			}
			n += (j - i + 4) / 5
			i = j
		case isDigit(c):
			j := i
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			n += (j - i + 2) / 3
			i = j
		case c == ' ' && i+1 < len(b) && isLetter(b[i+1]):
			i++ // joins the word after it
		case isSpace(c):
			j := i
			for j < len(b) && isSpace(b[j]) {
				j++
			}
			n++
			i = j
		default:
			j := i
			for j < len(b) && b[j] < utf8.RuneSelf && !isLetter(b[j]) && !isDigit(b[j]) && !isSpace(b[j]) {
				j++
			}
			n += (j - i + 1) / 2
			i = j
		}
	}
	return n
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

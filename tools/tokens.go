package tools

import "unicode/utf8"

// EstimateTokens estimates how many tokens a model's tokenizer makes of b,
// in one pass and without a vocabulary. It follows the way byte-pair
// tokenizers of the cl100k and o200k kind cut text before merging: a run of
// letters is a word (a space before it joins it), cut where a capital
// follows a small letter, at most five letters a token (three in capitals
// only); a run of digits is cut into groups of at most three (a space
// before it is a token); a run of other ASCII symbols (JSON's ":", "},{")
// is a token per two; a run of line breaks or spaces is one; a non-ASCII
// character is one when it takes two bytes (accented letters, «»), one and
// a half when it takes three (Chinese, Japanese, most symbols) and three
// when it takes four (emoji).
//
// It is meant to overestimate: on noema's own answers it came out at 1.08
// to 1.36 times the larger of cl100k_base's and o200k_base's counts, and at
// 1.00 to 1.59 on the project's docs, source, ids, numbers and Chinese and
// Japanese text, never below (docs/budgets.md has the figures and the
// command), so a budget kept by this estimate is kept by those tokenizers.
func EstimateTokens(b []byte) int {
	n, wide := 0, 0 // wide counts three-byte characters, a token and a half each
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c >= utf8.RuneSelf:
			_, size := utf8.DecodeRune(b[i:])
			switch size {
			case 3:
				wide++
			case 4:
				n += 3
			default:
				n++
			}
			i += size
		case isLetter(c):
			j := i
			for j < len(b) && isLetter(b[j]) {
				j++
			}
			n += letterTokens(b[i:j])
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
	return n + (3*wide+1)/2
}

// letterTokens estimates a run of ASCII letters: cut where a capital
// follows a small letter (camelCase, MiB), each piece a token per five
// letters, or per three when it is capitals only (GOMEMLIMIT, HTTP).
func letterTokens(run []byte) int {
	n := 0
	for start := 0; start < len(run); {
		end, caps := start+1, isUpper(run[start])
		for end < len(run) && !(isUpper(run[end]) && !isUpper(run[end-1])) {
			caps = caps && isUpper(run[end])
			end++
		}
		if size := end - start; caps && size > 1 {
			n += (size + 2) / 3
		} else {
			n += (size + 4) / 5
		}
		start = end
	}
	return n
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

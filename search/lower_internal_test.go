package search

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/noema-mem/noema/internal/cjk"
)

// TestASCIILower checks the eight-bytes-at-a-time asciiLower against the
// byte loop it replaced, on random bytes (every value, so multi-byte runes
// and invalid UTF-8 too) of every length around the word size, and on text.
func TestASCIILower(t *testing.T) {
	ref := func(s string) string {
		b := []byte(s)
		for i := range b {
			if 'A' <= b[i] && b[i] <= 'Z' {
				b[i] += 'a' - 'A'
			}
		}
		return string(b)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		for range 2000 {
			b := make([]byte, n)
			for i := range b {
				switch rng.IntN(3) {
				case 0:
					b[i] = byte(rng.IntN(256))
				case 1:
					b[i] = byte('@' + rng.IntN(28)) // around 'A'..'Z'
				default:
					b[i] = byte(0xC0 + rng.IntN(28)) // high bytes sharing the low bits of capitals
				}
			}
			if got, want := asciiLower(string(b)), ref(string(b)); got != want {
				t.Fatalf("asciiLower(%q) = %q, want %q", b, got, want)
			}
		}
	}
	for _, s := range []string{"", "abc", "Kubernetes ÄÖÜ Straße ΣΑΣ 東京 ZZZZZZZZZZ @[`{", "ALL CAPS TEXT OF SOME LENGTH"} {
		if got, want := asciiLower(s), ref(s); got != want {
			t.Errorf("asciiLower(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestClean checks the one-pass clean against strings.Fields joined by
// spaces (what it replaced), on random bytes (white space of every kind,
// multi-byte runes, invalid UTF-8) and on text.
func TestClean(t *testing.T) {
	ref := func(s string) string {
		s = strings.Join(strings.Fields(s), " ")
		if utf8.RuneCountInString(s) > 3*SnippetChars {
			s = string([]rune(s)[:3*SnippetChars]) + Ellipsis
		}
		return s
	}
	pieces := []string{" ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u0085", "\u2003", "\u3000", "a", "Z", "é", "東", "\xff", "\xe2\x80", "«", "…"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if s := b.String(); clean(s) != ref(s) {
			t.Fatalf("clean(%q) = %q, want %q", s, clean(s), ref(s))
		}
	}
	for _, s := range []string{"", "   ", "a", " a  b\n\nc ", strings.Repeat("word ", 200), strings.Repeat("東", 600)} {
		if got, want := clean(s), ref(s); got != want {
			t.Errorf("clean(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestBestPassageShortcuts checks bestPassage's two shortcuts (one term;
// passages of one line) against the line table they skip, on random
// bodies of words, line breaks and blank lines with random occurrences.
func TestBestPassageShortcuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"word ", "other ", "\n", "\n\n", "\n  \n", " \t", "é "}
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		body := b.String()
		terms := 1 + rng.IntN(4)
		idf := make([]float64, terms)
		for i := range idf {
			idf[i] = rng.Float64()
		}
		var occ []occurrence
		for a := 0; a < len(body); a++ {
			if !asciiSpace(body[a]) && rng.IntN(6) == 0 { // a term is never white space
				occ = append(occ, occurrence{a, a + 1, rng.IntN(terms)})
			}
		}
		for lines := 1; lines <= 3; lines++ {
			if got, want := bestPassage(body, occ, idf, lines), passageByLines(body, occ, idf, lines); got != want {
				t.Fatalf("bestPassage(%q, %v, %v, %d) = %v, want %v", body, occ, idf, lines, got, want)
			}
		}
	}
}

// TestIndexFold checks indexFold against bytes.Index on the lowered text
// on random text over a small alphabet of both cases (so needles occur,
// overlap and nearly occur), with needles cut from it and random ones, at
// every anchor; and occurrences, which uses it, against the same search
// over a lowered copy.
func TestIndexFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "aAbBqzZ é\n"
	for range 20000 {
		text := make([]byte, rng.IntN(60))
		for i := range text {
			text[i] = alphabet[rng.IntN(len(alphabet))]
		}
		lower := lowerInto(nil, string(text))
		var needle []byte
		if len(text) > 0 && rng.IntN(2) == 0 {
			a := rng.IntN(len(text))
			needle = lower[a : a+rng.IntN(len(text)-a)+1]
		} else {
			needle = make([]byte, rng.IntN(5)+1)
			for i := range needle {
				needle[i] = alphabet[rng.IntN(len(alphabet))]
			}
			needle = lowerInto(nil, string(needle))
		}
		want := bytes.Index(lower, needle)
		for anchor := range needle {
			if got := indexFold(string(text), needle, anchor); got != want {
				t.Fatalf("indexFold(%q, %q, %d) = %d, want %d", text, needle, anchor, got, want)
			}
		}
		if got := indexFold(string(text), needle, rarestByte(needle)); got != want {
			t.Fatalf("indexFold(%q, %q, rarest) = %d, want %d", text, needle, got, want)
		}
	}
	if got := rarestByte([]byte("seize")); got != 3 {
		t.Errorf("rarestByte(seize) = %d, want 3 (z)", got)
	}
	// occurrences as it was: every term searched in a lowered copy.
	ref := func(text string, p *parsed) []occurrence {
		lower := lowerInto(nil, text)
		var out []occurrence
		for ti, tm := range p.terms {
			needle, _ := p.needle(ti)
			if len(needle) == 0 {
				continue
			}
			for from := 0; from < len(lower) && len(out) < 1000; {
				i := bytes.Index(lower[from:], needle)
				if i < 0 {
					break
				}
				a, b := from+i, from+i+len(needle)
				if tm.cjk {
					out = append(out, occurrence{a, b, ti})
					from = b
					continue
				}
				if a > 0 && isWordRuneBefore(text, a) {
					from = b
					continue
				}
				for b < len(text) {
					r, size := utf8.DecodeRuneInString(text[b:])
					if !isWordRune(r) || cjk.Is(r) {
						break
					}
					b += size
				}
				out = append(out, occurrence{a, b, ti})
				from = b
			}
		}
		if !strictlyByStart(out) {
			sort.Slice(out, func(i, j int) bool { return out[i].a < out[j].a })
		}
		return out
	}
	words := []string{"Compress", "compression", "ZIP", "zipper", "東京", "Läuft", "run", "RUNNING", "a", "data"}
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString([]string{" ", "\n", ", ", "", "-"}[rng.IntN(5)])
		}
		q := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
		p := parse(q)
		if got, want := occurrences(b.String(), p), ref(b.String(), p); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Fatalf("occurrences(%q, %q) = %v, want %v", b.String(), q, got, want)
		}
	}
}

// BenchmarkClean cleans snippet-sized windows of Markdown.
func BenchmarkClean(b *testing.B) {
	w := window(strings.Repeat("Some *words* of a note,\n  with  a [[Link]] and — dashes.\n\n", 8), 30)
	for b.Loop() {
		clean(w)
	}
}

// TestMarkTermsFolds checks that markTerms marks and folds white space as
// marking every occurrence and then cleaning the whole did, on random text
// of words, query terms, white space of every kind and CJK runs.
func TestMarkTermsFolds(t *testing.T) {
	slow := func(w string, p *parsed) string {
		return strings.Join(strings.Fields(oldMarkTerms(w, p)), " ") // clean, without the cap
	}
	pieces := []string{" ", "  ", "\n", "\t", "\u00a0", "\u3000", "cat", "Cats", "zebra", "zebras!", "東京", "都", "x", "é", "(", "…", "\xff"}
	queries := []string{"cat zebra", "cats", "東京 zebra", "x", "é"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		w := b.String()
		p := parse(queries[rng.IntN(len(queries))])
		if got, want := markTerms(w, p), slow(w, p); got != want || clean(got) != got {
			t.Fatalf("markTerms(%q) = %q, want %q", w, got, want)
		}
	}
}

// BenchmarkMarkClean marks two terms in snippet windows of Markdown and
// cleans them, as the snippets do.
func BenchmarkMarkClean(b *testing.B) {
	body := strings.Repeat("Some *words* of a note about kiktrum,\n  with  a [[Link]] and — dashes.\n\n", 8)
	p := parse("kiktrum pensho")
	w := window(body, 30)
	for b.Loop() {
		capRunes(markTerms(w, p))
	}
}

package static

import (
	"math"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func mustTable(tb testing.TB) *table {
	tb.Helper()
	t, err := loadTable()
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// entries returns the text of every id: pieces as they are, words with
// their boundary mark.
func entries(t *table) map[int32]string {
	byID := make(map[int32]string, len(t.pieces)+len(t.words))
	for p, id := range t.pieces {
		if id >= 0 {
			byID[id] = p
		}
	}
	for w, id := range t.words {
		byID[id] = space + w
	}
	return byID
}

// pieceText returns the pieces of text as strings, "�" for unknown runs.
func pieceText(t *table, text string) []string {
	var s scratch
	byID := entries(t)
	var out []string
	for _, id := range t.tokenize(&s.lat, normalize(&s.norm, text)) {
		if id == unknownID {
			out = append(out, "�")
			continue
		}
		out = append(out, byID[id])
	}
	return out
}

// TestTokenizeLikeTeacher: without its words, the table's tokenizer
// segments these texts as the teacher's tokenizer does
// (@energetic-ai/embeddings 0.2.0, Tokenizer.encode).
func TestTokenizeLikeTeacher(t *testing.T) {
	pieces := *mustTable(t)
	pieces.words = nil
	tab := &pieces
	checkPieces(t, tab, []struct{ text, want string }{
		{"Hello world, I moved to Berlin last week.", "▁H ello ▁world , ▁I ▁moved ▁to ▁Ber lin ▁last ▁week ."},
		{"gradient checkpointing", "▁gra d ient ▁check point ing"},
		{"When did Maria adopt the puppy?", "▁When ▁did ▁Maria ▁adopt ▁the ▁puppy ?"},
		{"naïve coöperation", "▁na � ve ▁co ö per ation"},
		{"東京の地下鉄 rocks", "▁ � ▁rock s"},
		{"C++ & Go 1.26", "▁C ++ ▁& ▁Go ▁1. 26"},
		{"ﬁve ①", "▁five ▁1"},
		{"unbelievably", "▁un bel ie v ably"},
		{"I'm here :)", "▁I ' m ▁here ▁:)"},
	})
}

// checkPieces fails for each text whose pieces (see pieceText, joined by
// spaces) are not want.
func checkPieces(t *testing.T, tab *table, cases []struct{ text, want string }) {
	t.Helper()
	for _, tc := range cases {
		if got := strings.Join(pieceText(tab, tc.text), " "); got != tc.want {
			t.Errorf("%q: pieces %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestTokenizeWords: a whole word of the table is one span, as written or
// in lower case, only where the word ends; elsewhere pieces.
func TestTokenizeWords(t *testing.T) {
	tab := mustTable(t)
	if len(tab.words) == 0 {
		t.Fatal("the table has no words")
	}
	checkPieces(t, tab, []struct{ text, want string }{
		{"checkpoint.", "▁checkpoint ."},
		{"Checkpoint, please.", "▁checkpoint , ▁please ."},
		{"Puppies!", "▁puppies !"},
		{"checkpointx", "▁check point x"},
		{"checkpointé", "▁check point é"},
	})
}

// TestNormalize: white space and control runs are one boundary; NFKC.
func TestNormalize(t *testing.T) {
	var b strings.Builder
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{" \t\n ", ""},
		{"a", "▁a"},
		{"  two\t\twords \n", "▁two▁words"},
		{"ﬁ\u00a0x", "▁fi▁x"},
		{"a\x00b", "▁a▁b"},
	} {
		if got := normalize(&b, tc.in); got != tc.want {
			t.Errorf("normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// bestScore is a reference for segment: the highest total score of a
// segmentation of s, by memoized recursion over every piece that is a
// prefix of the rest (slow, and written otherwise than the lattice).
func bestScore(t *table, s string) float64 {
	memo := map[int]float64{len(s): 0}
	var rec func(i int) float64
	rec = func(i int) float64 {
		if v, ok := memo[i]; ok {
			return v
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		best := float64(t.unkScore) + rec(i+size)
		if rest, ok := strings.CutPrefix(s[i:], space); ok {
			word, _, _ := strings.Cut(strings.Map(func(r rune) rune {
				if r < utf8.RuneSelf && unicode.IsLetter(r) {
					return r
				}
				return '|'
			}, rest), "|")
			next, _ := utf8.DecodeRuneInString(rest[len(word):])
			_, as := t.words[word]
			_, lower := t.words[strings.ToLower(word)]
			if word != "" && (as || lower) && !unicode.IsLetter(next) && !unicode.IsDigit(next) {
				best = math.Max(best, rec(i+len(space)+len(word)))
			}
		}
		for p, id := range t.pieces {
			if id >= 0 && strings.HasPrefix(s[i:], p) && (i+len(p) == len(s) || utf8.RuneStart(s[i+len(p)])) {
				best = math.Max(best, float64(t.score[id])+rec(i+len(p)))
			}
		}
		memo[i] = best
		return best
	}
	return rec(0)
}

// checkSegment fails unless segment's spans tile s, each span is its
// piece or one unknown character, and their total is the best score.
func checkSegment(t *testing.T, tab *table, s string) {
	t.Helper()
	var l lattice
	spans := tab.segment(&l, s)
	at := int32(0)
	total := 0.0
	byID := entries(tab)
	for _, sp := range spans {
		if sp.start != at || sp.end <= sp.start || int(sp.end) > len(s) {
			t.Fatalf("%q: span %+v does not follow %d", s, sp, at)
		}
		text := s[sp.start:sp.end]
		switch {
		case sp.id < 0:
			if _, size := utf8.DecodeRuneInString(text); size != len(text) {
				t.Fatalf("%q: unknown span %q is not one character", s, text)
			}
			total += float64(tab.unkScore)
		case int(sp.id) >= len(tab.score):
			if !strings.EqualFold(byID[sp.id], text) {
				t.Fatalf("%q: span %q has word %d %q", s, text, sp.id, byID[sp.id])
			}
		case byID[sp.id] != text:
			t.Fatalf("%q: span %q has piece %d %q", s, text, sp.id, byID[sp.id])
		default:
			total += float64(tab.score[sp.id])
		}
		at = sp.end
	}
	if int(at) != len(s) {
		t.Fatalf("%q: spans end at %d of %d", s, at, len(s))
	}
	if want := bestScore(tab, s); math.Abs(total-want) > 1e-3*math.Max(1, math.Abs(want)) {
		t.Fatalf("%q: segmentation scores %v, the best is %v", s, total, want)
	}
}

func TestSegmentIsBest(t *testing.T) {
	tab := mustTable(t)
	var b strings.Builder
	for _, text := range []string{"", "unbelievably", "gradient checkpointing", "東京 rocks", "a\xffb\xe2\x82", "C++ & Go 1.26"} {
		checkSegment(t, tab, normalize(&b, text))
		checkSegment(t, tab, text) // not normalized: any bytes
	}
}

// FuzzTokenize: on any input the segmentation tiles the text, is the best
// one, and the vector is unit length or zero, never NaN.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Hello world", "naïve coöperation", "東京の地下鉄", "\xff\xfe", "I'm here :)", "  \t"} {
		f.Add(s)
	}
	tab := mustTable(f)
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 200 {
			return // the reference is slow
		}
		var s scratch
		checkSegment(t, tab, normalize(&s.norm, text))
		checkSegment(t, tab, text)
		v := tab.embed(&s, text)
		var sum float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("%q: component %v", text, x)
			}
			sum += float64(x) * float64(x)
		}
		if sum != 0 && math.Abs(sum-1) > 1e-4 {
			t.Fatalf("%q: squared norm %v", text, sum)
		}
		if (sum == 0) != (normalize(&s.norm, text) == "") {
			t.Fatalf("%q: zero vector %v, but normalized text %q", text, sum == 0, normalize(&s.norm, text))
		}
	})
}

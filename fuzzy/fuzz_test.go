package fuzzy

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// This file holds a naive reference implementation written directly from
// SPEC.md, sharing no code with the package: a quadratic LCS, every window of
// partial_ratio, token sets as Go string sets. The optimized scorers must
// agree with it bit for bit (cutoff 0).

func refLCS(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func refRatio(a, b []rune) float64 {
	l := len(a) + len(b)
	if l == 0 {
		return 100
	}
	d := l - 2*refLCS(a, b)
	return (1 - float64(d)/float64(l)) * 100
}

func refBestWindow(n, h []rune) float64 {
	best := 0.0
	for i := -(len(n) - 1); i < len(h); i++ {
		w := h[max(0, i):min(len(h), i+len(n))]
		best = max(best, refRatio(n, w))
	}
	return best
}

func refPartial(a, b []rune) float64 {
	if len(a) == 0 || len(b) == 0 {
		if len(a) == 0 && len(b) == 0 {
			return 100
		}
		return 0
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	best := refBestWindow(a, b)
	if len(a) == len(b) && best < 100 {
		best = max(best, refBestWindow(b, a))
	}
	return best
}

func refIsSpace(c rune, wide bool) bool {
	if c == ' ' || c >= '\t' && c <= '\r' || c >= 0x1C && c <= 0x1F {
		return true
	}
	return wide && (c == 0x85 || c == 0xA0 || c == 0x1680 || c >= 0x2000 && c <= 0x200A ||
		c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000)
}

func refTokens(s string) []string {
	wide := strings.IndexFunc(s, func(c rune) bool { return c > 0xFF }) >= 0
	toks := strings.FieldsFunc(s, func(c rune) bool { return refIsSpace(c, wide) })
	slices.Sort(toks)
	return toks
}

func refSet(toks []string) []string { return slices.Compact(slices.Clone(toks)) }

func refNorm(d, l int) float64 {
	if l == 0 {
		return 100
	}
	return 100 - 100*float64(d)/float64(l)
}

func refTokenSort(a, b string) float64 {
	return refRatio([]rune(strings.Join(refTokens(a), " ")), []rune(strings.Join(refTokens(b), " ")))
}

func refTokenSet(a, b string) float64 {
	A, B := refSet(refTokens(a)), refSet(refTokens(b))
	if len(A) == 0 || len(B) == 0 {
		return 0
	}
	var inter, da, db []string
	for _, t := range A {
		if slices.Contains(B, t) {
			inter = append(inter, t)
		} else {
			da = append(da, t)
		}
	}
	for _, t := range B {
		if !slices.Contains(A, t) {
			db = append(db, t)
		}
	}
	if len(inter) > 0 && (len(da) == 0 || len(db) == 0) {
		return 100
	}
	sect, ab, ba := strings.Join(inter, " "), []rune(strings.Join(da, " ")), []rune(strings.Join(db, " "))
	ls, la, lb := utf8.RuneCountInString(sect), len(ab), len(ba)
	sep := 0
	if ls > 0 {
		sep = 1
	}
	lab, lba := ls+sep+la, ls+sep+lb
	r1 := refNorm(la+lb-2*refLCS(ab, ba), lab+lba)
	if ls == 0 {
		return r1
	}
	return max(r1, refNorm(sep+la, ls+lab), refNorm(sep+lb, ls+lba))
}

func refPartialTokenRatio(a, b string) float64 {
	ta, tb := refTokens(a), refTokens(b)
	A, B := refSet(ta), refSet(tb)
	for _, t := range A {
		if slices.Contains(B, t) {
			return 100
		}
	}
	r := refPartial([]rune(strings.Join(ta, " ")), []rune(strings.Join(tb, " ")))
	if len(A) == len(ta) && len(B) == len(tb) {
		return r
	}
	return max(r, refPartial([]rune(strings.Join(A, " ")), []rune(strings.Join(B, " "))))
}

func refWRatio(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 || len(rb) == 0 {
		return 0
	}
	lenRatio := float64(max(len(ra), len(rb))) / float64(min(len(ra), len(rb)))
	end := refRatio(ra, rb)
	if lenRatio < 1.5 {
		return max(end, max(refTokenSet(a, b), refTokenSort(a, b))*0.95)
	}
	scale := 0.9
	if lenRatio > 8 {
		scale = 0.6
	}
	end = max(end, refPartial(ra, rb)*scale)
	return max(end, refPartialTokenRatio(a, b)*0.95*scale)
}

// refScore is the reference value of a scorer with cutoff 0.
func refScore(sc Scorer, a, b string) float64 {
	switch sc {
	case ScorerRatio:
		return refRatio([]rune(a), []rune(b))
	case ScorerPartialRatio:
		return refPartial([]rune(a), []rune(b))
	case ScorerTokenSortRatio:
		return refTokenSort(a, b)
	case ScorerTokenSetRatio:
		return refTokenSet(a, b)
	case ScorerTokenRatio:
		return max(refTokenSet(a, b), refTokenSort(a, b))
	case ScorerPartialTokenSortRatio:
		return refPartial([]rune(strings.Join(refTokens(a), " ")), []rune(strings.Join(refTokens(b), " ")))
	case ScorerPartialTokenSetRatio:
		A, B := refSet(refTokens(a)), refSet(refTokens(b))
		if len(A) == 0 || len(B) == 0 {
			return 0
		}
		for _, t := range A {
			if slices.Contains(B, t) {
				return 100
			}
		}
		return refPartial([]rune(strings.Join(A, " ")), []rune(strings.Join(B, " ")))
	case ScorerPartialTokenRatio:
		return refPartialTokenRatio(a, b)
	case ScorerWRatio:
		return refWRatio(a, b)
	case ScorerQRatio:
		if a == "" || b == "" {
			return 0
		}
		return refRatio([]rune(a), []rune(b))
	}
	panic("unknown scorer")
}

// TestReferenceVectors checks the reference itself against vectors.tsv, so
// that agreeing with it means something.
func TestReferenceVectors(t *testing.T) {
	for _, row := range readTSV(t, "testdata/vectors.tsv") {
		if row[6] != "" { // the reference has no cutoff
			continue
		}
		sc, err := ParseScorer(row[1])
		if err != nil {
			t.Fatal(err)
		}
		s1, s2 := unescape(t, row[2]), unescape(t, row[3])
		if row[4] == "default" {
			s1, s2 = DefaultProcess(s1), DefaultProcess(s2)
		}
		if got, want := refScore(sc, s1, s2), mustFloat(t, row[5]); got != want {
			t.Errorf("line %s: reference %s = %v, want %v", row[0], row[1], got, want)
		}
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return f
}

// TestAgainstReference compares every scorer with the reference on random
// strings that stress tokens, separators, wide code points, equal lengths and
// needles longer than 64 code points.
func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 3000
	if testing.Short() {
		n = 500
	}
	for i := range n {
		a, b := randomText(r), randomText(r)
		switch i % 7 {
		case 1: // b contains a
			b = randomText(r) + a + randomText(r)
		case 2: // equal lengths
			ra := []rune(a)
			rb := []rune(randomText(r) + randomText(r) + a)
			if len(rb) >= len(ra) {
				b = string(rb[:len(ra)])
			}
		case 3: // shared tokens
			b = b + " " + strings.Join(strings.Fields(a), " ")
		}
		for _, sc := range Scorers() {
			want := refScore(sc, a, b)
			if got := sc.Score(a, b, 0); got != want {
				t.Fatalf("%v(%q, %q) = %v, reference %v", sc, a, b, got, want)
			}
		}
	}
}

// checkScorers checks the properties every scorer must have on one pair.
func checkScorers(t *testing.T, a, b string, cutoff float64) {
	for _, sc := range Scorers() {
		v := sc.Score(a, b, 0)
		if !(v >= 0 && v <= 100) {
			t.Fatalf("%v(%q, %q) = %v, outside [0, 100]", sc, a, b, v)
		}
		if ref := refScore(sc, a, b); v != ref && utf8.RuneCountInString(a)*utf8.RuneCountInString(b) <= 40000 {
			t.Fatalf("%v(%q, %q) = %v, reference %v", sc, a, b, v, ref)
		}
		// With a cutoff the score is the plain score or 0; away from exact
		// float boundaries (SPEC 8.4) it is determined by the comparison.
		vc := sc.Score(a, b, cutoff)
		if vc != 0 && vc != v {
			t.Fatalf("%v(%q, %q, cutoff %v) = %v, plain %v", sc, a, b, cutoff, vc, v)
		}
		if v >= cutoff+1e-9 && vc != v || v < cutoff-1e-9 && vc != 0 {
			t.Fatalf("%v(%q, %q, cutoff %v) = %v, plain %v", sc, a, b, cutoff, vc, v)
		}
		if sc.Score(a, b, math.Nextafter(100, 101)) != 0 {
			t.Fatalf("%v(%q, %q) with cutoff > 100 is not 0", sc, a, b)
		}
	}
	for _, sc := range []Scorer{ScorerWRatio, ScorerRatio, ScorerQRatio, ScorerPartialRatio, ScorerTokenSetRatio, ScorerTokenSortRatio} {
		if x, y := sc.Score(a, b, 0), sc.Score(b, a, 0); x != y {
			t.Fatalf("%v not symmetric: (%q, %q) = %v, reversed %v", sc, a, b, x, y)
		}
	}
	// Identical strings: 100, except where the spec says otherwise (SPEC 6).
	hasTokens := len(refTokens(a)) > 0
	for _, sc := range Scorers() {
		want := 100.0
		switch sc {
		case ScorerWRatio, ScorerQRatio:
			if a == "" {
				want = 0
			}
		case ScorerTokenSetRatio, ScorerPartialTokenSetRatio:
			if !hasTokens {
				want = 0
			}
		}
		if got := sc.Score(a, a, 0); got != want {
			t.Fatalf("%v(%q, itself) = %v, want %v", sc, a, got, want)
		}
	}
}

// checkExtract checks that pruned, parallel extraction equals scoring every
// choice, and that Choices agrees with the plain scorers.
func checkExtract(t *testing.T, query string, texts []string) {
	ctx := context.Background()
	for _, proc := range []Processor{nil, DefaultProcess} {
		c := NewChoices(texts, proc)
		for _, sc := range []Scorer{ScorerWRatio, ScorerPartialRatio, ScorerTokenSetRatio, ScorerRatio} {
			for _, limit := range []int{1, 3, -1} {
				want, err := c.unpruned().Extract(ctx, query, sc, limit, 0)
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.WithWorkers(2).Extract(ctx, query, sc, limit, 0)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%v %q limit %d: pruned %v, unpruned %v", sc, query, limit, got, want)
				}
				for _, m := range want {
					if s := sc.Score(proc.apply(query), proc.apply(texts[m.Index]), 0); s != m.Score {
						t.Fatalf("%v %q vs %q: extract %v, Score %v", sc, query, texts[m.Index], m.Score, s)
					}
				}
			}
		}
	}
}

func FuzzScorers(f *testing.F) {
	seeds := [][2]string{
		{"new york mets", "new YORK mets"},
		{"fuzzy was a bear", "fuzzy fuzzy was a bear"},
		{"b", " b daadabbb"},
		{"abb", "cbc"},
		{"a\u00a0b", "b a"},
		{"a\u00a0bł", "b ał"},
		{"", ""},
		{"!!!", "abc"},
		{"   ", "   "},
		{"İstanbul", "istanbul"},
		{strings.Repeat("ab", 40), strings.Repeat("ba", 90)},
		{"hello", "hello" + strings.Repeat("abcde", 7)},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], 50.0)
	}
	f.Fuzz(func(t *testing.T, a, b string, cutoff float64) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || len(a) > 400 || len(b) > 400 || math.IsNaN(cutoff) {
			t.Skip()
		}
		cutoff = math.Mod(math.Abs(cutoff), 100)
		checkScorers(t, a, b, cutoff)
		pa, pb := DefaultProcess(a), DefaultProcess(b)
		checkScorers(t, pa, pb, cutoff)
		checkBound(t, a, b)
		checkBound(t, pa, pb)

		// An extraction over choices derived from the inputs.
		texts := []string{b, a, a + " " + b, b + b, strings.ToUpper(a), ""}
		for _, w := range strings.Fields(a + " " + b) {
			texts = append(texts, w, w+" "+a)
		}
		checkExtract(t, a, texts)
	})
}

package fuzzy

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// unpruned returns c scoring every choice exactly on one goroutine.
func (c *Choices) unpruned() *Choices {
	d := *c
	d.noPrune = true
	d.workers = 1
	return &d
}

// randomText draws a string from a small alphabet that exercises tokens,
// case, punctuation, NBSP (a separator only in wide strings), wide code
// points, astral code points and needles longer than 64 code points.
func randomText(r *rand.Rand) string {
	alphabet := []string{"a", "b", "c", "d", "e", "a", "b", " ", " ", "  ", "-", "A", "B", "\u00a0", "ł", "İ", "Σ", "🤖", "_", "x"}
	n := r.IntN(12)
	if r.IntN(10) == 0 {
		n = 60 + r.IntN(100)
	}
	var b strings.Builder
	for range n {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// bruteExtract is process.extract by definition: every choice scored with the
// plain scorer, sorted by score descending then index ascending.
func bruteExtract(query string, texts []string, scorer Scorer, proc Processor, limit int, cutoff float64) []Match {
	cut := float64(float32(cutoff))
	q := proc.apply(query)
	var all []Match
	for i, t := range texts {
		if sc := scorer.Score(q, proc.apply(t), cut); sc >= cut {
			all = append(all, Match{Index: i, Score: sc})
		}
	}
	slices.SortStableFunc(all, func(a, b Match) int { return cmp.Compare(b.Score, a.Score) })
	if limit >= 0 && len(all) > limit {
		all = all[:limit]
	}
	return all
}

func TestExtractMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	texts := make([]string, 1000)
	for i := range texts {
		texts[i] = randomText(r)
	}
	ctx := context.Background()
	for _, proc := range []Processor{nil, DefaultProcess} {
		c := NewChoices(texts, proc)
		for qi := range 8 {
			query := randomText(r)
			if qi%3 == 0 {
				query = texts[r.IntN(len(texts))]
			}
			for _, scorer := range Scorers() {
				for _, tc := range []struct {
					limit  int
					cutoff float64
				}{{20, 0}, {1, 0}, {-1, 72.3}} {
					want := bruteExtract(query, texts, scorer, proc, tc.limit, tc.cutoff)
					for _, cc := range []*Choices{c.unpruned(), c.WithWorkers(1), c.WithWorkers(3)} {
						got, err := cc.Extract(ctx, query, scorer, tc.limit, tc.cutoff)
						if err != nil {
							t.Fatal(err)
						}
						if !slices.Equal(got, want) {
							t.Fatalf("%v query %q limit %d cutoff %v (prune=%v workers=%d):\n got  %v\n want %v",
								scorer, query, tc.limit, tc.cutoff, !cc.noPrune, cc.workers, head(got), head(want))
						}
					}
				}
			}
		}
	}
}

func head(m []Match) []Match {
	if len(m) > 8 {
		return m[:8]
	}
	return m
}

// TestPrunedEqualsUnprunedBench compares pruned and unpruned extraction on a
// slice of the benchmark labels for every scorer.
func TestPrunedEqualsUnprunedBench(t *testing.T) {
	d := benchData()
	c := NewChoices(d.Labels[:3000], DefaultProcess)
	ctx := context.Background()
	for qi, query := range d.Queries[:10] {
		for _, scorer := range Scorers() {
			want, err := c.unpruned().Extract(ctx, query, scorer, 20, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.WithWorkers(2).Extract(ctx, query, scorer, 20, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("query %d %v:\n got  %v\n want %v", qi, scorer, got, want)
			}
		}
	}
}

// bruteGroups is ExtractGroups by definition.
func bruteGroups(query string, texts []string, groups []int, scorer Scorer, proc Processor, limit int, cutoff float64) []GroupMatch {
	var all []GroupMatch
	for _, m := range bruteExtract(query, texts, scorer, proc, -1, cutoff) {
		i := slices.IndexFunc(all, func(g GroupMatch) bool { return g.Group == groups[m.Index] })
		switch {
		case i < 0:
			all = append(all, GroupMatch{Group: groups[m.Index], Index: m.Index, Score: m.Score})
		case m.Score == all[i].Score && m.Index < all[i].Index:
			all[i].Index = m.Index
		}
	}
	slices.SortStableFunc(all, func(a, b GroupMatch) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), a.Group-b.Group)
	})
	if limit >= 0 && len(all) > limit {
		all = all[:limit]
	}
	return all
}

func TestExtractGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var texts []string
	var groups []int
	for g := 0; len(texts) < 4000; g += 1 + r.IntN(3) {
		for range 1 + r.IntN(4) {
			texts = append(texts, randomText(r))
			groups = append(groups, g)
		}
	}
	c, err := NewGroupedChoices(texts, groups, DefaultProcess)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 8 {
		query := texts[r.IntN(len(texts))]
		for _, scorer := range []Scorer{ScorerWRatio, ScorerRatio, ScorerTokenSetRatio, ScorerPartialRatio} {
			want := bruteGroups(query, texts, groups, scorer, DefaultProcess, 15, 0)
			for _, cc := range []*Choices{c.unpruned(), c.WithWorkers(1), c.WithWorkers(4)} {
				got, err := cc.ExtractGroups(ctx, query, scorer, 15, 0)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%v %q (prune=%v):\n got  %v\n want %v", scorer, query, !cc.noPrune, got, want)
				}
			}
		}
	}
	if _, err := c.Extract(ctx, "x", ScorerWRatio, 5, 0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Extract on grouped choices: err = %v, want ErrInvalidArgument", err)
	}
}

func TestChoicesErrors(t *testing.T) {
	ctx := context.Background()
	c := NewChoices([]string{"a", "b"}, nil)
	tests := []struct {
		name   string
		scorer Scorer
		cutoff float64
	}{
		{"negative cutoff", ScorerWRatio, -1},
		{"cutoff above 100", ScorerWRatio, 100.5},
		{"invalid scorer", Scorer(0), 0},
	}
	for _, tt := range tests {
		if _, err := c.Extract(ctx, "a", tt.scorer, 5, tt.cutoff); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: err = %v, want ErrInvalidArgument", tt.name, err)
		}
	}
	if _, err := NewGroupedChoices([]string{"a", "b"}, []int{1, 0}, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("decreasing groups: err = %v", err)
	}
	if _, err := NewGroupedChoices([]string{"a"}, []int{1, 2}, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("length mismatch: err = %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Extract(cctx, "a", ScorerWRatio, 5, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: err = %v", err)
	}
	if m, err := c.Extract(ctx, "a", ScorerWRatio, 0, 0); err != nil || len(m) != 0 {
		t.Errorf("limit 0: %v, %v", m, err)
	}
	if _, ok, err := NewChoices(nil, nil).ExtractOne(ctx, "a", ScorerWRatio, 0); ok || err != nil {
		t.Errorf("ExtractOne on no choices: ok=%v err=%v", ok, err)
	}
}

func TestParseScorer(t *testing.T) {
	for _, s := range Scorers() {
		for _, name := range []string{s.String(), strings.ToUpper(s.String()), strings.ReplaceAll(s.String(), "_", "")} {
			got, err := ParseScorer(name)
			if err != nil || got != s {
				t.Errorf("ParseScorer(%q) = %v, %v; want %v", name, got, err, s)
			}
		}
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Scorer
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("text round trip of %v: %v, %v", s, back, err)
		}
	}
	if _, err := ParseScorer("levenshtein"); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("unknown scorer: err = %v", err)
	}
	if got := Scorer(0).String(); got != "Scorer(0)" {
		t.Errorf("String of zero scorer = %q", got)
	}
	if _, err := ParseProcessor("bogus"); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("unknown processor: err = %v", err)
	}
	for _, name := range []string{"none", "default"} {
		if _, err := ParseProcessor(name); err != nil {
			t.Errorf("ParseProcessor(%q): %v", name, err)
		}
	}
}

// TestExtractCutoffFloat32 checks SPEC 8.4: the compiled process.* functions
// store score_cutoff as a float32, so a cutoff of 72.3 becomes
// 72.30000305... and drops a score of exactly 72.3, while the scorer itself
// called with 72.3 keeps it.
func TestExtractCutoffFloat32(t *testing.T) {
	a := strings.Repeat("a", 723) + strings.Repeat("b", 277)
	b := strings.Repeat("a", 723) + strings.Repeat("c", 277)
	if got := Ratio(a, b, 0); got != 72.3 {
		t.Fatalf("Ratio = %v, want exactly 72.3", got)
	}
	if got := Ratio(a, b, 72.3); got != 72.3 {
		t.Errorf("Ratio with cutoff 72.3 = %v, want 72.3", got)
	}
	tests := []struct {
		cutoff float64
		want   int
	}{{72.3, 0}, {72.29, 1}, {0, 1}}
	for _, tt := range tests {
		got, err := Extract(a, []string{b}, ScorerRatio, nil, 5, tt.cutoff)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tt.want {
			t.Errorf("Extract with cutoff %v: %v, want %d results", tt.cutoff, got, tt.want)
		}
	}
}

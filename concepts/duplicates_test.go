package concepts_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/fuzzy"
	"github.com/noema-mem/noema/internal/noematest"
)

func TestAnalyzeDuplicates(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	// Mentions decide the survivor: Kubernetes is linked three times.
	write(t, a, "A", "[[Kubernetes]] [[Kubernetes]] [[Kubernetes]] [[Dependency Injection]] [[Raft]] [[Supervised learning]] [[IPv4]] [[L1 regularization]] [[tools]] [[Python 3]]")
	write(t, a, "B", "[[Kuberentes]] [[injection of dependencies]] [[Raft consensus algorithm]] [[Unsupervised learning]] [[IPv6]] [[L2 regularization]] [[GraphTools.cs]] [[Python 2]] [[Neural networks]]")
	write(t, a, "C", "[[neural network]] [[Café]] [[Cafe]] [[machine learning]] [[learning]] [[JavaScript]] [[Java Script]]")
	res, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, a.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]concepts.DupGroup{}
	for _, g := range res.Groups {
		var names []string
		for _, m := range g.Members {
			names = append(names, m.Label)
		}
		slices.Sort(names)
		groups[strings.Join(names, " | ")] = g
	}
	for _, want := range []struct{ members, target, evidence string }{
		{"Kuberentes | Kubernetes", "Kubernetes", "typo"},
		{"Dependency Injection | injection of dependencies", "", "word_order"},
		{"Raft | Raft consensus algorithm", "", "generic_head_word"},
		{"Neural networks | neural network", "", "singular_plural"},
		{"Cafe | Café", "", "accents"},
		{"Java Script | JavaScript", "", "spacing"},
	} {
		g, ok := groups[want.members]
		if !ok {
			t.Errorf("no group %s; groups: %v", want.members, keys(groups))
			continue
		}
		if want.target != "" && g.Target.Label != want.target {
			t.Errorf("%s: target %q, want %q", want.members, g.Target.Label, want.target)
		}
		if len(g.Pairs) != 1 || !slices.Contains(g.Pairs[0].Evidence, want.evidence) {
			t.Errorf("%s: pairs %+v, want evidence %s", want.members, g.Pairs, want.evidence)
		}
		if g.Merge.Target != g.Target.ID || len(g.Merge.Sources) != len(g.Members)-1 || slices.Contains(g.Merge.Sources, g.Target.ID) {
			t.Errorf("%s: merge %+v", want.members, g.Merge)
		}
		if g.Pairs[0].Similarity == nil {
			t.Errorf("%s: no embedding similarity", want.members)
		}
	}
	if len(res.Groups) != 6 {
		t.Errorf("%d groups, want 6: %v", len(res.Groups), keys(groups))
	}
	reasons := map[string]string{}
	for _, d := range res.DoNotMerge {
		reasons[d.A.Label+" / "+d.B.Label] = d.Reason
		reasons[d.B.Label+" / "+d.A.Label] = d.Reason
	}
	for pair, reason := range map[string]string{
		"Supervised learning / Unsupervised learning": "opposites",
		"IPv4 / IPv6":                           "version_number",
		"L1 regularization / L2 regularization": "version_number",
		"Python 3 / Python 2":                   "version_number",
		"tools / GraphTools.cs":                 "file_name",
	} {
		if !strings.HasPrefix(reasons[pair], reason) {
			t.Errorf("do_not_merge %s: %q, want %s…; all: %v", pair, reasons[pair], reason, reasons)
		}
	}
	if res.Total != len(res.Groups) || res.HasMore || res.Embedder == "" {
		t.Errorf("total %d has_more %v embedder %q", res.Total, res.HasMore, res.Embedder)
	}

	// One concept's group.
	one, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{Concept: "kuberentes"}, a.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Groups) != 1 || one.Groups[0].Target.Label != "Kubernetes" || len(one.Groups[0].Members) != 2 {
		t.Errorf("concept group: %+v", one.Groups)
	}
	none, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{Concept: "Raft consensus algorithm", MinScore: 0.95}, nil)
	if err != nil || len(none.Groups) != 0 || none.Total != 0 {
		t.Errorf("min_score 0.95: %+v, %v", none, err)
	}
	if _, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{Concept: "no such thing"}, nil); code(err) != noema.ENOTFOUND {
		t.Errorf("unknown concept: %v", err)
	}
	if _, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{MinScore: 2}, nil); code(err) != noema.EINVALID {
		t.Errorf("min_score 2: %v", err)
	}
	page, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{Limit: 2, Offset: 1}, nil)
	if err != nil || len(page.Groups) != 2 || !page.HasMore || page.Total != 6 || page.Groups[0].Target != res.Groups[1].Target {
		t.Errorf("paging: %+v, %v", page, err)
	}
}

// The survivor is the concept with a page when mentions tie.
func TestAnalyzeDuplicatesTargetHasPage(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	write(t, a, "A", "[[Gradient Descent]] [[Gradient Descents]]")
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Gradient Descents", Description: ptr("the plural one has a page")}); err != nil {
		t.Fatal(err)
	}
	res, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 1 || res.Groups[0].Target.Label != "Gradient Descents" || !res.Groups[0].Members[0].HasPage {
		t.Fatalf("groups %+v", res.Groups)
	}
	if p := res.Groups[0].Pairs[0]; !p.FoldedKeyEqual || p.SharedNeighbors != 1 || p.Verdict != concepts.VerdictMerge {
		t.Errorf("pair %+v", p)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func ptr[T any](v T) *T { return &v }

// find_concepts' second channel: the misses reach the top 20,
// marked with the channel that found them, with WRatio's own score.
func TestFindSecondChannel(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	var b strings.Builder
	b.WriteString("[[Protein Folding]] [[Git]] [[C++]] [[C]] [[C#]] [[.NET]] [[machine learning]] [[AI]]\n")
	// Distractors that outscore the canonicals on WRatio alone.
	for _, w := range []string{"ML Ops", "MLA", "Mali", "Artificial", "Intelligence", "Folding", "Fold", "Proteins", "Protein", "System", "Version", "Control", "Language", "Programming", "Git Hub", "Version Control", "Control System", "Programming Language", "Language Model", "Programming Paradigm", "Folding Bike", "Protein Design", "Protein Structure", "Protein Synthesis", "Folding Chair"} {
		for _, x := range []string{"", " A", " B", " C", " D"} {
			b.WriteString("[[" + w + x + "]] ")
		}
	}
	write(t, a, "N", b.String())
	for q, want := range map[string]string{
		"folding of proteins":        "Protein Folding",
		"Git version control system": "Git",
		"C++ programming language":   "C++",
		"ML":                         "machine learning", // the acronym lexicon, both ways
		"artificial intelligence":    "AI",
	} {
		res, err := a.Concepts.Find(ctx, concepts.FindInput{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(res.Candidates, func(c concepts.Candidate) bool { return c.Label == want })
		if i < 0 {
			t.Errorf("%q: %q not in the top 20: %+v", q, want, res.Candidates)
			continue
		}
		c := res.Candidates[i]
		if slices.Equal(c.Channels, []string{"wratio"}) {
			t.Errorf("%q: %q found by WRatio alone; the test needs harder distractors", q, want)
		}
		if w := fuzzy.WRatio(fuzzy.DefaultProcess(q), fuzzy.DefaultProcess(c.Matched), 0); c.Score != math.Round(w*100)/100 {
			t.Errorf("%q: score %v is not WRatio's", q, c.Score)
		}
		for k := 1; k < len(res.Candidates); k++ {
			if res.Candidates[k].Score > res.Candidates[k-1].Score {
				t.Errorf("%q: not sorted by score", q)
			}
		}
		if len(res.Candidates) != concepts.DefaultFindLimit {
			t.Errorf("%q: %d candidates", q, len(res.Candidates))
		}
	}
	res, err := a.Concepts.Find(ctx, concepts.FindInput{Query: "!!!"})
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], `processor "none"`) {
		t.Errorf("empty after processing: %+v, %v", res, err)
	}
}

// A concept is never created after its last change, even when a note's
// front-matter modified is older than the file time its created falls
// back to.
func TestConceptCreatedNotAfterUpdated(t *testing.T) {
	ctx := context.Background()
	a := noematest.App(t)
	write(t, a, "Old", "---\nmodified: 2020-01-02\n---\n[[Ancient Concept]]")
	c, err := a.Concepts.Get(ctx, "Ancient Concept")
	if err != nil {
		t.Fatal(err)
	}
	if c.CreatedAt.After(c.UpdatedAt) || c.UpdatedAt.Year() != 2020 {
		t.Errorf("created %v, updated %v", c.CreatedAt, c.UpdatedAt)
	}
}

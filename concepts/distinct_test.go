package concepts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/noematest"
)

// A pair a person marked "not a duplicate" (distinct_from in either
// concept's metadata, as a name or a list, by label or alias) is
// do_not_merge marked_distinct in analyze_duplicates and needs force in
// merge_concepts; the other groups are untouched.
func TestMarkedDistinct(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, on string
		value    any
	}{
		{"NameOnTheLoser", "Kuberentes", "Kubernetes"},
		{"ListOnTheSurvivor", "Kubernetes", []any{"Something else", "kuberentes"}},
		{"ByAlias", "Kubernetes", []any{"k8s typo"}},
		{"NotDuplicateOf", "Kubernetes", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := noematest.App(t)
			write(t, a, "A", "[[Kubernetes]] [[Kubernetes]] [[Cafe]]")
			write(t, a, "B", "[[Kuberentes]] [[Café]]")
			if tc.name == "ByAlias" {
				if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Kuberentes", AddAliases: []string{"k8s typo"}}); err != nil {
					t.Fatal(err)
				}
			}
			before, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, a.Semantic)
			if err != nil {
				t.Fatal(err)
			}
			if len(before.Groups) != 2 {
				t.Fatalf("before the mark: %d groups, want 2 (Kubernetes, Cafe)", len(before.Groups))
			}
			if tc.value != nil {
				if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: tc.on, Metadata: map[string]any{noema.DistinctFromKey: tc.value}}); err != nil {
					t.Fatal(err)
				}
			} else {
				// update_concept's not_duplicate_of adds to the list, once.
				for _, names := range [][]string{{"Kuberentes"}, {"kuberentes", "Helm"}} {
					c, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: tc.on, NotDuplicateOf: names})
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("distinct_from %v", c.Metadata[noema.DistinctFromKey])
				}
				c, err := a.Concepts.Get(ctx, tc.on)
				if err != nil {
					t.Fatal(err)
				}
				if got := fmt.Sprint(c.Metadata[noema.DistinctFromKey]); got != "[Kuberentes Helm]" {
					t.Errorf("distinct_from %s, want [Kuberentes Helm]", got)
				}
			}
			res, err := a.Concepts.Duplicates(ctx, concepts.DuplicatesInput{}, a.Semantic)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Groups) != 1 || !strings.HasPrefix(res.Groups[0].Target.Label, "Caf") {
				t.Errorf("after the mark: groups %+v, want only Cafe / Café", res.Groups)
			}
			found := false
			for _, d := range res.DoNotMerge {
				if strings.HasPrefix(d.Reason, "marked_distinct") && strings.Contains(d.A.Label+d.B.Label, "Kuberentes") {
					found = true
				}
			}
			if !found {
				t.Errorf("do_not_merge %+v: want Kubernetes / Kuberentes marked_distinct", res.DoNotMerge)
			}
			dry, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Kuberentes"}, Target: "Kubernetes"})
			if err != nil || !dry.NeedsForce {
				t.Errorf("dry run of a marked pair: needs_force %v, %v", dry != nil && dry.NeedsForce, err)
			}
			no := false
			_, err = a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Kuberentes"}, Target: "Kubernetes", DryRun: &no})
			if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), "not a duplicate") {
				t.Fatalf("merge of a marked pair: %v, want invalid_argument naming the mark", err)
			}
			if _, err := a.Concepts.Merge(ctx, concepts.MergeInput{Sources: []string{"Kuberentes"}, Target: "Kubernetes", DryRun: &no, Force: true}); err != nil {
				t.Errorf("forced merge of a marked pair: %v", err)
			}
		})
	}
}

package search

import (
	"math"
	"testing"
)

// TestCoverage: the share of a query's content words that name concepts,
// stop words left out; it sets how much the semantic list keeps
// (Tuning.NamedShrink).
func TestCoverage(t *testing.T) {
	for _, c := range []struct {
		words []string
		used  []bool
		want  float64
	}{
		{[]string{"kubernetes"}, []bool{true}, 1},
		{[]string{"notes", "on", "k8s"}, []bool{false, false, true}, 0.5},
		{[]string{"what", "do", "I", "know", "about", "Apache", "Kafka"}, []bool{false, false, false, false, false, true, true}, 2.0 / 3},
		{[]string{"how", "did", "we", "fix", "the", "flaky", "deploy", "on", "kubernetes"}, []bool{false, false, false, false, false, false, false, false, true}, 0.25},
		{[]string{"the", "of"}, []bool{false, false}, 0},
		{nil, nil, 0},
	} {
		if got := coverage(c.words, c.used); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("coverage(%v, %v) = %v, want %v", c.words, c.used, got, c.want)
		}
	}
}

package concepts

import (
	"slices"
	"testing"
)

// TestPairFeatureNames checks that the classifier's features are named
// once each and that pairFeatures sets only named features (feature
// panics on a name not in the list) on pairs of every rule's shape.
func TestPairFeatureNames(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range dupFeature {
		if seen[f] {
			t.Errorf("feature %q named twice", f)
		}
		seen[f] = true
	}
	pairs := [][2]string{
		{"SQL injection", "SQL injection attack"}, {"Munich", "Munich, Germany"}, {"CI", "continuous integration"},
		{"dev server", "development server"}, {"Python 2", "Python 3"}, {"graph", "graph database"},
		{"linear regression", "logistic regression"}, {"colour", "color"}, {"Kubernetes", "k8s"},
		{"Paris", "Paris, Texas"}, {"Alan Turing", "Turing"}, {"main.go", "main"}, {"supervised", "unsupervised"},
	}
	for _, p := range pairs {
		a := dupConcept{id: "a", label: p[0], names: []nameInfo{analyseName(p[0])}, vocab: map[string][]int32{}}
		b := dupConcept{id: "b", label: p[1], names: []nameInfo{analyseName(p[1])}, vocab: map[string][]int32{}}
		ev := judgeEvidence(&a, &b, chToken|chAcronym)
		var f [nDupFeatures]float64
		sim := 0.5
		pairFeatures(&f, &a, &b, chToken|chAcronym, &sim, &ev, true)
		if f[0] != 1 || slices.ContainsFunc(f[:], func(x float64) bool { return x < 0 || x > 1 }) {
			t.Errorf("%q / %q: features %v outside [0, 1] or no bias", p[0], p[1], f)
		}
	}
}

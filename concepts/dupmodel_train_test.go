package concepts_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/vault"
)

var (
	dupTrain      = flag.Bool("dup-train", false, "TestTrainPairModel trains the pair classifier on splits A-J and writes its weights (-dup-train-out)")
	dupTrainMatch = flag.Bool("dup-train-match", false, "TestTrainPairModel writes the thresholds that keep the rules' precision out of fold (most recall), not those for precision 0.97")
	dupTrainOut   = flag.String("dup-train-out", filepath.Join(dupData, "pairmodel.tsv"), "where TestTrainPairModel writes the trained weights (relative to concepts/)")
)

// trainSplits are the splits the classifier is trained and its threshold
// chosen on: every split but the held-out K.
func trainSplits() []string {
	return slices.DeleteFunc(slices.Clone(stringSplits), func(s string) bool { return s == heldOut })
}

// trainModes are the vaults each tuning split is written as: names alone,
// names beside their topic, and names beside random things (so that the
// model sees context that says nothing, and does not need it).
var trainModes = []struct {
	name          string
	context, rand bool
}{{"none", false, false}, {"topic", true, false}, {"random", true, true}}

// labelledSample is a candidate pair the classifier decides, with its
// truth; group names the split and vault it came from.
type labelledSample struct {
	x      []float64
	y      float64
	w      float64 // weight: how many pairs it stands for
	shared int     // notes linking both concepts
	group  string
}

// splitSamples is one split written one way: the pairs the classifier
// decides, the rules' pairs that stand whatever it says (truth of each),
// and how many labelled pairs the split has.
type splitSamples struct {
	split, mode string
	decided     []labelledSample
	fixedTP     int // pairs the rules propose and the model does not decide, right
	fixedFP     int
	positives   int
}

// collectSamples writes split as mode says and returns its candidate
// pairs with their truth.
func collectSamples(t *testing.T, split string, mode int) splitSamples {
	t.Helper()
	if split == heldOut {
		t.Fatalf("the held-out split %s is never trained on", split)
	}
	e, negs := stringSet(t, split)
	labelled := len(e.names)
	extra := distractorsFrom(t, e, *dupDistractors, "generated", split)
	m := trainModes[mode]
	oldCtx, oldRand := *dupContext, *dupContextRand
	*dupContext, *dupContextRand = m.context, m.rand
	defer func() { *dupContext, *dupContextRand = oldCtx, oldRand }()
	var a *app.App
	if m.context {
		a = openContextEval(t, e, labelled, negs, extra)
	} else {
		a = openEval(t, e.names[:labelled], extra...)
	}
	ps, err := a.Concepts.PairSamples(context.Background(), a.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	out := splitSamples{split: split, mode: m.name}
	e.eachPair(func(a, b string) { out.positives++ })
	for _, p := range ps {
		ka, kb := vault.Key(p.A), vault.Key(p.B)
		ca, oka := e.cluster[ka]
		cb, okb := e.cluster[kb]
		if !oka || !okb {
			t.Fatalf("pair %q ~ %q: a name not in the vault's set", p.A, p.B)
		}
		same := ca == cb
		if !p.Decides {
			if p.Rule != "" {
				if same {
					out.fixedTP++
				} else {
					out.fixedFP++
				}
			}
			continue
		}
		out.decided = append(out.decided, labelledSample{x: p.Features, y: boolY(same), w: 1, shared: p.Shared, group: split})
	}
	return out
}

func boolY(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestTrainPairModel trains the pair classifier (docs/duplicates.md, round
// 9) on the tuning splits A-J, each written three ways (names alone, with
// the topic context, with random context), chooses its threshold on
// leave-one-split-out predictions for pair precision 0.97, and writes the
// weights trained on all of them to testdata/duplicates/pairmodel.tsv. The held-out K is
// never read. Behind -dup-train: it writes a testdata file (about 9 minutes).
//
//	go test ./concepts -run TestTrainPairModel -v -dup-train -dup-distractors 5000
func TestTrainPairModel(t *testing.T) {
	if !*dupTrain {
		t.Skip("writes testdata/duplicates/pairmodel.tsv: -dup-train")
	}
	var sets []splitSamples
	for _, split := range trainSplits() {
		for mode := range trainModes {
			s := collectSamples(t, split, mode)
			sets = append(sets, s)
		}
	}
	for _, s := range sets {
		pos := 0
		for _, d := range s.decided {
			pos += int(d.y)
		}
		t.Logf("%s %-6s: %d decided pairs (%d one concept), rules' pairs kept %d right %d wrong, %d labelled pairs", s.split, s.mode, len(s.decided), pos, s.fixedTP, s.fixedFP, s.positives)
	}
	// Out-of-fold probabilities: each split's by a model trained on the
	// others.
	oof := make([][]float64, len(sets))
	for _, split := range trainSplits() {
		var train []labelledSample
		for _, s := range sets {
			if s.split != split {
				train = append(train, s.decided...)
			}
		}
		w := fitLogistic(train, pairModelL2)
		for i, s := range sets {
			if s.split == split {
				oof[i] = make([]float64, len(s.decided))
				for k, d := range s.decided {
					oof[i][k] = logistic(w, d.x)
				}
			}
		}
	}
	rp, rr := pooledPR(sets, nil, thresholds{2, 0}, "")
	t.Logf("rules alone: pair precision %.3f recall %.3f", rp, rr)
	best, matched := thresholds{}, thresholds{}
	bestR, matchedR := -1.0, -1.0
	for add := 0.30; add < 0.995; add += 0.01 {
		for keep := 0.0; keep < 0.95; keep += 0.05 {
			th := thresholds{math.Round(add*100) / 100, math.Round(keep*100) / 100}
			p, r := pooledPR(sets, oof, th, "")
			if p >= pairModelPrecision && r > bestR {
				best, bestR = th, r
			}
			if p >= rp && r > matchedR {
				matched, matchedR = th, r
			}
		}
	}
	for _, x := range []struct {
		name string
		th   thresholds
	}{{"precision 0.97", best}, {"the rules' precision", matched}} {
		p, r := pooledPR(sets, oof, x.th, "")
		t.Logf("thresholds for %s: add %.2f keep %.2f: out of fold %.3f / %.3f", x.name, x.th.add, x.th.keep, p, r)
		for _, m := range trainModes {
			p0, r0 := pooledPR(sets, nil, thresholds{2, 0}, m.name)
			p1, r1 := pooledPR(sets, oof, x.th, m.name)
			t.Logf("  %-6s rules %.3f / %.3f, classifier out of fold %.3f / %.3f", m.name, p0, r0, p1, r1)
		}
	}
	if bestR < 0 {
		t.Fatalf("no thresholds reach precision %.2f out of fold", pairModelPrecision)
	}
	threshold := best
	if *dupTrainMatch {
		threshold = matched
	}
	var all []labelledSample
	for _, s := range sets {
		all = append(all, s.decided...)
	}
	w := fitLogistic(all, pairModelL2)
	if err := os.WriteFile(*dupTrainOut, weightsFile(w, threshold), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pairModelPrecision is the pair precision the threshold is chosen for,
// pooled over the tuning splits' out-of-fold predictions; pairModelL2 the
// ridge penalty of the fit.
const (
	pairModelPrecision = 0.97
	pairModelL2        = 1.0
)

// thresholds are the classifier's: a pair is a review from probability
// add, a review of the rules stands from probability keep.
type thresholds struct{ add, keep float64 }

// pooledPR is the pair precision and recall over sets (mode "" for all)
// when the classifier accepts the decided pairs by th (prob nil: the
// rules' own verdicts, from the features). Pairs the
// context veto turns away after the classifier are left out.
func pooledPR(sets []splitSamples, prob [][]float64, th thresholds, mode string) (float64, float64) {
	names := concepts.PairFeatureNames()
	fi := func(n string) int { return slices.Index(names, n) }
	review, ctxNone := fi("rule_review"), fi("ctx_none")
	tp, fp, pos := 0, 0, 0
	for i, s := range sets {
		if mode != "" && s.mode != mode {
			continue
		}
		tp, fp, pos = tp+s.fixedTP, fp+s.fixedFP, pos+s.positives
		for k, d := range s.decided {
			accept := d.x[review] == 1
			if prob != nil {
				accept = prob[i][k] >= th.add || d.x[review] == 1 && prob[i][k] >= th.keep
			}
			if !accept || d.x[ctxNone] == 1 && d.shared < 2 {
				continue
			}
			if d.y == 1 {
				tp++
			} else {
				fp += int(d.w)
			}
		}
	}
	return float64(tp) / float64(max(tp+fp, 1)), float64(tp) / float64(max(pos, 1))
}

func logistic(w, x []float64) float64 {
	z := 0.0
	for i := range w {
		z += w[i] * x[i]
	}
	return 1 / (1 + math.Exp(-z))
}

// fitLogistic fits a logistic regression with an L2 penalty l2 (not on the
// bias, feature 0) by Newton's method: deterministic, a fixed number of
// steps.
func fitLogistic(samples []labelledSample, l2 float64) []float64 {
	n := len(concepts.PairFeatureNames())
	w := make([]float64, n)
	nz := make([][]int, len(samples)) // each sample's features that are not 0
	for k, s := range samples {
		for i, x := range s.x {
			if x != 0 {
				nz[k] = append(nz[k], i)
			}
		}
	}
	for range 15 {
		g := make([]float64, n)
		h := make([][]float64, n)
		for i := range h {
			h[i] = make([]float64, n)
		}
		for k, s := range samples {
			p := logistic(w, s.x)
			r := s.w * p * (1 - p)
			for _, i := range nz[k] {
				xi := s.x[i]
				g[i] += s.w * (s.y - p) * xi
				for _, j := range nz[k] {
					h[i][j] += r * xi * s.x[j]
				}
			}
		}
		for i := 1; i < n; i++ {
			g[i] -= l2 * w[i]
			h[i][i] += l2
		}
		h[0][0] += 1e-6
		step := solve(h, g)
		change := 0.0
		for i := range w {
			w[i] += step[i]
			change = math.Max(change, math.Abs(step[i]))
		}
		if change < 1e-7 {
			break
		}
	}
	return w
}

// solve solves h x = g by Gaussian elimination with partial pivoting (h
// is positive definite: the penalty makes it so).
func solve(h [][]float64, g []float64) []float64 {
	n := len(g)
	a := make([][]float64, n)
	for i := range a {
		a[i] = append(slices.Clone(h[i]), g[i])
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k <= n; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := a[r][n]
		for k := r + 1; k < n; k++ {
			s -= a[r][k] * x[k]
		}
		x[r] = s / a[r][r]
	}
	return x
}

// weightsFile is the trained model as testdata/duplicates/pairmodel.tsv
// holds it (readPairModel).
func weightsFile(w []float64, th thresholds) []byte {
	var b strings.Builder
	b.WriteString("# The pair classifier of round 9 (docs/duplicates.md): logistic weights by feature (concepts.PairFeatureNames),\n")
	b.WriteString("# trained on splits A-J by: go test ./concepts -run TestTrainPairModel -v -dup-train -dup-distractors 5000\n")
	b.WriteString("# add: a pair the rules leave open is a review from this probability; keep: a review of the rules stands from this one.\n")
	fmt.Fprintf(&b, "add\t%.2f\nkeep\t%.2f\n", th.add, th.keep)
	for i, name := range concepts.PairFeatureNames() {
		fmt.Fprintf(&b, "%s\t%.6g\n", name, w[i])
	}
	return []byte(b.String())
}

// readPairModel reads a model written by weightsFile (name: a file of
// testdata/duplicates): its weights in PairFeatureNames' order and its
// thresholds.
func readPairModel(t testing.TB, name string) (weights []float64, add, keep float64) {
	t.Helper()
	names := concepts.PairFeatureNames()
	weights = make([]float64, len(names))
	seen := 0
	for _, row := range readLines(t, name) {
		if len(row) != 2 {
			t.Fatalf("%s: line %q: want a name and a number", name, row)
		}
		v, err := strconv.ParseFloat(row[1], 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		switch i := slices.Index(names, row[0]); {
		case row[0] == "add":
			add = v
		case row[0] == "keep":
			keep = v
		case i >= 0:
			weights[i] = v
			seen++
		default:
			t.Fatalf("%s: no feature %q", name, row[0])
		}
	}
	if seen != len(names) || add == 0 {
		t.Fatalf("%s: %d of %d weights, add %.2f", name, seen, len(names), add)
	}
	return weights, add, keep
}

// TestPairModelFile checks that the committed model names every feature
// of the classifier once (a feature added or renamed since it was
// trained needs a new training run).
func TestPairModelFile(t *testing.T) {
	w, add, keep := readPairModel(t, "pairmodel.tsv")
	if len(w) != len(concepts.PairFeatureNames()) || keep > add {
		t.Errorf("%d weights, add %.2f keep %.2f", len(w), add, keep)
	}
}

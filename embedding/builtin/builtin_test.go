package builtin_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/embedding/embeddingtest"
	"github.com/noema-mem/noema/vector"
)

func TestConformance(t *testing.T) {
	embeddingtest.Run(t, builtin.New())
}

func TestBitExactDeterminism(t *testing.T) {
	texts := append(embeddingtest.Texts(50), "Café", "東京", "")
	a, err := builtin.New().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := builtin.New().Embed(context.Background(), texts)
	for i := range texts {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("%q: two embeddings differ", texts[i])
		}
		if !slices.Equal(a[i], builtin.Vector(texts[i])) {
			t.Fatalf("%q: Vector differs from Embed", texts[i])
		}
	}
}

var update = flag.Bool("update", false, "rewrite testdata/ngram-v1.golden")

// goldenTexts are embedded into testdata/ngram-v1.golden.
var goldenTexts = []string{"gradient checkpointing", "Memory Consolidation", "Café", "東京の地下鉄", "x", "C++ & Go 1.26"}

// TestGolden pins the output of model ngram-v1. If it fails, the algorithm
// changed: bump builtin.Model (stored vectors must be re-embedded), then run
// go test -run TestGolden -update.
func TestGolden(t *testing.T) {
	const path = "testdata/ngram-v1.golden"
	var b strings.Builder
	for _, s := range goldenTexts {
		fmt.Fprintf(&b, "%q", s)
		for i, x := range builtin.Vector(s) {
			if x != 0 {
				fmt.Fprintf(&b, " %d:%.7f", i, x)
			}
		}
		b.WriteByte('\n')
	}
	want := embeddingtest.Golden(t, path, b.String(), *update)
	gotLines, wantLines := strings.Split(b.String(), "\n"), strings.Split(want, "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("golden has %d lines, output %d", len(wantLines), len(gotLines))
	}
	for i := range gotLines {
		if !sameLine(gotLines[i], wantLines[i]) {
			t.Fatalf("line %d differs from %s (algorithm changed: bump builtin.Model):\n got %.200s\nwant %.200s", i+1, path, gotLines[i], wantLines[i])
		}
	}
}

// sameLine compares golden lines field by field, numbers within 1e-6 (the
// last bits of math.Log may differ across architectures).
func sameLine(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		ia, va, okA := strings.Cut(fa[i], ":")
		ib, vb, okB := strings.Cut(fb[i], ":")
		if !okA || !okB || i == 0 {
			if fa[i] != fb[i] {
				return false
			}
			continue
		}
		xa, errA := strconv.ParseFloat(va, 64)
		xb, errB := strconv.ParseFloat(vb, 64)
		if ia != ib || errA != nil || errB != nil || math.Abs(xa-xb) > 1e-6 {
			return false
		}
	}
	return true
}

func TestDegenerate(t *testing.T) {
	for _, s := range []string{"", " ", "\t\n", "!!!", "— … ·", "🚀🚀", "()[]{}"} {
		v := builtin.Vector(s)
		if len(v) != builtin.Dimension {
			t.Fatalf("%q: length %d", s, len(v))
		}
		if !vector.IsDegenerate(v) {
			t.Errorf("%q: want a degenerate (zero) vector", s)
		}
	}
}

func TestSimilarity(t *testing.T) {
	cos := func(a, b string) float32 { return vector.Cosine(builtin.Vector(a), builtin.Vector(b)) }
	// Spellings that noema's concept key folds together embed identically.
	for _, pair := range [][2]string{
		{"gradient checkpointing", "Gradient_Checkpointing"},
		{"gradient checkpointing", "gradient-checkpointing"},
		{"gradient checkpointing", "  GRADIENT   checkpointing "},
		{"Café", "cafe"},
		{"Straße", "STRASSE"},
		{"ﬁle", "file"}, // NFKC ligature
	} {
		if c := cos(pair[0], pair[1]); c < 0.9999 {
			t.Errorf("cos(%q, %q) = %v, want 1", pair[0], pair[1], c)
		}
	}
	// Morphology and spelling variants rank above unrelated terms.
	scenarios := []struct {
		Query, Near, Far string
		MinNear          float32
	}{
		{"gradient checkpointing", "gradient checkpoint", "memory leak", 0.8},
		{"neural network", "neural networks", "kernel scheduler", 0.8},
		{"transformer", "transformers", "database", 0.7},
		{"PostgreSQL", "Postgres", "MySQL", 0.6},
		{"python", "pythons", "java", 0.6},
		{"東京", "東京都", "大阪", 0.3}, // short CJK words share few n-grams
	}
	for _, sc := range scenarios {
		near, far := cos(sc.Query, sc.Near), cos(sc.Query, sc.Far)
		if near < sc.MinNear || near <= far+0.25 {
			t.Errorf("%q: cos with %q = %.3f, with %q = %.3f; want the variant clearly closer", sc.Query, sc.Near, near, sc.Far, far)
		}
	}
	// What it cannot do, documented: synonyms with no shared spelling.
	if c := cos("car", "automobile"); c > 0.2 {
		t.Errorf("cos(car, automobile) = %v: the builtin embedder is not expected to know synonyms", c)
	}
}

func TestCancelMidBatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := builtin.New().Embed(ctx, []string{"a"}); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("err = %v", err)
	}
}

// labels returns n generated concept labels of 2–4 words.
func labels(n int) []string {
	r := rand.New(rand.NewPCG(42, 0))
	syll := []string{"gra", "di", "ent", "check", "point", "ing", "mem", "o", "ry", "con", "sol", "i", "da", "tion", "net", "work", "trans", "form", "er", "vec", "tor"}
	out := make([]string, n)
	for i := range out {
		words := make([]string, 2+r.IntN(3))
		for j := range words {
			var b strings.Builder
			for range 2 + r.IntN(3) {
				b.WriteString(syll[r.IntN(len(syll))])
			}
			words[j] = b.String()
		}
		if i%3 == 0 {
			words[0] = strings.ToUpper(words[0][:1]) + words[0][1:]
		}
		out[i] = strings.Join(words, " ")
	}
	return out
}

// BenchmarkEmbedLabels measures throughput on generated 2–4 word labels;
// labels/s is the number to read.
func BenchmarkEmbedLabels(b *testing.B) {
	for _, batch := range []int{1, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			texts := labels(4096)
			e := builtin.New()
			ctx := context.Background()
			n := 0
			for b.Loop() {
				lo := n % (len(texts) - batch + 1)
				if _, err := e.Embed(ctx, texts[lo:lo+batch]); err != nil {
					b.Fatal(err)
				}
				n += batch
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "labels/s")
		})
	}
}

// BenchmarkEmbedChunk measures a note-sized chunk (about 1,500 characters).
func BenchmarkEmbedChunk(b *testing.B) {
	chunk := strings.Join(labels(200), ". ")[:1500]
	e := builtin.New()
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Embed(ctx, []string{chunk}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(chunk)))
}

// FuzzVector checks that any input, valid UTF-8 or not, yields a vector of
// the right length that is unit-norm or exactly zero, deterministically.
func FuzzVector(f *testing.F) {
	for _, s := range []string{"", "gradient checkpointing", "Café", "東京の地下鉄", "\xff\xfe", "a\u0301\u0301", "ǅ ß ﬁ İ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := builtin.Vector(s)
		if len(v) != builtin.Dimension {
			t.Fatalf("length %d", len(v))
		}
		var sum float64
		for _, x := range v {
			sum += float64(x) * float64(x)
		}
		if sum != 0 && math.Abs(sum-1) > 1e-5 {
			t.Fatalf("norm² %v", sum)
		}
		if !slices.Equal(v, builtin.Vector(s)) {
			t.Fatal("not deterministic")
		}
	})
}

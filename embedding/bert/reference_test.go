package bert

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"
)

var (
	refModel = flag.String("bert.model", "", "model folder to compare with reference embeddings (with -bert.ids and -bert.want)")
	refIDs   = flag.String("bert.ids", "", "JSON lines with \"ids\": the token ids of each text")
	refWant  = flag.String("bert.want", "", "comma-free list of JSON lines files with \"embedding\", one per reference implementation, separated by "+string(filepath.ListSeparator))
	refPool  = flag.String("bert.pooling", "", "pooling override for -bert.model")
)

func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

type idsLine struct {
	IDs []int32 `json:"ids"`
}

type embLine struct {
	Embedding []float64 `json:"embedding"`
}

// compareEmbeddings checks got against want: cosine >= 0.99999 and max
// absolute difference <= 1e-4 for every vector; it returns the worst of
// both.
func compareEmbeddings(t *testing.T, label string, got [][]float32, want []embLine) (minCos, maxDiff float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d embeddings, reference has %d", label, len(got), len(want))
	}
	minCos = 1
	bad := 0
	for i := range got {
		w := want[i].Embedding
		if len(w) != len(got[i]) {
			t.Fatalf("%s: vector %d has %d dimensions, reference %d", label, i, len(got[i]), len(w))
		}
		var dot, ng, nw, md float64
		for j, g := range got[i] {
			dot += float64(g) * w[j]
			ng += float64(g) * float64(g)
			nw += w[j] * w[j]
			md = max(md, math.Abs(float64(g)-w[j]))
		}
		cos := dot / math.Sqrt(ng*nw)
		minCos = min(minCos, cos)
		maxDiff = max(maxDiff, md)
		if cos < 0.99999 || md > 1e-4 {
			bad++
			if bad <= 5 {
				t.Errorf("%s: vector %d: cosine %.7f, max abs diff %.2g", label, i, cos, md)
			}
		}
	}
	t.Logf("%s: %d vectors, min cosine %.8f, max abs diff %.3g", label, len(got), minCos, maxDiff)
	return minCos, maxDiff
}

// TestTinyReference compares the encoder with PyTorch on a small random
// BERT (testdata/tiny, made by testdata/gen_model.py) in mean and CLS
// pooling.
func TestTinyReference(t *testing.T) {
	ids := readJSONL[idsLine](t, "testdata/tiny-ids.jsonl")
	seqs := make([][]int32, len(ids))
	for i, l := range ids {
		seqs[i] = l.IDs
	}
	for _, pool := range []Pooling{PoolMean, PoolCLS} {
		for _, threads := range []int{1, 2} {
			e, err := Load(Options{Dir: "testdata/tiny", Pooling: pool, Threads: threads, BatchTokens: 300})
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.EmbedIDs(context.Background(), seqs)
			if err != nil {
				t.Fatal(err)
			}
			compareEmbeddings(t, "tiny/"+string(pool), got, readJSONL[embLine](t, "testdata/tiny-"+string(pool)+".jsonl"))
		}
	}
}

// TestReference compares with reference embeddings made outside Go (see
// .ci/bert-reference): go test ./embedding/bert -run TestReference
// -bert.model DIR -bert.ids IDS -bert.want TORCH:ORT.
func TestReference(t *testing.T) {
	if *refModel == "" {
		t.Skip("no -bert.model")
	}
	e, err := Load(Options{Dir: *refModel, Pooling: Pooling(*refPool)})
	if err != nil {
		t.Fatal(err)
	}
	ids := readJSONL[idsLine](t, *refIDs)
	seqs := make([][]int32, len(ids))
	for i, l := range ids {
		seqs[i] = l.IDs
	}
	got, err := e.EmbedIDs(context.Background(), seqs)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range filepath.SplitList(*refWant) {
		compareEmbeddings(t, filepath.Base(w), got, readJSONL[embLine](t, w))
	}
}

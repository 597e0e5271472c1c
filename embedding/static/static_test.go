package static_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/embedding/embeddingtest"
	"github.com/noema-mem/noema/embedding/static"
	"github.com/noema-mem/noema/vector"
)

func newEmbedder(tb testing.TB) *static.Embedder {
	tb.Helper()
	e, err := static.New()
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func TestConformance(t *testing.T) {
	embeddingtest.Run(t, newEmbedder(t))
}

func TestMeaningModel(t *testing.T) {
	if noema.IsSpellingModel(newEmbedder(t)) {
		t.Fatal("the static embedder says it is a spelling model")
	}
}

// TestMeaning: a text is nearer one that means alike in other words than
// one that shares its letters or is unrelated, where the builtin spelling
// model (the reference point) ranks them the other way or not at all.
func TestMeaning(t *testing.T) {
	e := newEmbedder(t)
	for _, tc := range []struct{ text, alike, other string }{
		{"we adopted a puppy", "our new dog", "we adopted a policy"},
		{"my sister got married", "her wedding", "mystery of marigolds"},
		{"the doctor", "a physician at the hospital", "the doctrine"},
		{"I moved to a new city", "relocated to another town", "immovable citadel"},
		{"holiday in Italy", "vacation in Rome", "holistic italics"},
		{"I lost my job", "I was fired", "lobby jostling"},
	} {
		v, err := e.Embed(context.Background(), []string{tc.text, tc.alike, tc.other})
		if err != nil {
			t.Fatal(err)
		}
		near, far := vector.Cosine(v[0], v[1]), vector.Cosine(v[0], v[2])
		if near <= far {
			t.Errorf("%q: %q at cosine %.3f, not nearer than %q at %.3f", tc.text, tc.alike, near, tc.other, far)
		}
	}
}

var update = flag.Bool("update", false, "rewrite testdata/"+static.Model+".golden")

// goldenTexts are embedded into the golden file.
var goldenTexts = []string{"gradient checkpointing", "When did Maria adopt the puppy?", "Café", "東京の地下鉄", "x", "C++ & Go 1.26"}

// TestGolden pins the model's output. If it fails, the table, tokenizer or
// pooling changed: bump static.Model (stored vectors must be re-embedded),
// then run go test -run TestGolden -update.
func TestGolden(t *testing.T) {
	path := "testdata/" + static.Model + ".golden"
	vecs, err := newEmbedder(t).Embed(context.Background(), goldenTexts)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, s := range goldenTexts {
		fmt.Fprintf(&b, "%q", s)
		for _, x := range vecs[i][:16] {
			fmt.Fprintf(&b, " %.6f", x)
		}
		b.WriteByte('\n')
	}
	want := embeddingtest.Golden(t, path, b.String(), *update)
	if !closeText(b.String(), want) {
		t.Fatalf("output changed (bump static.Model):\n%s\nwant:\n%s", b.String(), want)
	}
}

// closeText compares golden texts word by word, numbers within 1e-5 (the
// last bits of float32 sums may differ across architectures).
func closeText(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		xa, errA := strconv.ParseFloat(fa[i], 64)
		xb, errB := strconv.ParseFloat(fb[i], 64)
		if errA != nil || errB != nil {
			if fa[i] != fb[i] {
				return false
			}
		} else if math.Abs(xa-xb) > 1e-5 {
			return false
		}
	}
	return true
}

// BenchmarkEmbed compares the static embedder with the builtin one on the
// same texts: a query and a chunk of about 1.3 KB of chat turns.
//
//	go test ./embedding/static -run XXX -bench Embed -benchmem
func BenchmarkEmbed(b *testing.B) {
	turn := "Maria: We finally adopted a puppy last weekend, a little beagle called Pepper. "
	texts := map[string]string{
		"query": "when did Maria get a dog?",
		"chunk": strings.Repeat(turn, 1300/len(turn)+1),
	}
	for _, kind := range []string{"query", "chunk"} {
		for _, e := range []noema.Embedder{builtin.New(), newEmbedder(b)} {
			name, _, _ := strings.Cut(e.Name(), "/")
			b.Run(kind+"/"+name, func(b *testing.B) {
				in := []string{texts[kind]}
				b.SetBytes(int64(len(texts[kind])))
				for b.Loop() {
					if _, err := e.Embed(context.Background(), in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

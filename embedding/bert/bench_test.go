package bert

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkEmbedIDs measures sentences per second on the model of
// -bert.model (default testdata/tiny): 8-token labels and 256-token chunks.
func BenchmarkEmbedIDs(b *testing.B) {
	dir := *refModel
	if dir == "" {
		dir = "testdata/tiny"
	}
	for _, threads := range []int{1, 2} {
		e, err := Load(Options{Dir: dir, Threads: threads})
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range []struct{ tokens, batch int }{{8, 64}, {min(256, e.MaxLength()), 8}} {
			seqs := make([][]int32, s.batch)
			for i := range seqs {
				q := make([]int32, s.tokens)
				q[0], q[s.tokens-1] = 101, 102
				for j := 1; j < s.tokens-1; j++ {
					q[j] = int32(1000 + (i*131+j*37)%1900)
				}
				seqs[i] = q
			}
			b.Run(fmt.Sprintf("tokens=%d/threads=%d", s.tokens, threads), func(b *testing.B) {
				for b.Loop() {
					if _, err := e.EmbedIDs(context.Background(), seqs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(s.batch*b.N)/b.Elapsed().Seconds(), "sentences/s")
			})
		}
	}
}

package recall_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/recall"
)

// BenchmarkBuildContext measures build_context at depth 2 (the default,
// max_entities 20, decay on, no content) on a synced 10,000-note generated
// vault (80,000 links, 2,500 concepts with Zipf-like degrees), through the
// service: resolve the name, relations, notes, two levels of co-occurrence.
//
//	go test -run '^$' -bench BuildContext -benchtime 2000x ./recall/
//
// "all" cycles through every concept of the vocabulary in a fixed
// scrambled order, so its p50 is that of a concept picked at random; "hubs"
// cycles through the 20 most linked concepts, the worst case (each is
// linked by hundreds of notes, and so are its neighbours). Each reports
// the p50 and p90 latencies in milliseconds next to ns/op.
func BenchmarkBuildContext(b *testing.B) {
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "vault")
	m, err := corpus.Generate(ctx, dir, corpus.Options{Seed: 42, Notes: 10000})
	if err != nil {
		b.Fatal(err)
	}
	cfg := config.Default()
	a, err := app.Open(ctx, dir, app.Options{Config: &cfg})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	t0 := time.Now()
	if _, err := a.Sync(ctx, false, nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("indexed %d notes in %v", len(m.Notes), time.Since(t0))
	s := recall.New(a.DB, a.Concepts, cfg.Decay)

	var labels []string // the linked concepts, most linked first
	for _, c := range m.Concepts {
		if c.Links > 0 {
			labels = append(labels, c.Label)
		}
	}
	// A fixed scramble (a stride coprime with the count) of every concept.
	all := make([]string, len(labels))
	for i := range all {
		all[i] = labels[(i*7919)%len(labels)]
	}
	for _, set := range []struct {
		name   string
		labels []string
	}{
		{"all", all},
		{"hubs", labels[:20]},
	} {
		b.Run(fmt.Sprintf("%s/notes=%d/depth=2", set.name, len(m.Notes)), func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			i := 0
			for b.Loop() {
				t := time.Now()
				res, err := s.BuildContext(ctx, recall.Input{Concept: set.labels[i%len(set.labels)], Depth: 2, MaxEntities: 20})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Notes) == 0 {
					b.Fatalf("%s: no notes", res.Concept.Label)
				}
				lat = append(lat, time.Since(t))
				i++
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")
		})
	}
}

package recall_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/recall"
)

// BenchmarkBuildContext measures build_context at depth 2 (the default,
// max_entities 20, decay on, no content) on a synced 10,000-note generated
// vault (75,792 link rows, 2,490 concepts with Zipf-like degrees), through
// the service: resolve the name, relations, the graph check, notes, two
// levels of co-occurrence.
//
//	go test -run '^$' -bench 'BuildContext/(all|hubs)' -benchtime 2000x ./recall/
//	go test -run '^$' -bench 'BuildContext/after' -benchtime 200x ./recall/
//
// "all" cycles through every linked concept of the vocabulary in a fixed
// scrambled order, so its p50 is that of a concept picked at random;
// "hubs" cycles through the 20 most linked concepts, the worst case (the
// first is linked from 6,382 notes, and its neighbours are hubs too);
// "after-write" writes a note before each call, so every call refreshes
// the mention graph first. Each reports the p50 and p90 latencies in
// milliseconds next to ns/op.
func BenchmarkBuildContext(b *testing.B) {
	ctx := context.Background()
	dir, m := noematest.Corpus(b, corpus.Options{Seed: 42, Notes: 10000})
	cfg := config.Default()
	a := noematest.OpenApp(b, dir, app.Options{Config: &cfg})
	t0 := time.Now()
	noematest.Sync(b, a)
	b.Logf("indexed %d notes in %v", len(m.Notes), time.Since(t0))
	s := recall.New(a.DB.Mentions(), a.Concepts, cfg.Decay)
	t0 = time.Now()
	if _, err := s.BuildContext(ctx, recall.Input{Concept: m.Concepts[0].Label, Depth: 2, MaxEntities: 20}); err != nil {
		b.Fatal(err)
	}
	b.Logf("first call (reads the whole mention graph): %v", time.Since(t0))

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
			report(b, lat)
		})
	}
	// After every write the graph is stale: the call re-reads the note
	// rows and the new note's links. Only the call is timed.
	b.Run(fmt.Sprintf("after-write/notes=%d/depth=2", len(m.Notes)), func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		i := 0
		for b.Loop() {
			b.StopTimer()
			content := fmt.Sprintf("[[%s]] and [[%s]]\n", all[(2*i)%len(all)], all[(2*i+1)%len(all)])
			if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: fmt.Sprintf("bench %d", i), Content: content}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			t := time.Now()
			if _, err := s.BuildContext(ctx, recall.Input{Concept: all[i%len(all)], Depth: 2, MaxEntities: 20}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t))
			i++
		}
		report(b, lat)
	})
}

// report adds the p50 and p90 latencies, in milliseconds.
func report(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")
}

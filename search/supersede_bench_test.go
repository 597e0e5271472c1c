package search_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/search"
)

// BenchmarkSearchTimeline compares a full-text search without memory over
// time (no TimeIndex: the code before it) and with it, on a 10,000-note
// vault where no note supersedes another (the cost every search pays: one
// read of the index's text version) and where 200 notes do (the timeline
// read once, then kept while the vault does not change), each against
// the search without it on the same vault:
//
//	go test -run '^$' -bench SearchTimeline -count 6 ./search
func BenchmarkSearchTimeline(b *testing.B) {
	a, m := noematest.SyncedApp(b, corpus.Options{Seed: 42, Notes: 10000}, app.Options{})
	qs, _ := noematest.RecallQueries(m)
	ctx := context.Background()
	run := func(b *testing.B, svc *search.Service) {
		i := 0
		for b.Loop() {
			if _, err := svc.Search(ctx, search.Input{Query: qs[i%len(qs)], Mode: search.ModeFulltext}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	}
	off := search.New(a.DB.Search(), nil, decay.DefaultConfig())
	on := search.New(a.DB.Search(), nil, decay.DefaultConfig())
	on.Time = a.DB.Time()
	b.Run("timeline=off", func(b *testing.B) { run(b, off) })
	b.Run("timeline=on/none", func(b *testing.B) { run(b, on) })
	for i := range 200 {
		noematest.WriteNote(b, a, notes.WriteInput{Title: fmt.Sprintf("Update %d", i), Content: "changed\n",
			TimeInput: notes.TimeInput{Supersedes: []string{m.Notes[i].Path}}})
	}
	// Off again on the same vault: 200 single writes change the full-text
	// index too, which the comparison must not count.
	b.Run("timeline=off/200", func(b *testing.B) { run(b, off) })
	b.Run("timeline=on/200", func(b *testing.B) { run(b, on) })
}

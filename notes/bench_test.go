package notes_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/notes"
)

// BenchmarkWriteNote writes one new note (3 links) into a synced vault of
// 10,000 generated notes: the file write, its indexing and the concept
// registry update, as write_note does.
//
//	go test -run '^$' -bench WriteNote -benchtime 50x ./notes/
func BenchmarkWriteNote(b *testing.B) {
	a, _ := noematest.SyncedApp(b, corpus.Options{Seed: 42, Notes: 10000}, app.Options{})
	i := 0
	start := cpuTime()
	for b.Loop() {
		noematest.WriteNote(b, a, notes.WriteInput{Title: fmt.Sprintf("bench note %d", i),
			Content: fmt.Sprintf("About [[Bench Concept %d]], [[Shared Bench]] and [[gradient]].\n", i%7)})
		i++
	}
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(i), "cpu-ms/op")
}

// BenchmarkWriteNoteManyLinks writes one note with n distinct links
// ([[link-i-0]] … [[link-i-(n-1)]], new keys every iteration) into a synced
// vault of 100 notes: the worst case of the incremental registry update.
// write_note refuses more than notes.MaxNoteLinks distinct links, so the
// 100,000-link case indexes a file written directly (as another editor
// would), through the same incremental path write_note takes. cpu-ms/op is
// the process's CPU time (all threads), steadier than wall time on a busy
// machine.
//
//	go test -run '^$' -bench WriteNoteManyLinks -benchtime 3x ./notes/
func BenchmarkWriteNoteManyLinks(b *testing.B) {
	for _, bc := range []struct {
		links  int
		direct bool
	}{{notes.MaxNoteLinks, false}, {100000, true}} {
		name := fmt.Sprintf("write_note/links=%d", bc.links)
		if bc.direct {
			name = fmt.Sprintf("file+index/links=%d", bc.links)
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			a, _ := noematest.SyncedApp(b, corpus.Options{Seed: 42, Notes: 100}, app.Options{MaxNoteBytes: 4 << 20})
			dir := a.Vault.Root
			i := 0
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				var sb strings.Builder
				for n := range bc.links {
					fmt.Fprintf(&sb, "[[link-%d-%d]] ", i, n)
				}
				content := sb.String()
				b.StartTimer()
				start := cpuTime()
				if bc.direct {
					rel := fmt.Sprintf("many-links-%d.md", i)
					treetest.Write(b, dir, rel, content)
					if _, err := a.Indexer.SyncPaths(ctx, []string{rel}, ""); err != nil {
						b.Fatal(err)
					}
				} else {
					noematest.WriteNote(b, a, notes.WriteInput{Title: fmt.Sprintf("many links %d", i), Content: content})
				}
				cpu += cpuTime() - start
				i++
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(i), "cpu-ms/op")
		})
	}
}

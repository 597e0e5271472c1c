package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/pgtest"
)

// BenchmarkWriteFile measures what one PostgreSQL takes of noema's writes,
// without any noema server: b.N creations of 1.5 KB notes (each WriteFile
// one transaction: the vault's row, the file's row, NOTIFY, commit) by
// several writers sharing one pool, into one vault and into several. The
// writers of one vault are serialised on its row, so one vault takes about
// 1 / (commit time) writes per second whatever the writers; vaults commit
// side by side. docs/scaling.md rests on these figures:
//
//	go test -run '^$' -bench WriteFile -benchtime 2000x ./postgres/
func BenchmarkWriteFile(b *testing.B) {
	for _, c := range []struct{ vaults, writers int }{{1, 1}, {1, 4}, {1, 16}, {4, 16}} {
		b.Run(fmt.Sprintf("vaults=%d/writers=%d", c.vaults, c.writers), func(b *testing.B) {
			benchWrites(b, c.vaults, c.writers)
		})
	}
}

// benchWrites runs b.N creations by writers goroutines spread over vaults
// vaults of one fresh database, and reports writes/s and the p50 and p99
// latency of one write.
func benchWrites(b *testing.B, vaults, writers int) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(b)
	if _, err := Migrate(ctx, dsn); err != nil {
		b.Fatal(err)
	}
	db, err := Open(ctx, dsn, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(db.Close)
	stores := make([]*Store, vaults)
	for i := range stores {
		if stores[i], err = db.Vault(ctx, fmt.Sprintf("v%d", i)); err != nil {
			b.Fatal(err)
		}
	}
	body := []byte(strings.Repeat("A note of about one and a half kilobytes, as the scale benchmarks write. ", 21))
	var next atomic.Int64
	lat := make([][]time.Duration, writers)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range writers {
		wg.Go(func() {
			s := stores[w%vaults]
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				t0 := time.Now()
				if _, err := s.WriteFile(ctx, fmt.Sprintf("bench/w%d/n%d.md", w, i), body, noema.Absent); err != nil {
					b.Error(err)
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	b.StopTimer()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	if len(all) == 0 {
		return
	}
	b.ReportMetric(float64(len(all))/took.Seconds(), "writes/s")
	b.ReportMetric(float64(quantile(all, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(quantile(all, 0.99).Microseconds())/1000, "p99-ms")
}

// quantile returns the q-quantile of d (sorting d).
func quantile(d []time.Duration, q float64) time.Duration {
	slices.Sort(d)
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

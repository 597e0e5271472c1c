package indexer_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/cputime"
	"github.com/noema-mem/noema/internal/noematest"
)

// benchVault generates the reference vault once per benchmark:
// 10,000 notes of about 1.5 KB with 8 links each.
func benchVault(b *testing.B, notes int) string {
	dir, _ := noematest.Corpus(b, corpus.Options{Seed: 42, Notes: notes, LinksPerNote: 8, TargetBytes: 1500})
	return dir
}

// BenchmarkSyncCold indexes a fresh vault into an empty index.
//
//	go test -run '^$' -bench SyncCold -benchtime 3x ./indexer/
func BenchmarkSyncCold(b *testing.B) {
	dir := benchVault(b, 10000)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		if err := os.RemoveAll(filepath.Join(dir, ".noema")); err != nil {
			b.Fatal(err)
		}
		ix := open(b, dir)
		b.StartTimer()
		res, err := ix.Sync(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if res.Added != 10000 {
			b.Fatalf("added %d", res.Added)
		}
		b.StopTimer()
		ix.DB.Close()
		b.StartTimer()
	}
}

// BenchmarkSyncNoop re-syncs an up-to-date index of the same vault.
func BenchmarkSyncNoop(b *testing.B) {
	dir := benchVault(b, 10000)
	ctx := context.Background()
	ix := open(b, dir)
	if _, err := ix.Sync(ctx, nil); err != nil {
		b.Fatal(err)
	}
	// Files written less than RacyWindow before they were read are read
	// again by the next sync (the racy-clean rule); a no-op sync of a
	// vault at rest trusts them all.
	time.Sleep(indexer.RacyWindow)
	if _, err := ix.Sync(ctx, nil); err != nil {
		b.Fatal(err)
	}
	// CPU time as well as wall time: on a shared machine it is the
	// steadier figure.
	cpu0 := cputime.Process()
	for b.Loop() {
		res, err := ix.Sync(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if res.Changed() {
			b.Fatalf("no-op sync changed: %+v", res)
		}
	}
	b.ReportMetric(float64((cputime.Process()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

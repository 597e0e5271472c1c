package storecopy_test

import (
	"path/filepath"
	"testing"

	"github.com/noema-mem/noema/storecopy"
)

// BenchmarkPush copies a generated vault of 10,000 notes (1.5 KB each, the
// corpus defaults) from a folder onto a new PostgreSQL vault (target: ≤ 10 s,
// issue 22), beside the same copy into a new folder, and pushes it again
// onto a store that already holds it (no changes: the cost of comparing):
//
//	go test -run '^$' -bench Push -benchtime 1x ./storecopy/
func BenchmarkPush(b *testing.B) {
	src := folder(b, generate(b, 10_000))
	copyOnto := func(b *testing.B, open func(b *testing.B) storecopy.Target, want int) {
		for range b.N {
			b.StopTimer()
			dst := open(b)
			b.StartTimer()
			p, err := storecopy.Copy(ctx, src, dst, storecopy.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if p.Changes() != want {
				b.Fatalf("%d changes, want %d", p.Changes(), want)
			}
		}
	}
	b.Run("to=postgres", func(b *testing.B) {
		copyOnto(b, func(b *testing.B) storecopy.Target { return newPostgres(b) }, 10_000)
	})
	b.Run("to=folder", func(b *testing.B) {
		copyOnto(b, func(b *testing.B) storecopy.Target {
			return folder(b, filepath.Join(b.TempDir(), "copy"))
		}, 10_000)
	})
	b.Run("to=postgres/unchanged", func(b *testing.B) {
		db := newPostgres(b)
		if _, err := storecopy.Copy(ctx, src, db, storecopy.Options{}); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		copyOnto(b, func(*testing.B) storecopy.Target { return db }, 0)
	})
}

package sqlite_test

import (
	"context"
	"testing"

	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/sqlite"
	"github.com/noema-mem/noema/vault"
)

// BenchmarkRecomputeConcepts derives the whole registry of a synced
// 10,000-note vault (80,000 links): what every page change and the end of
// every sync cost.
//
//	go test -run '^$' -bench RecomputeConcepts -benchtime 10x ./sqlite/
func BenchmarkRecomputeConcepts(b *testing.B) {
	ctx := context.Background()
	db := noematest.SyncedCorpus(b, corpus.Options{Seed: 42, Notes: 10000})
	for b.Loop() {
		if err := db.Write(ctx, func(tx *sqlite.Tx) error {
			_, err := sqlite.RecomputeConcepts(tx, vault.Key)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecomputeConceptsFromEmpty derives the registry of the same vault
// (2,490 concepts) into empty concept tables, as a reindex does: every row
// is written.
//
//	go test -run '^$' -bench RecomputeConceptsFromEmpty -benchtime 10x ./sqlite/
func BenchmarkRecomputeConceptsFromEmpty(b *testing.B) {
	ctx := context.Background()
	db := noematest.SyncedCorpus(b, corpus.Options{Seed: 42, Notes: 10000})
	for b.Loop() {
		if err := db.Write(ctx, func(tx *sqlite.Tx) error {
			if _, err := tx.Exec(`DELETE FROM concept_keys`); err != nil {
				return err
			}
			if _, err := tx.Exec(`DELETE FROM concepts`); err != nil {
				return err
			}
			_, err := sqlite.RecomputeConcepts(tx, vault.Key)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

package noematest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/sqlite"
	"github.com/noema-mem/noema/vault"
)

// Corpus generates a vault with opts (see corpus.Generate) in a temporary
// folder and returns the folder and the manifest.
func Corpus(tb testing.TB, opts corpus.Options) (string, *corpus.Manifest) {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "vault")
	m, err := corpus.Generate(context.Background(), dir, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return dir, m
}

// OpenIndexer opens the vault at dir and its index (.noema/index.db),
// closed when the test ends, without syncing.
func OpenIndexer(tb testing.TB, dir string) *indexer.Indexer {
	tb.Helper()
	v, err := vault.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, ".noema", "index.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return indexer.New(v, db, nil)
}

// SyncIndex opens the index of the vault at dir (see OpenIndexer) and
// syncs the vault into it.
func SyncIndex(tb testing.TB, dir string) *sqlite.DB {
	tb.Helper()
	ix := OpenIndexer(tb, dir)
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		tb.Fatal(err)
	}
	return ix.DB
}

// SyncedCorpus generates a vault with opts (see Corpus) and returns its
// synced index (see SyncIndex).
func SyncedCorpus(tb testing.TB, opts corpus.Options) *sqlite.DB {
	tb.Helper()
	dir, _ := Corpus(tb, opts)
	return SyncIndex(tb, dir)
}

// SyncedApp generates a vault with opts (see Corpus), opens it with appOpts
// and syncs it (see OpenSynced).
func SyncedApp(tb testing.TB, opts corpus.Options, appOpts app.Options) (*app.App, *corpus.Manifest) {
	tb.Helper()
	dir, m := Corpus(tb, opts)
	return OpenSynced(tb, dir, appOpts), m
}

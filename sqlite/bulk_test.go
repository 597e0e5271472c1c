package sqlite_test

import (
	"context"
	"testing"

	"github.com/noema-mem/noema/sqlite"
)

// TestBulkLoadRestoresTheWriteConnection: BulkLoad raises the write
// connection's page cache and checkpoint interval, and its done puts the
// defaults back, so that a server's connection is not left with them after
// its first sync.
func TestBulkLoadRestoresTheWriteConnection(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	settings := func() (cache, checkpoint int) {
		t.Helper()
		if err := db.Write(ctx, func(tx *sqlite.Tx) error {
			if err := tx.QueryRow(`PRAGMA cache_size`).Scan(&cache); err != nil {
				return err
			}
			return tx.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&checkpoint)
		}); err != nil {
			t.Fatal(err)
		}
		return cache, checkpoint
	}
	if c, p := settings(); c != -32000 || p != 1000 {
		t.Fatalf("defaults: cache_size %d, wal_autocheckpoint %d", c, p)
	}
	done, err := db.BulkLoad(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c, p := settings(); c != -131072 || p != 16384 {
		t.Fatalf("bulk load: cache_size %d, wal_autocheckpoint %d", c, p)
	}
	done()
	if c, p := settings(); c != -32000 || p != 1000 {
		t.Fatalf("after the bulk load: cache_size %d, wal_autocheckpoint %d", c, p)
	}
}

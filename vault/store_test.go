package vault_test

import (
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/storetest"
	"github.com/noema-mem/noema/vault"
)

// TestStore runs the conformance suite of noema.Store on the folder store.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) noema.Store {
		v, err := vault.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return v.Store()
	})
}

// TestOperationLogConformance runs the conformance suite of
// noema.OperationLog on the folder's log.
func TestOperationLogConformance(t *testing.T) {
	storetest.RunOperationLog(t, func(t *testing.T, limits noema.OperationLimits) storetest.OperationStore {
		v, err := vault.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		v.OperationLimits = limits
		return v.Store()
	})
}

package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/noema-mem/noema/cli"
	"github.com/noema-mem/noema/internal/pgtest"
	"github.com/noema-mem/noema/postgres"
)

func TestStoreMigrate(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	for i, want := range []int{1, 0} { // applies the schema, then finds it current
		out, errOut, code := runAll(t, "", "--json", "store", "migrate", "--store", dsn)
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, errOut)
		}
		var res cli.StoreMigrateResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("run %d: %v in %q", i, err, out)
		}
		if res.SchemaVersion != postgres.SchemaVersion() || (want > 0) != (len(res.Applied) > 0) {
			t.Fatalf("run %d: %+v", i, res)
		}
	}
	// Without a store: a usage error naming the flag and the variable.
	_, errOut, code := runAll(t, "", "store", "migrate")
	if code != cli.ExitUsage || !strings.Contains(errOut, "--store") || !strings.Contains(errOut, "NOEMA_STORE") {
		t.Fatalf("no store: exit %d: %s", code, errOut)
	}
}

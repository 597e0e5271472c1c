package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/noema-mem/noema/postgres"
)

// storeDSN returns the global --store flag, else $NOEMA_STORE.
func (c *CLI) storeDSN() (string, error) {
	dsn := c.store
	if dsn == "" {
		dsn = c.Getenv("NOEMA_STORE")
	}
	if dsn == "" {
		return "", usagef("no store given: pass --store postgres://… or set NOEMA_STORE")
	}
	return dsn, nil
}

// runStoreMigrate creates or upgrades noema's schema in a PostgreSQL
// database: every missing step in one transaction (see postgres.Migrate).
func runStoreMigrate(ctx context.Context, c *CLI, _ any) error {
	dsn, err := c.storeDSN()
	if err != nil {
		return err
	}
	applied, err := postgres.Migrate(ctx, dsn)
	if err != nil {
		return err
	}
	if applied == nil {
		applied = []string{}
	}
	if c.json {
		return writeJSON(c.Stdout, StoreMigrateResult{SchemaVersion: postgres.SchemaVersion(), Applied: applied})
	}
	if len(applied) == 0 {
		_, err = fmt.Fprintf(c.Stdout, "the schema is current (version %d)\n", postgres.SchemaVersion())
	} else {
		_, err = fmt.Fprintf(c.Stdout, "schema at version %d: applied %s\n", postgres.SchemaVersion(), strings.Join(applied, ", "))
	}
	return err
}

// StoreMigrateResult is what `noema store migrate --json` prints.
type StoreMigrateResult struct {
	SchemaVersion int      `json:"schema_version"`
	Applied       []string `json:"applied"`
}

package postgres

import (
	"context"
	"log/slog"
	"net/url"
	"strings"

	"github.com/noema-mem/noema"
)

// DefaultVault is the name of the vault a store URL names when it has no
// vault parameter.
const DefaultVault = "default"

// SplitVault takes the vault parameter out of a store URL and returns the
// DSN PostgreSQL sees and the vault's name: postgres://host/db?vault=work
// is vault "work" of database db (DefaultVault without the parameter). The
// key=value form takes it as a vault=NAME word. One string thus names a
// vault anywhere a store is given (--store, NOEMA_STORE, store: in
// config.yaml).
func SplitVault(dsn string) (pgDSN, vault string, err error) {
	vault = DefaultVault
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", "", noema.Errorf(noema.EINVALID, "malformed PostgreSQL DSN (want postgres://user@host:5432/db?vault=NAME)")
		}
		q := u.Query()
		if q.Has("vault") {
			vault = q.Get("vault")
			q.Del("vault")
			u.RawQuery = q.Encode()
		}
		return u.String(), vault, nil
	}
	var words []string
	for _, w := range strings.Fields(dsn) {
		if v, ok := strings.CutPrefix(w, "vault="); ok {
			vault = v
			continue
		}
		words = append(words, w)
	}
	return strings.Join(words, " "), vault, nil
}

// WithVault returns dsn naming the vault name when it names none (has no
// vault parameter), else dsn as it is. A server of several vaults gives
// each one the store URL it was given this way: postgres://host/db serves
// vault work as postgres://host/db?vault=work.
func WithVault(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil || u.Query().Has("vault") {
			return dsn // a malformed one fails where it is opened
		}
		q := u.Query()
		q.Set("vault", name)
		u.RawQuery = q.Encode()
		return u.String()
	}
	for _, w := range strings.Fields(dsn) {
		if strings.HasPrefix(w, "vault=") {
			return dsn
		}
	}
	return strings.TrimSpace(dsn + " vault=" + name)
}

// OpenStore opens the vault a store URL names (see [SplitVault]) in its
// database, checking the schema as [Open] does; the store's Close closes
// the connections it opened.
func OpenStore(ctx context.Context, storeURL string, logger *slog.Logger) (*Store, error) {
	_, name, err := SplitVault(storeURL)
	if err != nil {
		return nil, err
	}
	db, err := Open(ctx, storeURL, logger)
	if err != nil {
		return nil, err
	}
	s, err := db.Vault(ctx, name)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// Close closes the database connections of a store [OpenStore] opened; for
// a store from [DB.Vault] it does nothing (close the DB).
func (s *Store) Close() {
	if s.owned {
		s.db.Close()
	}
}

// Name returns the vault's name in the database.
func (s *Store) Name() string { return s.vault }
